package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// The execution pipeline. Every tool that runs an action (query_action,
// invoke_action, invoke_action_background, the *_with_input tools and
// get_runtime_info's connection checks) reads its arguments into a plan
// and hands it to run, which applies in order: the automatic upload's
// checks, the answer to a confirmation round, the credential fence, the
// params check, the target allowlists, the send pacer, the person's
// confirmation, the audit record, then the send (or the stream, or the
// launch of a background task), the redaction of a credential's answer and
// the audit line. A refusal sends nothing; a refused write is audited too.
// In a dry run (trial.go) a write's send is replaced by an answer that says
// it passed every check and was not sent.

// executor runs catalog actions against one backend for the execution
// tools. In docs mode the backend has no client and the mode gate refuses
// every call before it gets here.
type executor struct {
	catalog catalogSource
	backend *backend.Backend
	safety  *safety.Policy // the backend's, with its defaults filled in
	mode    Mode
	sealer  *seal.Sealer // continuations of input and confirmation rounds
	lang    lang.Lang    // of the forms a person reads
	log     *slog.Logger
	// sent, when set, is told of every send that succeeded (the QQ
	// channel remembers the bot's message ids).
	sent func(toolkit.Reply)
	// remote, when set, confirms a call from QQ when the client has no
	// form (the channel's approvers); it returns the refusal, with ok
	// false, unless the call was allowed.
	// why, when set, says in Chinese why the send gate asks (the
	// approvers read Chinese).
	remote func(ctx context.Context, c *toolkit.Call, a *catalog.Action, params json.RawMessage, t safety.Targets, why string) (r toolkit.Reply, ok bool)
}

// newExecutor returns the executor of b.
func newExecutor(cat catalogSource, b *backend.Backend, mode Mode, sealer *seal.Sealer, l lang.Lang, log *slog.Logger) *executor {
	return &executor{catalog: cat, backend: b, safety: b.Policy(), mode: mode, sealer: sealer, lang: l, log: log}
}

// enabled reports whether SnowLuma can be reached at all.
func (x *executor) enabled() bool { return x.mode != ModeDocs }

// A plan is one call of an action as its entry point read it.
type plan struct {
	action *catalog.Action
	// params are the params the policy checks: as given, or for an
	// automatic upload with a stand-in for the stream id (see upload).
	params json.RawMessage
	// execution is invoke_action's execution object as given; the
	// pipeline's first step turns it into upload, an automatic upload
	// (execution.input_file): the send is the server's own upload of that
	// file.
	execution *executionArgs
	upload    *pendingUpload
	// answers says the call carries a person's answer to a confirmation
	// round (requestState, inputResponses), which must open for this very
	// call before it runs as confirmed.
	answers bool
	// background sends as a task of the task runner instead of within the
	// call (invoke_action_background).
	background bool
	// confirmed says a person has already accepted this very call in a
	// confirmation round.
	confirmed bool
	// gate is the send gate's decision, for the audit line (untrusted.go).
	gate gateNote
}

