package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// The send gate (package untrusted), step 7 of Run: once QQ users' text
// was handed to the model on the call's client connection, a write that
// could carry it elsewhere is put to a person (the confirmation round of
// step 8: a form, or the Remote hook's approvers) or refused, as
// SNOWLUMA_MCP_UNTRUSTED_SENDS says. A read-only action whose answer holds
// such text records its chats (noteRead, after the send).

// A gateNote is the gate's decision on one call, for the audit line.
type gateNote struct {
	decision string   // free, confirmed, declined or refused; "" when nothing was read
	read     []string // the chats read
}

// Audit decisions of the gate.
const (
	gateFree      = "free"
	gateConfirmed = "confirmed"
	gateDeclined  = "declined"
	gateRefused   = "refused"
)

// A gateCheck is the gate's judgement of one call: the write as read,
// the decision, and whether a person must confirm it.
type gateCheck struct {
	w   untrusted.Write
	d   untrusted.Decision
	ask bool
}

// seen is the ledger of c's client connection; nil for the server's own
// calls (no connection), which the gate passes.
func (x *Executor) seen(c *Call) *untrusted.Ledger {
	if c.Client == nil {
		return nil
	}
	return c.Client.Ledger()
}

// gateMayAsk reports whether the send gate could ask a person about a
// write of a on c's connection: QQ users' text was read there and
// SNOWLUMA_MCP_UNTRUSTED_SENDS is confirm. A form that asks for a write's
// missing params then asks for the confirmation too: the go-sdk answers a
// legacy client's call with one round of forms only, so a second round
// (params, then the gate) would never reach that client.
func (x *Executor) gateMayAsk(c *Call, a *catalog.Action) bool {
	if !gated(a) || x.untrustedMode() != untrusted.ModeConfirm {
		return false
	}
	seen := x.seen(c)
	return seen != nil && seen.Armed()
}

// gated reports whether the gate judges calls of a: every write, and a
// read that makes SnowLuma fetch a source (ocr_image of a URL carries
// whatever its query string holds).
func gated(a *catalog.Action) bool {
	if !a.ReadOnly {
		return true
	}
	e, _ := catalog.EffectOf(a.Name)
	return len(e.Fetch) > 0
}

// untrustedMode is the backend's SNOWLUMA_MCP_UNTRUSTED_SENDS.
func (x *Executor) untrustedMode() untrusted.Mode {
	if x.backend.UntrustedSends == "" {
		return untrusted.ModeConfirm
	}
	return x.backend.UntrustedSends
}

// judgeUntrusted decides on a write of p: whether a person must confirm
// it (g.ask), or the refusal (ok false). It sets p.gate for the audit
// line. A read, a call without a client connection (the channel's own
// prompts) and SNOWLUMA_MCP_UNTRUSTED_SENDS=off pass untouched.
func (x *Executor) judgeUntrusted(c *Call, p *Plan) (g gateCheck, r outcome.Reply, ok bool) {
	a := p.Action
	seen := x.seen(c)
	if !gated(a) || x.untrustedMode() == untrusted.ModeOff || seen == nil {
		return g, r, true
	}
	var err error
	if g.w, err = untrusted.ReadWrite(a, p.Params, p.InputFile); err != nil {
		return g, outcome.Fail(outcome.KindInvalidParams, a.Name+": "+err.Error()+"; nothing was sent", "pass params as a JSON object"), false
	}
	g.d = untrusted.Judge(seen, g.w)
	if !g.d.Armed {
		return g, r, true
	}
	p.gate = gateNote{decision: gateFree, read: untrusted.Strings(g.d.Read)}
	switch {
	case g.d.Free:
	case p.Confirmed:
		p.gate.decision = gateConfirmed
	case x.untrustedMode() == untrusted.ModeRefuse:
		p.gate.decision = gateRefused
		return g, untrustedRefusal(a.Name, g, "SNOWLUMA_MCP_UNTRUSTED_SENDS=refuse",
			"reply only in the chats whose messages were read; anything else is for a person to send, or for the operator to allow with SNOWLUMA_MCP_UNTRUSTED_SENDS=confirm"), false
	default:
		g.ask = true
	}
	return g, r, true
}

