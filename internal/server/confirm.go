package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// The confirmation form and its answer. The pipeline's confirmation step
// (pipeline.go) asks a person to confirm a call the policy says needs it
// with confirmForm, in the person's language; the call that comes back
// carries the answer that confirmAnswer checks (as does a *_with_input
// form that also asked for confirmation).

// confirmKey names the input request of a confirmation round, and
// confirmField its one boolean field.
const (
	confirmKey   = "confirm"
	confirmField = "confirm"
)

// confirmText is the question put to the person, in their language: the
// action by its name (and in Chinese by the first clause of its Chinese
// summary too), its targets and its summary.
func confirmText(l lang.Lang, a *catalog.Action, t safety.Targets, act lang.Act) string {
	short, rest := zhClause(a.SummaryZh)
	if l != lang.Zh {
		rest = a.Summary
	}
	// What will happen, with its values, when the action has a sentence.
	if d, ok := l.Describe(act); ok {
		return l.Sprintf(lang.ConfirmAct, a.Name, short, d, rest)
	}
	var on []string
	for _, g := range t.Groups {
		on = append(on, l.Sprintf(lang.ConfirmGroup, g))
	}
	user := lang.ConfirmUser
	if len(t.Groups) > 0 {
		user = lang.ConfirmMember
	}
	for _, u := range t.Users {
		on = append(on, l.Sprintf(user, u))
	}
	what := l.Sprintf(lang.ConfirmNoTarget)
	if len(on) > 0 {
		what = strings.Join(on, l.Sprintf(lang.ConfirmSep))
	}
	return l.Sprintf(lang.ConfirmQuestion, a.Name, short, what, rest)
}

// zhClause splits a Chinese summary after its first clause: 把成员踢出群，
// 可选择…… gives 把成员踢出群 and 可选择……, the short name a person
// recognises the action by and the rest.
func zhClause(s string) (first, rest string) {
	i := strings.IndexAny(s, "，；。：")
	if i < 0 {
		return s, ""
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return s[:i], s[i+n:]
}

// summaryIn is the action's summary in l.
func summaryIn(l lang.Lang, a *catalog.Action) string {
	if l == lang.Zh && a.SummaryZh != "" {
		return a.SummaryZh
	}
	return a.Summary
}

// confirmProperty is the form's boolean field.
func confirmProperty(l lang.Lang) map[string]any {
	return map[string]any{
		"type":        "boolean",
		"title":       l.Sprintf(lang.ConfirmRunTitle),
		"description": l.Sprintf(lang.ConfirmRunHelp),
		"default":     false,
	}
}

func confirmForm(l lang.Lang, a *catalog.Action, t safety.Targets, act lang.Act) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: confirmText(l, a, t, act),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{confirmField: confirmProperty(l)},
			"required":   []string{confirmField},
		},
	}
}

// quotedMessage reads the text of the message a recall names by id
// (delete_msg's message_id) with get_msg, for the confirmation to show it;
// "" when the call names none or the message cannot be read within a few
// seconds. What it reads is shown to the person confirming, never to the
// model.
func quotedMessage(ctx context.Context, c *transfer.Client, action string, params json.RawMessage) string {
	if action != "delete_msg" || c == nil {
		return ""
	}
	var p struct {
		MessageID json.RawMessage `json:"message_id"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.MessageID) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, quoteTimeout)
	defer cancel()
	resp, err := c.Call(ctx, transfer.Request{Action: "get_msg", Params: json.RawMessage(`{"message_id":` + string(p.MessageID) + `}`)})
	if err != nil || resp.Status != "ok" {
		return ""
	}
	var env struct {
		Data struct {
			Message    json.RawMessage `json:"message"`
			RawMessage string          `json:"raw_message"`
		} `json:"data"`
	}
	if json.Unmarshal(resp.Envelope, &env) != nil {
		return ""
	}
	var segs []any
	if json.Unmarshal(env.Data.Message, &segs) == nil {
		if t := lang.SegmentsText(segs); t != "" {
			return t
		}
	}
	return env.Data.RawMessage
}

// quoteTimeout bounds the read of a recalled message's text.
const quoteTimeout = 5 * time.Second