// run is the pipeline: it runs p after the safety checks, in the order the
// package comment gives.
func (x *executor) run(ctx context.Context, c *toolkit.Call, p plan) toolkit.Reply {
	if p.execution != nil {
		if r, ok := x.planUpload(&p); !ok {
			return r
		}
	}
	if p.answers {
		if r, ok := x.resumeConfirm(c, &p); !ok {
			return r
		}
	}
	a := p.action
	if r, ok := x.fence(a); !ok {
		return x.refused(c, p, r)
	}
	errs, bad := x.checkParams(a, p.params)
	if bad != nil {
		return x.refused(c, p, *bad)
	}
	if errs != nil {
		return x.refused(c, p, invalidParams(a, errs))
	}
	targets, err := safety.ExtractTargets(p.params, targetParams(a)...)
	if err != nil {
		return x.refused(c, p, toolkit.Fail(toolkit.KindInvalidParams, a.Name+": "+err.Error()+"; nothing was sent", "pass params as a JSON object"))
	}
	if out := x.safety.CheckTargets(targets); out != nil {
		return x.refused(c, p, toolkit.Fail(toolkit.KindTargetNotAllowed,
			fmt.Sprintf("%s names %s, outside this server's allowed targets; nothing was sent", a.Name, strings.Join(out, ", ")),
			"use only the groups and users in get_runtime_info's safety.allowed_groups and allowed_users; the operator sets SNOWLUMA_MCP_ALLOWED_GROUPS and SNOWLUMA_MCP_ALLOWED_USERS"))
	}
	keys := targets.PaceKeys()
	if a.Send {
		if d := x.safety.Pacer.Check(keys); d > 0 {
			return x.refused(c, p, rateLimited(a, d))
		}
	}
	g, r, ok := x.judgeUntrusted(c, &p)
	if !ok {
		return x.refused(c, p, r)
	}
	if !p.confirmed && (g.ask || x.safety.Confirm.Needs(a.Destructive, a.ReadOnly)) {
		forms := toolkit.SupportsForms(c.Req.ClientCapabilities())
		if g.ask && !forms && x.remote == nil {
			p.gate.decision = gateRefused
			return x.refused(c, p, untrustedRefusal(a.Name, g.d, g.w,
				"SNOWLUMA_MCP_UNTRUSTED_SENDS=confirm, and this client has no form and no QQ approver is configured to confirm it",
				"reply only in the chats whose messages were read; to do more, use a client that supports form elicitation, or ask the operator to set SNOWLUMA_MCP_CHANNEL_APPROVERS"))
		}
		if x.remote == nil || forms {
			return x.askConfirm(c, p, targets, g)
		}
		why := ""
		if g.ask {
			why = gateText(lang.Zh, g.d)
		}
		if r, ok := x.remote(ctx, c, a, p.params, targets, why); !ok {
			if g.ask {
				p.gate.decision = gateRefused
				if r.Diag.Kind == toolkit.KindNotConfirmed {
					p.gate.decision = gateDeclined
				}
			}
			return x.refused(c, p, r)
		}
		if g.ask {
			p.gate.decision = gateConfirmed
		}
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
	// What is left runs now, or in the task of a background call: the
	// pacer's admission, the send, the redaction, the audit line.
	do := func(ctx context.Context, c *toolkit.Call) toolkit.Reply {
		var r toolkit.Reply
		if d := x.pace(a, keys); d > 0 {
			r = rateLimited(a, d)
		} else if x.dryRuns(a) {
			r = x.dryRun(a, targets, p) // trial.go: checked, not sent
		} else {
			r = x.send(ctx, c, p)
			x.noteRead(c, p, r)
			if a.Sensitive && x.safety.Sensitive == safety.SensitiveRedact {
				r = redact(r)
			}
			if x.sent != nil && a.Send && r.Diag.Outcome == toolkit.OutcomeSuccess {
				x.sent(r)
			}
		}
		if entry != nil {
			x.write(entry, c, p, targets, r)
		}
		return r
	}
	if p.background {
		r := x.launch(ctx, c, a, do)
		if r.IsError && entry != nil {
			// No task started, so do never runs: the refusal is the
			// audit line.
			x.write(entry, c, p, targets, r)
		}
		return r
	}
	return do(ctx, c)
}

// fence refuses a credential action under SNOWLUMA_MCP_SENSITIVE=deny.
func (x *executor) fence(a *catalog.Action) (toolkit.Reply, bool) {
	if !a.Sensitive || x.safety.Sensitive != safety.SensitiveDeny {
		return toolkit.Reply{}, true
	}
	return toolkit.Fail(toolkit.KindSensitive, a.Name+" answers with a credential of the account, and this server refuses such actions; nothing was sent",
		"ask the operator: SNOWLUMA_MCP_SENSITIVE=redact shows the answer's shape without its values, allow shows it whole"), false
}

// checkParams is the one params check of every path: params against a's
// catalog inputSchema, unless the operator turned the check off. A schema
// that does not compile is the server's defect, not the caller's.
func (x *executor) checkParams(a *catalog.Action, params json.RawMessage) ([]catalog.FieldError, *toolkit.Reply) {
	if x.backend.SkipParamsCheck {
		return nil, nil
	}
	errs, err := a.CheckParams(params)
	if err != nil {
		r := toolkit.Fail(toolkit.KindInternal, fmt.Sprintf("the catalog's inputSchema of %s does not compile; nothing was sent", a.Name),
			"set SNOWLUMA_MCP_VALIDATE_PARAMS=false to send unchecked params, and report this to the snowluma-mcp maintainers")
		return nil, &r
	}
	return errs, nil
}

// invalidParams reports params that fail the action's catalog schema. The
// next step is to fix them; turning the check off is offered only where the
// catalog itself may be behind the connected SnowLuma (see newerMayAccept).
func invalidParams(a *catalog.Action, errs []catalog.FieldError) toolkit.Reply {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = "params" + e.String()
	}
	next := fmt.Sprintf("fix the named params as get_action %s's inputSchema says, then call again", a.Name)
	if why := newerMayAccept(a, errs); why != "" {
		next += "; " + why + ", so if the connected SnowLuma is newer than the catalog's " + catalog.Version +
			", SNOWLUMA_MCP_VALIDATE_PARAMS=false sends params unchecked"
	}
	return toolkit.Fail(toolkit.KindInvalidParams,
		fmt.Sprintf("%s: %s; nothing was sent", a.Name, strings.Join(parts, "; ")), next)
}