// untrustedRefusal is the refusal of a write the gate stopped, naming the
// chats read and the target.
func untrustedRefusal(action string, g gateCheck, why, next string) outcome.Reply {
	return outcome.Fail(outcome.KindUntrustedContext,
		fmt.Sprintf("%s (to %s) was stopped: QQ users' text from %s was read on this connection, and %s (%s); nothing was sent",
			action, g.w.Target(), untrusted.Names(g.d.Read), g.d.Because(), why), next)
}

// noteDeclined marks the audit line of a call a person declined to
// confirm when the gate was among the reasons they were asked.
func (x *Executor) noteDeclined(c *Call, p *Plan, r outcome.Reply) {
	switch r.Diag.Kind {
	case outcome.KindNotConfirmed, outcome.KindDeclined, outcome.KindCancelled:
	default:
		return
	}
	if p.gate.decision != "" {
		return
	}
	q := *p
	q.Confirmed = false
	if g, _, ok := x.judgeUntrusted(c, &q); ok && g.ask {
		p.gate = gateNote{decision: gateDeclined, read: q.gate.read}
	}
}

// noteRead records the chats whose text a successful read-only answer
// hands the model on c's connection (and, for a send, the chat of the
// message it created), and returns the answer neutralized
// (untrusted.NeutralizeAnswer) when it goes to a model: a forged
// </channel> or "System:" in get_msg or a history arrives as inert as in
// a push or an event read. The server's own reads (no client: the
// archive's backfill) get SnowLuma's answer as it is.
func (x *Executor) noteRead(c *Call, p Plan, r outcome.Reply) outcome.Reply {
	if r.Diag.Outcome != outcome.OutcomeSuccess {
		return r
	}
	if !p.Action.ReadOnly {
		// The bot's own message: a reply to it is judged by its chat.
		env, _ := r.Result.(json.RawMessage)
		untrusted.NoteSent(x.seen(c), p.Action, p.Params, env)
		return r
	}
	if !untrusted.CarriesText(p.Action.Name) {
		return r
	}
	env, _ := r.Result.(json.RawMessage)
	if seen := x.seen(c); seen != nil {
		untrusted.NoteRead(seen, p.Action.Name, p.Params, env)
	}
	if c.Client != nil && env != nil {
		r.Result = json.RawMessage(untrusted.NeutralizeAnswer(env))
	}
	return r
}

// gateText says in l why the send gate asks a person: the chats read and
// the reasons (the form's first lines; the approvers read it in Chinese).
func gateText(l lang.Lang, d untrusted.Decision) string {
	sep := l.Sprintf(lang.ConfirmSep)
	chats := make([]string, len(d.Read))
	for i, c := range d.Read {
		chats[i] = chatIn(l, c)
	}
	reasons := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		switch r.Kind {
		case untrusted.LocalFile:
			reasons[i] = l.Sprintf(lang.GateLocalFile, r.Detail)
		case untrusted.HasURL:
			reasons[i] = l.Sprintf(lang.GateURL, r.Detail)
		case untrusted.Elsewhere:
			to := make([]string, len(r.Chats))
			for j, c := range r.Chats {
				to[j] = chatIn(l, c)
			}
			reasons[i] = l.Sprintf(lang.GateElsewhere, strings.Join(to, sep))
		case untrusted.NotAnID:
			reasons[i] = l.Sprintf(lang.GateNotID, r.Detail)
		case untrusted.Public:
			reasons[i] = l.Sprintf(lang.GatePublic)
		case untrusted.Carries:
			from := chatIn(l, untrusted.UnknownChat)
			if len(r.Chats) > 0 {
				from = chatIn(l, r.Chats[0])
			}
			reasons[i] = l.Sprintf(lang.GateCarries, r.Detail, from)
		default:
			reasons[i] = l.Sprintf(lang.GateNoChat)
		}
	}
	return l.Sprintf(lang.GateIntro, strings.Join(chats, sep), strings.Join(reasons, l.Sprintf(lang.GateSep)))
}

func chatIn(l lang.Lang, c untrusted.Chat) string {
	switch c.Kind {
	case untrusted.Group:
		return l.Sprintf(lang.GateGroup, c.ID)
	case untrusted.Private:
		return l.Sprintf(lang.GatePrivate, c.ID)
	}
	return l.Sprintf(lang.GateUnknown)
}
