package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// The confirmation round. When the policy asks for it, the confirmation
// step answers a call with a form (through the call's Client) and a sealed
// continuation bound to the tool and its arguments; the call that comes
// back carries the person's answer, and the resume step opens the
// continuation (once) and checks the answer before the call runs as
// confirmed. The *_with_input tools, whose own form may ask for
// confirmation too, open their continuation with Open and check the
// answer with the same functions.

// confirmKey names the input request of a confirmation round, and
// confirmField its one boolean field.
const (
	confirmKey   = "confirm"
	confirmField = "confirm"
)

// An Answer is a person's answer to a form: accept, decline or cancel,
// the fields, and, for a form the client never answered, why.
type Answer struct {
	Action  string
	Content map[string]any
	// Unanswered is Expired or Cancelled for a form a legacy client did
	// not answer (the MCP adapter's bounded wait), else empty.
	Unanswered string
}

// The reasons a form went unanswered.
const (
	Expired   = "expired"   // the continuation's lifetime ran out
	Cancelled = "cancelled" // the client cancelled the call
)

// askConfirm starts a confirmation round for a call of p's action: a form
// naming the action, its targets and its summary, with one boolean field,
// and first, when the send gate asks (g), why it does.
func (x *Executor) askConfirm(ctx context.Context, c *Call, p Plan, targets safety.Targets, g gateCheck) outcome.Reply {
	a := p.Action
	if c.Client == nil || !c.Client.Forms() {
		return x.refused(c, p, outcome.Fail(outcome.KindConfirmationUnavailable,
			fmt.Sprintf("%s must be confirmed by a person (SNOWLUMA_MCP_CONFIRM=%s), and this client did not advertise form elicitation; nothing was sent", a.Name, x.safety.Confirm),
			"use a client that supports form elicitation, or ask the operator to carry the action out"))
	}
	hash, err := seal.CanonicalHash(c.Args)
	if err != nil {
		return outcome.Fail(outcome.KindInvalidArguments, c.Tool+": the arguments cannot be bound to a confirmation: "+err.Error(), "send the arguments as a plain JSON object without duplicate keys")
	}
	state, err := x.sealer.Seal(seal.Claims{Tool: c.Tool, ArgsHash: hash, Confirm: true})
	if errors.Is(err, seal.ErrTooManyPending) {
		return outcome.Fail(outcome.KindTooManyPending, err.Error(), "answer or abandon pending forms, then call again")
	}
	if err != nil {
		return outcome.Fail(outcome.KindContinuation, "could not seal the confirmation: "+err.Error(), "try again")
	}
	act := lang.Act{Action: a.Name, Params: p.Params, Quoted: quotedMessage(ctx, x.backend.Client, a.Name, p.Params)}
	form := confirmForm(x.lang, a, targets, act)
	if g.ask {
		// The send gate asks too: the form says why first.
		form.Message = gateText(x.lang, g.d) + form.Message
	}
	return outcome.Ask(map[string]outcome.Form{confirmKey: form}, state)
}

// resume is the second round of a confirmation, the one path every tool
// takes: the continuation must open for this tool and these arguments,
// once (or have been opened by the caller, p.round), must be a
// confirmation, and the person must have accepted with confirm true. Then
// p is confirmed; otherwise the refusal is returned, with ok false.
func (x *Executor) resume(c *Call, p *Plan) (outcome.Reply, bool) {
	restart := p.restart
	if restart == "" {
		restart = fmt.Sprintf("call %s again without requestState to ask again", c.Tool)
	}
	refuse := func(r outcome.Reply) (outcome.Reply, bool) { return x.refused(c, *p, r), false }
	claims := p.round
	if claims == nil {
		hash, err := seal.CanonicalHash(c.Args)
		if err != nil {
			return outcome.Fail(outcome.KindInvalidArguments, c.Tool+": the arguments cannot be bound to a confirmation: "+err.Error(), "send the arguments as a plain JSON object without duplicate keys"), false
		}
		opened, r, ok := x.open(c, hash, restart)
		if !ok {
			return refuse(r)
		}
		claims = &opened
	}
	if !claims.Confirm || len(claims.Missing) > 0 {
		return refuse(outcome.Fail(outcome.KindContinuation, "the continuation is not a confirmation; nothing was run", restart))
	}
	var ans *Answer
	if c.Client != nil {
		ans = c.Client.Answer(confirmKey)
	}
	if r, ok := checkConfirm(p.Action, ans, true, restart); !ok {
		return refuse(r)
	}
	p.Confirmed = true
	return outcome.Reply{}, true
}

