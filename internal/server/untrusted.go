package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// The send gate (package untrusted) as a step of the pipeline: once QQ
// users' text was handed to the model on this connection, a write that
// could carry it elsewhere is put to a person (the confirmation round of
// the pipeline: a form, or an approver from QQ) or refused, as
// SNOWLUMA_MCP_UNTRUSTED_SENDS says. Read-only actions that hand the model
// such text record its chats (noteRead).

// A gateNote is the gate's decision on one call, for the audit line.
type gateNote struct {
	decision string   // free, confirmed, refused or declined; "" when nothing was read
	read     []string // the chats read
}

// Audit decisions of the gate.
const (
	gateFree      = "free"
	gateConfirmed = "confirmed"
	gateRefused   = "refused"
	gateDeclined  = "declined"
)

// noteDeclined marks the audit line of a call a person declined to
// confirm when the gate was among the reasons they were asked.
func (x *executor) noteDeclined(c *toolkit.Call, p *plan, r toolkit.Reply) {
	switch r.Diag.Kind {
	case toolkit.KindNotConfirmed, toolkit.KindDeclined, toolkit.KindCancelled:
	default:
		return
	}
	if p.gate.decision != "" {
		return
	}
	q := *p
	q.confirmed = false
	if g, _, ok := x.judgeUntrusted(c, &q); ok && g.ask {
		p.gate = gateNote{decision: gateDeclined, read: q.gate.read}
	}
}

// untrustedMode is the backend's SNOWLUMA_MCP_UNTRUSTED_SENDS.
func (x *executor) untrustedMode() untrusted.Mode {
	if x.backend.UntrustedSends == "" {
		return untrusted.ModeConfirm
	}
	return x.backend.UntrustedSends
}

// A gateCheck is the gate's judgement of one call: the write as read,
// the decision, and whether a person must confirm it.
type gateCheck struct {
	w   untrusted.Write
	d   untrusted.Decision
	ask bool
}

// judgeUntrusted decides on a write of p: whether a person must confirm it
// (g.ask), or the refusal (ok false). It sets p.gate for the audit line. A
// read, a plan without a client connection (the channel's own prompts)
// and SNOWLUMA_MCP_UNTRUSTED_SENDS=off pass untouched.
func (x *executor) judgeUntrusted(c *toolkit.Call, p *plan) (g gateCheck, r toolkit.Reply, ok bool) {
	a := p.action
	if a.ReadOnly || x.untrustedMode() == untrusted.ModeOff || c.Req.Session == nil {
		return g, r, true
	}
	upload := ""
	if p.upload != nil {
		upload = p.upload.input
	}
	var err error
	if g.w, err = untrusted.ReadWrite(a, p.params, upload); err != nil {
		return g, toolkit.Fail(toolkit.KindInvalidParams, a.Name+": "+err.Error()+"; nothing was sent", "pass params as a JSON object"), false
	}
	g.d = untrusted.Judge(x.backend.Provenance.For(c.Req.Session), g.w)
	if !g.d.Armed {
		return g, r, true
	}
	p.gate = gateNote{decision: gateFree, read: untrusted.Strings(g.d.Read)}
	switch {
	case g.d.Free:
	case p.confirmed:
		p.gate.decision = gateConfirmed
	case x.untrustedMode() == untrusted.ModeRefuse:
		p.gate.decision = gateRefused
		return g, untrustedRefusal(a.Name, g.d, g.w, "SNOWLUMA_MCP_UNTRUSTED_SENDS=refuse",
			"reply only in the chats whose messages were read; anything else is for a person to send, or for the operator to allow with SNOWLUMA_MCP_UNTRUSTED_SENDS=confirm"), false
	default:
		g.ask = true
	}
	return g, r, true
}

// untrustedRefusal is the refusal of a write the gate stopped, naming the
// chats read and the target.
func untrustedRefusal(action string, d untrusted.Decision, w untrusted.Write, why, next string) toolkit.Reply {
	return toolkit.Fail(toolkit.KindUntrustedContext,
		fmt.Sprintf("%s (to %s) was stopped: QQ users' text from %s was read on this connection, and %s (%s); nothing was sent",
			action, w.Target(), untrusted.Names(d.Read), d.Because(), why), next)
}

// gateText says in l why a person is asked: the chats read and the
// reasons.
func gateText(l lang.Lang, d untrusted.Decision) string {
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
			reasons[i] = l.Sprintf(lang.GateElsewhere, strings.Join(to, l.Sprintf(lang.ConfirmSep)))
		case untrusted.NotAnID:
			reasons[i] = l.Sprintf(lang.GateNotID, r.Detail)
		default:
			reasons[i] = l.Sprintf(lang.GateNoChat)
		}
	}
	return l.Sprintf(lang.GateIntro, strings.Join(chats, l.Sprintf(lang.ConfirmSep)), strings.Join(reasons, l.Sprintf(lang.GateSep)))
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

// noteRead records the chats whose text a successful read-only answer
// hands the model on this connection.
func (x *executor) noteRead(c *toolkit.Call, p plan, r toolkit.Reply) {
	if !p.action.ReadOnly || r.Diag.Outcome != toolkit.OutcomeSuccess || c.Req.Session == nil || !untrusted.CarriesText(p.action.Name) {
		return
	}
	env, _ := r.Result.(json.RawMessage)
	x.backend.Provenance.For(c.Req.Session).Note(untrusted.ReadChats(p.action.Name, p.params, env)...)
}