// newerMayAccept says why a SnowLuma newer than the catalog might accept
// what the catalog refused, or returns "": the action is one 1.11.1 does
// not implement (a later release may, with other params), or a refused
// value is outside a fixed list of values (a later release may add some).
// A missing field or a wrong type is the caller's to fix.
func newerMayAccept(a *catalog.Action, errs []catalog.FieldError) string {
	if !a.IsSupported() {
		return a.Name + " is not implemented in SnowLuma " + catalog.Version
	}
	for _, e := range errs {
		name, _, _ := strings.Cut(strings.TrimPrefix(e.Pointer, "/"), "/")
		p, ok := a.Param(name)
		if !ok || !strings.HasPrefix(e.Problem, "expected ") {
			continue
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(p.Schema, &top) != nil {
			continue
		}
		if _, ok := top["enum"]; ok {
			return "the catalog lists the values " + name + " accepts and a later SnowLuma may accept more"
		}
	}
	return ""
}

// targetParams lists a's params whose catalog role names a group or a
// person, for the allowlist and the pacer: friend_poke's target_id and the
// qzone actions' target_uin name a person as user_id does.
func targetParams(a *catalog.Action) []safety.TargetParam {
	var out []safety.TargetParam
	for _, p := range a.Params {
		if p.Target() {
			out = append(out, safety.TargetParam{Name: p.Name, Group: p.Role == catalog.RoleGroup})
		}
	}
	return out
}

// askConfirm starts a confirmation round for a call of a: a form naming
// the action, its targets and its summary, with one boolean field.
func (x *executor) askConfirm(c *toolkit.Call, p plan, targets safety.Targets, g gateCheck) toolkit.Reply {
	a, tool := p.action, c.Req.Params.Name
	if !toolkit.SupportsForms(c.Req.ClientCapabilities()) {
		return x.refused(c, p, toolkit.Fail(toolkit.KindConfirmationUnavailable,
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
	form := confirmForm(x.lang, a, targets)
	if g.ask {
		form.Message = gateText(x.lang, g.d) + form.Message
	}
	return toolkit.Ask(mcp.InputRequestMap{confirmKey: form}, state)
}

// resumeConfirm is the second round of a confirmation: the sealed state
// must open for this tool and these arguments, once, and the person must
// have accepted with confirm true. Then p is confirmed; otherwise the
// refusal is returned, with ok false.
func (x *executor) resumeConfirm(c *toolkit.Call, p *plan) (r toolkit.Reply, ok bool) {
	q := c.Req.Params
	restart := fmt.Sprintf("call %s again without requestState to ask again", q.Name)
	refuse := func(r toolkit.Reply) (toolkit.Reply, bool) { return x.refused(c, *p, r), false }
	if q.RequestState == "" {
		return refuse(toolkit.Fail(toolkit.KindContinuation, "an answer came without its requestState; nothing was run", restart))
	}
	hash, err := seal.CanonicalHash(q.Arguments)
	if err != nil {
		return toolkit.Fail(toolkit.KindInvalidArguments, q.Name+": the arguments cannot be bound to a confirmation: "+err.Error(), "send the arguments as a plain JSON object without duplicate keys"), false
	}
	claims, err := x.sealer.Open(q.RequestState, q.Name, hash)
	if err != nil {
		return refuse(toolkit.Fail(toolkit.KindContinuation, err.Error()+"; nothing was run", restart))
	}
	if !claims.Confirm || len(claims.Missing) > 0 {
		return refuse(toolkit.Fail(toolkit.KindContinuation, "the continuation is not a confirmation; nothing was run", restart))
	}
	resp, _ := q.InputResponses[confirmKey].(*mcp.ElicitResult)
	if r, ok := confirmAnswer(p.action, resp, true, restart); !ok {
		return refuse(r)
	}
	p.confirmed = true
	return toolkit.Reply{}, true
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

// audits reports whether calls of a are recorded in the audit log.
func (x *executor) audits(a *catalog.Action) bool {
	return x.safety.Audit != nil && !a.ReadOnly
}

// refused records a write action that did not run and returns r.
func (x *executor) refused(c *toolkit.Call, p plan, r toolkit.Reply) toolkit.Reply {
	if !x.audits(p.action) {
		return r
	}
	targets, _ := safety.ExtractTargets(p.params, targetParams(p.action)...)
	x.noteDeclined(c, &p, r)
	entry, err := x.safety.Audit.Begin()
	if err != nil {
		x.log.Warn("audit", "action", p.action.Name, "problem", err.Error())
		return r
	}
	x.write(entry, c, p, targets, r)
	return r
}

// write appends the call's audit line. The action has already run or been
// refused, so a failure is logged rather than returned.
func (x *executor) write(e *safety.Entry, c *toolkit.Call, p plan, t safety.Targets, r toolkit.Reply) {
	a := p.action
	err := e.Write(safety.Record{
		Time:          time.Now().UTC(),
		Tool:          c.Req.Params.Name,
		Action:        a.Name,
		Groups:        t.Groups,
		Users:         t.Users,
		Outcome:       string(r.Diag.Outcome),
		Kind:          string(r.Diag.Kind),
		Traceparent:   c.Trace.Traceparent(),
		DryRun:        x.backend.DryRun,
		Untrusted:     p.gate.decision,
		UntrustedRead: p.gate.read,
	})
	if err != nil {
		x.log.Warn("audit", "action", a.Name, "problem", err.Error())
	}
}

// send sends the action to SnowLuma and judges the answer: a stream
// action through stream (streams.go), any other with one call.
func (x *executor) send(ctx context.Context, c *toolkit.Call, p plan) toolkit.Reply {
	a := p.action
	req := transfer.Request{Action: a.Name, Params: p.params, Header: c.Trace.Header()}
	if a.Stream {
		return x.stream(ctx, c, req, p.upload, a.ReadOnly)
	}
	resp, err := x.backend.Client.Call(ctx, req)
	if err != nil {
		return failure(err, a.ReadOnly, false)
	}
	return judge(resp.Envelope, resp.Status, resp.Retcode)
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

// judge turns a OneBot envelope into a reply: success only when SnowLuma
// confirms it; an asynchronous acknowledgement or an envelope that confirms
// nothing is unknown; anything else is a business failure returned as data.
func judge(envelope json.RawMessage, status string, retcode json.Number) toolkit.Reply {
	r := toolkit.Reply{Result: envelope}
	switch {
	case status == "ok" && retcode == "0":
		r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeSuccess}
	case status == "async":
		r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeUnknown, Kind: toolkit.KindUnconfirmed,
			Message:  "SnowLuma acknowledged the action without confirming it was carried out",
			NextStep: "check its effect (for example with a read-only action) before repeating it"}
	case status == "failed" || (retcode != "" && retcode != "0"):
		r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeFailed, Kind: toolkit.KindBusiness,
			Message:  businessMessage(envelope, retcode),
			NextStep: "read result.wording and result.retcode; fix the params or the account state, then call again"}
	default:
		r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeUnknown, Kind: toolkit.KindUnconfirmed,
			Message:  "the answer does not confirm success (no status ok with retcode 0)",
			NextStep: "inspect result and check the action's effect before repeating it"}
	}
	return r
}

// businessMessage says what SnowLuma reported, using its own wording.
func businessMessage(envelope json.RawMessage, retcode json.Number) string {
	var e struct {
		Wording string `json:"wording"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(envelope, &e)
	why := e.Wording
	if why == "" {
		why = e.Message
	}
	if why == "" {
		why = "no reason given"
	}
	return fmt.Sprintf("SnowLuma reported a failure (retcode %s): %s", retcode, why)
}

// bodyLimitStep is the next step for a call refused because its request
// body is over SNOWLUMA_MCP_MAX_BODY_BYTES.
const bodyLimitStep = "make the params smaller (split a long message; send a file with execution.input_file, which is cut into chunks that fit); raise SNOWLUMA_MCP_MAX_BODY_BYTES only for a OneBot server that accepts larger bodies"

// A failureStep is what a tool reports for one transfer failure kind: its
// kind and the next step a person can act on. read replaces next for a
// read-only action's call, which changed nothing and may simply be made
// again; stream replaces it for a stream, whose failure of that kind has
// another cause. A step with stream alone is one only streams report.
type failureStep struct {
	kind               toolkit.Kind
	next, read, stream string
}

// failureSteps is the one table from transfer failures to tool failures.
var failureSteps = map[transfer.Kind]failureStep{
	transfer.KindUnauthorized: {kind: toolkit.KindUnauthorized, next: "set SNOWLUMA_MCP_TOKEN to SnowLuma's access token and restart the server"},
	transfer.KindTimeout: {kind: toolkit.KindTimeout,
		next:   "SnowLuma may still carry the action out: check its effect before repeating; raise SNOWLUMA_MCP_TIMEOUT_MS for slow actions",
		read:   "the action only reads, so calling it again is safe; if SnowLuma is slow to answer it, raise SNOWLUMA_MCP_TIMEOUT_MS",
		stream: "SnowLuma stopped sending or answering: check that it is running; raise SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS (or _CONNECT_TIMEOUT_MS) if it is merely slow"},
	transfer.KindCancelled: {kind: toolkit.KindCancelled,
		next: "the call was cancelled; SnowLuma may already have carried it out, so check before repeating",
		read: "the call was cancelled; the action only reads, so calling it again is safe"},
	transfer.KindProtocol: {kind: toolkit.KindProtocol, next: "check that SNOWLUMA_MCP_ENDPOINT points at SnowLuma's OneBot HTTP endpoint"},
	transfer.KindTooLarge: {kind: toolkit.KindTooLarge,
		next:   "narrow the request so that the answer is smaller",
		stream: "the file is larger than SNOWLUMA_MCP_MAX_FILE_BYTES allows: raise it and restart the server, or transfer a smaller file"},
	transfer.KindStreamFailed: {kind: toolkit.KindStreamFailed, next: "the transfer broke off; check SnowLuma's logs and try again"},
	transfer.KindTransport:    {kind: toolkit.KindTransport, next: "check that SnowLuma is running and reachable at SNOWLUMA_MCP_ENDPOINT"},
	transfer.KindBusy:         {kind: toolkit.KindBusy, stream: "wait for a running transfer to finish and call again, or raise SNOWLUMA_MCP_MAX_STREAMS and restart the server"},
	transfer.KindQuota:        {kind: toolkit.KindQuota, stream: "delete files you no longer need from the download directory (get_runtime_info shows it), or raise SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES and restart the server"},
	transfer.KindPathRefused:  {kind: toolkit.KindPathRefused, stream: "give the absolute path of a regular, readable file inside SNOWLUMA_MCP_UPLOAD_ROOT (get_runtime_info shows it); copy the file there first if needed"},
	transfer.KindLocalIO:      {kind: toolkit.KindLocalIO, stream: "check the MCP host's disk (free space, permissions) and call again"},
}

// failure reports a call (stream false) or a stream (stream true) that
// produced no usable answer, by failureSteps. readOnly is the action's
// flag. A request over the body limit is told how to fit it.
func failure(err error, readOnly, stream bool) toolkit.Reply {
	transport := failureSteps[transfer.KindTransport]
	var te *transfer.Error
	if !errors.As(err, &te) {
		return toolkit.Fail(toolkit.KindTransport, "the call to SnowLuma failed: "+err.Error(), transport.next)
	}
	f, known := failureSteps[te.Kind]
	tooBig := transfer.RequestTooLarge(err)
	if stream && known && f.stream != "" && !tooBig {
		return toolkit.Fail(f.kind, te.Error(), f.stream)
	}
	if !known || f.next == "" {
		f = transport
	}
	next := f.next
	if tooBig {
		next = bodyLimitStep
	}
	if readOnly && f.read != "" {
		next = f.read
	}
	return toolkit.Fail(f.kind, te.Error(), next)
}