// open opens the continuation c carries: sealed for c's tool and the
// arguments whose canonical hash is hash, and usable once. Its refusal
// (with ok false) offers restart as the next step; the caller audits it.
func (x *Executor) open(c *Call, hash, restart string) (seal.Claims, outcome.Reply, bool) {
	state := ""
	if c.Client != nil {
		state = c.Client.RequestState()
	}
	if state == "" {
		return seal.Claims{}, outcome.Fail(outcome.KindContinuation, "an answer came without its requestState; nothing was run", restart), false
	}
	claims, err := x.sealer.Open(state, c.Tool, hash)
	if err != nil {
		return seal.Claims{}, outcome.Fail(outcome.KindContinuation, err.Error()+"; nothing was run", restart), false
	}
	return claims, outcome.Reply{}, true
}

// unanswered reports a form the client never answered.
func unanswered(ans *Answer, restart string) (outcome.Reply, bool) {
	switch ans.Unanswered {
	case Expired:
		return outcome.Fail(outcome.KindContinuation, "the form was not answered before the continuation expired; nothing was run", restart), true
	case Cancelled:
		return outcome.Fail(outcome.KindCancelled, "the call was cancelled while its form was open; nothing was run", restart), true
	}
	return outcome.Reply{}, false
}

// extraFields refuses an accepted form answer holding a field the form
// did not ask for (fields lists those it did): what the person saw and
// answered is not what came back.
func extraFields(content map[string]any, restart string, fields ...string) (outcome.Reply, bool) {
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(content)) {
		if !slices.Contains(fields, k) {
			extra = append(extra, strconv.Quote(quote.Clip(k, 40)))
		}
	}
	if extra == nil {
		return outcome.Reply{}, true
	}
	if len(extra) > 5 {
		extra = append(extra[:5], "…")
	}
	return outcome.Fail(outcome.KindInvalidAnswer, fmt.Sprintf("the answer has field(s) %s that the form did not ask for (it asked for %s only); nothing was run",
		strings.Join(extra, ", "), strings.Join(fields, " and ")), restart), false
}

// checkConfirm checks a person's answer to a form that asked for
// confirmation of a. withAction says whether the form's action (accept,
// decline, cancel) and its fields are still to be judged here; a form
// that asked for more than confirm has had them judged by its caller.
func checkConfirm(a *catalog.Action, ans *Answer, withAction bool, restart string) (outcome.Reply, bool) {
	if ans == nil {
		return outcome.Fail(outcome.KindInvalidAnswer, "the continuation came back without an answer to the confirmation; nothing was run", restart), false
	}
	if r, ok := unanswered(ans, restart); ok {
		return r, false
	}
	if withAction {
		switch ans.Action {
		case "accept":
		case "decline":
			return outcome.Fail(outcome.KindDeclined, "the person declined to run "+a.Name+"; nothing was run", "do not repeat the action unless the person asks for it"), false
		case "cancel":
			return outcome.Fail(outcome.KindCancelled, "the person cancelled the confirmation of "+a.Name+"; nothing was run", restart), false
		default:
			return outcome.Fail(outcome.KindInvalidAnswer, fmt.Sprintf("the confirmation's answer has action %q; nothing was run", ans.Action), restart), false
		}
		if r, ok := extraFields(ans.Content, restart, confirmField); !ok {
			return r, false
		}
	}
	v, present := ans.Content[confirmField]
	yes, isBool := v.(bool)
	switch {
	case !present || !isBool:
		return outcome.Fail(outcome.KindInvalidAnswer, "the answer has no boolean "+confirmField+"; nothing was run", restart), false
	case !yes:
		return outcome.Fail(outcome.KindNotConfirmed, "the person answered confirm false for "+a.Name+"; nothing was run", "do not repeat the action unless the person asks for it"), false
	}
	return outcome.Reply{}, true
}

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

// confirmProperty is the schema of a form's boolean confirm field.
func confirmProperty(l lang.Lang) map[string]any {
	return map[string]any{
		"type":        "boolean",
		"title":       l.Sprintf(lang.ConfirmRunTitle),
		"description": l.Sprintf(lang.ConfirmRunHelp),
		"default":     false,
	}
}

func confirmForm(l lang.Lang, a *catalog.Action, t safety.Targets, act lang.Act) outcome.Form {
	return outcome.Form{
		Message: confirmText(l, a, t, act),
		Schema: map[string]any{
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
