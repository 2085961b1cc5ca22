package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/safety"
)

// The account-safety policy (package safety) on the execution path. Every
// tool that runs an action ends in perform, which applies, in order: the
// credential fence, the params check, the target allowlists, the send
// pacer, the person's confirmation, the audit record, and after the call
// the redaction of a credential's answer. A refusal sends nothing.

// confirmKey names the input request of a confirmation round, and
// confirmField its one boolean field.
const (
	confirmKey   = "confirm"
	confirmField = "confirm"
)

// fence refuses a credential action under SNOWLUMA_MCP_SENSITIVE=deny.
func (x *executor) fence(a *catalog.Action) (toolkit.Reply, bool) {
	if !a.Sensitive || x.safety.Sensitive != safety.SensitiveDeny {
		return toolkit.Reply{}, true
	}
	return toolkit.Fail(toolkit.KindSensitive, a.Name+" answers with a credential of the account, and this server refuses such actions; nothing was sent",
		"ask the operator: SNOWLUMA_MCP_SENSITIVE=redact shows the answer's shape without its values, allow shows it whole"), false
}

// perform runs a after the safety checks. confirmed says a person has
// already accepted this very call in a confirmation round.
func (x *executor) perform(ctx context.Context, c *toolkit.Call, a *catalog.Action, params json.RawMessage, confirmed bool) toolkit.Reply {
	if r, ok := x.fence(a); !ok {
		return x.refused(c, a, params, r)
	}
	errs, bad := x.checkParams(a, params)
	if bad != nil {
		return x.refused(c, a, params, *bad)
	}
	if errs != nil {
		return x.refused(c, a, params, invalidParams(a, errs))
	}
	targets, err := safety.ExtractTargets(params, targetParams(a)...)
	if err != nil {
		return x.refused(c, a, params, toolkit.Fail(toolkit.KindInvalidParams, a.Name+": "+err.Error()+"; nothing was sent", "pass params as a JSON object"))
	}
	if out := x.safety.CheckTargets(targets); out != nil {
		return x.refused(c, a, params, toolkit.Fail(toolkit.KindTargetNotAllowed,
			fmt.Sprintf("%s names %s, outside this server's allowed targets; nothing was sent", a.Name, strings.Join(out, ", ")),
			"use only the groups and users in get_runtime_info's safety.allowed_groups and allowed_users; the operator sets SNOWLUMA_MCP_ALLOWED_GROUPS and SNOWLUMA_MCP_ALLOWED_USERS"))
	}
	keys := targets.PaceKeys()
	if a.Send {
		if d := x.safety.Pacer.Check(keys); d > 0 {
			return x.refused(c, a, params, rateLimited(a, d))
		}
	}
	if !confirmed && x.safety.Confirm.Needs(a.Destructive, a.ReadOnly) {
		return x.askConfirm(c, a, params, targets)
	}

	var entry *safety.Entry
	if x.audits(a) {
		if entry, err = x.safety.Audit.Begin(); err != nil {
			// The detail names a path on the host: stderr, not the client.
			x.log.Warn("audit", "action", a.Name, "problem", err.Error())
			return toolkit.Fail(toolkit.KindAuditFailed, a.Name+" was not run because its audit record cannot be written (the server's stderr says why); nothing was sent",
				"ask the operator to make SNOWLUMA_MCP_AUDIT_FILE writable again (or unset it), then call again")
		}
	}
	do := func(ctx context.Context, c *toolkit.Call) toolkit.Reply {
		var r toolkit.Reply
		if d := x.pace(a, keys); d > 0 {
			r = rateLimited(a, d)
		} else {
			r = x.send(ctx, c, a, params)
			if a.Sensitive && x.safety.Sensitive == safety.SensitiveRedact {
				r = redact(r)
			}
		}
		if entry != nil {
			x.write(entry, c, a, targets, r)
		}
		return r
	}
	if x.launch != nil && c.Req != nil && c.Req.Params.Name == backgroundTool {
		// A background task: the checks above have passed; the send, its
		// redaction and its audit line happen in the task.
		return x.launch(ctx, c, a, do)
	}
	return do(ctx, c)
}

