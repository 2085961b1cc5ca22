package server

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// A person's answer to a form, as it comes back on the call that resumes a
// round: a form the legacy wait gave up on, fields the form did not ask
// for, and the answer to a confirmation.

// extraFields refuses an accepted form answer holding a field the form
// did not ask for (fields lists those it did): what the person saw and
// answered is not what came back.
func extraFields(content map[string]any, restart string, fields ...string) (toolkit.Reply, bool) {
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(content)) {
		if !slices.Contains(fields, k) {
			if len(k) > 40 {
				k = k[:40] + "…"
			}
			extra = append(extra, strconv.Quote(k))
		}
	}
	if extra == nil {
		return toolkit.Reply{}, true
	}
	if len(extra) > 5 {
		extra = append(extra[:5], "…")
	}
	return toolkit.Fail(toolkit.KindInvalidAnswer, fmt.Sprintf("the answer has field(s) %s that the form did not ask for (it asked for %s only); nothing was run",
		strings.Join(extra, ", "), strings.Join(fields, " and ")), restart), false
}

// unansweredKey marks, in the _meta of the answer handed back to the tool,
// a form a legacy client did not answer: its value says why. It is set
// only by boundFormWait, inside this process, and never travels on the wire.
const (
	unansweredKey       = "snowluma-mcp/unanswered"
	unansweredExpired   = "expired"   // the continuation's lifetime ran out
	unansweredCancelled = "cancelled" // the client cancelled the call
)

// unansweredForm reports a form boundFormWait handed back unanswered.
func unansweredForm(resp *mcp.ElicitResult, restart string) (toolkit.Reply, bool) {
	switch resp.Meta[unansweredKey] {
	case unansweredExpired:
		return toolkit.Fail(toolkit.KindContinuation, "the form was not answered before the continuation expired; nothing was run", restart), true
	case unansweredCancelled:
		return toolkit.Fail(toolkit.KindCancelled, "the call was cancelled while its form was open; nothing was run", restart), true
	}
	return toolkit.Reply{}, false
}

// confirmAnswer checks a person's answer to a form that asked for
// confirmation. withAction says whether the form's action (accept,
// decline, cancel) is still to be judged here.
func confirmAnswer(a *catalog.Action, resp *mcp.ElicitResult, withAction bool, restart string) (toolkit.Reply, bool) {
	if resp == nil {
		return toolkit.Fail(toolkit.KindInvalidAnswer, "the continuation came back without an answer to the confirmation; nothing was run", restart), false
	}
	if r, ok := unansweredForm(resp, restart); ok {
		return r, false
	}
	if withAction {
		switch resp.Action {
		case "accept":
		case "decline":
			return toolkit.Fail(toolkit.KindDeclined, "the person declined to run "+a.Name+"; nothing was run", "do not repeat the action unless the person asks for it"), false
		case "cancel":
			return toolkit.Fail(toolkit.KindCancelled, "the person cancelled the confirmation of "+a.Name+"; nothing was run", restart), false
		default:
			return toolkit.Fail(toolkit.KindInvalidAnswer, fmt.Sprintf("the confirmation's answer has action %q; nothing was run", resp.Action), restart), false
		}
	}
	if withAction {
		// The form asked for confirm alone; with the combined form the
		// caller has checked the fields.
		if r, ok := extraFields(resp.Content, restart, confirmField); !ok {
			return r, false
		}
	}
	v, present := resp.Content[confirmField]
	yes, isBool := v.(bool)
	switch {
	case !present || !isBool:
		return toolkit.Fail(toolkit.KindInvalidAnswer, "the answer has no boolean "+confirmField+"; nothing was run", restart), false
	case !yes:
		return toolkit.Fail(toolkit.KindNotConfirmed, "the person answered confirm false for "+a.Name+"; nothing was run", "do not repeat the action unless the person asks for it"), false
	}
	return toolkit.Reply{}, true
}