// pace admits a send to keys, or says how long it must wait.
func (x *executor) pace(a *catalog.Action, keys []string) time.Duration {
	if !a.Send {
		return 0
	}
	return x.safety.Pacer.Admit(keys)
}

func rateLimited(a *catalog.Action, d time.Duration) toolkit.Reply {
	ms := max(d.Milliseconds(), 1)
	if time.Duration(ms)*time.Millisecond < d {
		ms++ // round up: retrying at retry_after_ms must succeed
	}
	r := toolkit.Fail(toolkit.KindRateLimited,
		fmt.Sprintf("%s was refused to pace message sends (SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS per target, SNOWLUMA_MCP_SEND_PER_MINUTE in all); nothing was sent", a.Name),
		"wait diagnostics.retry_after_ms milliseconds before sending again; do not send in a tight loop")
	r.Diag.RetryAfterMS = ms
	return r
}

// redact masks the data of a credential action's envelope. An answer that
// cannot be redacted is withheld rather than shown.
func redact(r toolkit.Reply) toolkit.Reply {
	env, ok := r.Result.(json.RawMessage)
	if !ok || env == nil {
		return r
	}
	red, err := safety.RedactData(env)
	if err != nil {
		return toolkit.Fail(toolkit.KindInternal, "the credential answer could not be redacted, so it is withheld: "+err.Error(), "report this to the snowluma-mcp maintainers")
	}
	r.Result = json.RawMessage(red)
	return r
}

// audits reports whether calls of a are recorded in the audit log.
func (x *executor) audits(a *catalog.Action) bool {
	return x.safety.Audit != nil && !a.ReadOnly
}

// refused records a write action that did not run and returns r.
func (x *executor) refused(c *toolkit.Call, a *catalog.Action, params json.RawMessage, r toolkit.Reply) toolkit.Reply {
	if !x.audits(a) {
		return r
	}
	targets, _ := safety.ExtractTargets(params, targetParams(a)...)
	entry, err := x.safety.Audit.Begin()
	if err != nil {
		x.log.Warn("audit", "action", a.Name, "problem", err.Error())
		return r
	}
	x.write(entry, c, a, targets, r)
	return r
}

// write appends the call's audit line. The action has already run or been
// refused, so a failure is logged rather than returned.
func (x *executor) write(e *safety.Entry, c *toolkit.Call, a *catalog.Action, t safety.Targets, r toolkit.Reply) {
	err := e.Write(safety.Record{
		Time:        time.Now().UTC(),
		Tool:        c.Req.Params.Name,
		Action:      a.Name,
		Groups:      t.Groups,
		Users:       t.Users,
		Outcome:     string(r.Diag.Outcome),
		Kind:        string(r.Diag.Kind),
		Traceparent: c.Trace.Traceparent(),
	})
	if err != nil {
		x.log.Warn("audit", "action", a.Name, "problem", err.Error())
	}
}

// askConfirm starts a confirmation round for a call of a: a form naming
// the action, its targets and its summary, with one boolean field.
func (x *executor) askConfirm(c *toolkit.Call, a *catalog.Action, params json.RawMessage, targets safety.Targets) toolkit.Reply {
	tool := c.Req.Params.Name
	if !toolkit.SupportsForms(c.Req.ClientCapabilities()) {
		return x.refused(c, a, params, toolkit.Fail(toolkit.KindConfirmationUnavailable,
			fmt.Sprintf("%s must be confirmed by a person (SNOWLUMA_MCP_CONFIRM=%s), and this client did not advertise form elicitation; nothing was sent", a.Name, x.safety.Confirm),
			"use a client that supports form elicitation, or ask the operator to carry the action out"))
	}
	hash, err := seal.CanonicalHash(c.Req.Params.Arguments)
	if err != nil {
		return toolkit.Fail(toolkit.KindInvalidArguments, tool+": the arguments cannot be bound to a confirmation: "+err.Error(), "send the arguments as a plain JSON object without duplicate keys")
	}
	state, err := x.sealer.Seal(seal.Claims{Tool: tool, ArgsHash: hash, Confirm: true})
	if errors.Is(err, seal.ErrTooManyPending) {
		return toolkit.Fail(toolkit.KindTooManyPending, err.Error(), "answer or abandon pending forms, then call again")
	}
	if err != nil {
		return toolkit.Fail(toolkit.KindContinuation, "could not seal the confirmation: "+err.Error(), "try again")
	}
	return toolkit.Ask(mcp.InputRequestMap{confirmKey: confirmForm(x.lang, a, targets)}, state)
}

// confirmText is the question put to the person, in their language: the
// action by its name (and in Chinese by the first clause of its Chinese
// summary too), its targets and its summary.
func confirmText(l lang.Lang, a *catalog.Action, t safety.Targets) string {
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
	short, rest := zhClause(a.SummaryZh)
	if l != lang.Zh {
		rest = a.Summary
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

func confirmForm(l lang.Lang, a *catalog.Action, t safety.Targets) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: confirmText(l, a, t),
		RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{confirmField: confirmProperty(l)},
			"required":   []string{confirmField},
		},
	}
}

// resumeConfirm is the second round of a confirmation: the sealed state
// must open for this tool and these arguments, once, and the person must
// have accepted with confirm true.
func (x *executor) resumeConfirm(ctx context.Context, c *toolkit.Call, a *catalog.Action, params json.RawMessage) toolkit.Reply {
	p := c.Req.Params
	restart := fmt.Sprintf("call %s again without requestState to ask again", p.Name)
	if p.RequestState == "" {
		return x.refused(c, a, params, toolkit.Fail(toolkit.KindContinuation, "an answer came without its requestState; nothing was run", restart))
	}
	hash, err := seal.CanonicalHash(p.Arguments)
	if err != nil {
		return toolkit.Fail(toolkit.KindInvalidArguments, p.Name+": the arguments cannot be bound to a confirmation: "+err.Error(), "send the arguments as a plain JSON object without duplicate keys")
	}
	claims, err := x.sealer.Open(p.RequestState, p.Name, hash)
	if err != nil {
		return x.refused(c, a, params, toolkit.Fail(toolkit.KindContinuation, err.Error()+"; nothing was run", restart))
	}
	if !claims.Confirm || len(claims.Missing) > 0 {
		return x.refused(c, a, params, toolkit.Fail(toolkit.KindContinuation, "the continuation is not a confirmation; nothing was run", restart))
	}
	resp, _ := p.InputResponses[confirmKey].(*mcp.ElicitResult)
	if r, ok := confirmAnswer(a, resp, true, restart); !ok {
		return x.refused(c, a, params, r)
	}
	return x.perform(ctx, c, a, params, true)
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

// safetyInfo is get_runtime_info's view of the policy.
type safetyInfo struct {
	Sensitive         safety.Sensitive `json:"sensitive"`
	Confirm           safety.Confirm   `json:"confirm"`
	SendMinIntervalMS int64            `json:"send_min_interval_ms"`
	SendPerMinute     int              `json:"send_per_minute"`
	AllowedGroups     []int64          `json:"allowed_groups"`
	AllowedUsers      []int64          `json:"allowed_users"`
	Audit             bool             `json:"audit"`
}

func (x *executor) safetyInfo() *safetyInfo {
	p := x.safety
	return &safetyInfo{
		Sensitive:         p.Sensitive,
		Confirm:           p.Confirm,
		SendMinIntervalMS: p.Pacer.Interval().Milliseconds(),
		SendPerMinute:     p.Pacer.PerMinute(),
		AllowedGroups:     p.Groups.Sorted(),
		AllowedUsers:      p.Users.Sorted(),
		Audit:             p.Audit != nil,
	}
}

// defaultSafety is the policy of a server built without one: the
// documented defaults.
func defaultSafety() *safety.Policy {
	return &safety.Policy{
		Sensitive: safety.SensitiveDeny,
		Confirm:   safety.ConfirmNone,
		Pacer:     safety.NewPacer(safety.DefaultSendInterval, safety.DefaultSendPerMinute, nil),
	}
}
