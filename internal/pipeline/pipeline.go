// Package pipeline is the one path every catalog action takes to
// SnowLuma: a call is read into a Plan, and Executor.Run applies the
// account-safety steps in order, then sends, streams or launches it, and
// judges the answer. It knows no MCP: the tool adapters of internal/server
// build the Call (with a Client for what only the client's side knows:
// whether it shows forms, the answers and continuation it carries, where
// progress goes, what its connection read) and render the outcome.Reply,
// which asks for a form (outcome.Ask) when a person must answer.
//
// The steps, in the order Run applies them (a refusal sends nothing; a
// refused write is audited too):
//
//  1. upload: an automatic upload's checks (the plan's InputFile)
//  2. resume: the person's answer to a confirmation round
//  3. fence: a credential action under SNOWLUMA_MCP_SENSITIVE=deny
//  4. params: the one params check against the catalog's inputSchema
//  5. targets: the group and user allowlists
//  6. pacing: the send pacer's check
//  7. untrusted: the send gate (untrusted.go) when QQ users' text was read
//     on the call's connection
//  8. confirmation: a form (or the remote approvers) when the policy or
//     the send gate asks
//  9. audit: the audit record is opened
//  10. admission: the send pacer's admission
//  11. dry run, or send (one call, or a stream by the action's
//     StreamKind), then redaction of a credential's answer, the sent
//     hook, and the chats a read hands the model (noteRead)
//  12. audit line
//
// A background plan runs steps 10 to 12 as a task (the Launch hook). The
// *_with_input tools' round of missing params (input.go, RunWithInput)
// ends in Run too.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/trace"
	"github.com/snowluma/snowluma-mcp/internal/validate"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// An Executor runs catalog actions against one backend. Its hooks are
// given once, by New's options; it is safe for concurrent use.
type Executor struct {
	backend *backend.Backend
	safety  *safety.Policy // the backend's, with its defaults filled in
	sealer  *seal.Sealer   // continuations of confirmation rounds
	lang    lang.Lang      // of the forms a person reads
	log     *slog.Logger
	catalog func() (*catalog.Catalog, error)

	sent   Sent
	remote Remote
	launch Launch
	// files names a group file's download (filenames.go).
	files fileNames
}

// Sent is told of a send that succeeded: the action, its params as
// checked, and the reply (the QQ channel remembers the bot's message
// ids; the archive keeps the message).
type Sent func(a *catalog.Action, params json.RawMessage, r outcome.Reply)

// Remote confirms a call when the client has no form (the QQ channel's
// approvers): it returns the refusal, with ok false, unless a person
// allowed the call. why, when the send gate asks, says in Chinese (what
// approvers read) why the call leaves the chats the model read.
type Remote func(ctx context.Context, c *Call, a *catalog.Action, params json.RawMessage, t safety.Targets, why string) (r outcome.Reply, ok bool)

// Launch starts job, the checked rest of a background plan, as a durable
// task and answers with its handle; job runs detached from the request.
type Launch func(ctx context.Context, action string, job func(context.Context) outcome.Reply) outcome.Reply

// Options configure New. Backend, Catalog and Sealer are required.
type Options struct {
	Backend *backend.Backend
	// Catalog returns the bundled catalog (for Read's lookup).
	Catalog func() (*catalog.Catalog, error)
	Sealer  *seal.Sealer
	// Lang is the language of the confirmation form; empty means English.
	Lang lang.Lang
	// Log receives warnings (an audit line that could not be written).
	Log *slog.Logger
	// Sent, when set, is told of every send that succeeded (the QQ
	// channel remembers the bot's message ids).
	Sent Sent
	// Remote, when set, confirms a call whose client has no form.
	Remote Remote
	// Launch, when set, runs background plans; without it they are
	// refused.
	Launch Launch
}

// New returns the executor of o.Backend.
func New(o Options) *Executor {
	l := o.Lang
	if l == "" {
		l = lang.En
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Executor{backend: o.Backend, safety: o.Backend.Policy(), sealer: o.Sealer, lang: l, log: log, catalog: o.Catalog,
		sent: o.Sent, remote: o.Remote, launch: o.Launch}
}

// Policy is the safety policy the executor applies.
func (x *Executor) Policy() *safety.Policy { return x.safety }

// A Call is one call as the pipeline sees it: who asks, bound to what.
type Call struct {
	// Tool names the tool (or "channel" for the server's own calls) in the
	// audit log; a confirmation round is bound to it.
	Tool string
	// Args are the tool's arguments as sent; a confirmation round is bound
	// to them.
	Args json.RawMessage
	// Trace is the call's trace context, sent to SnowLuma.
	Trace trace.Context
	// Client is the client's side of the call; nil for the server's own
	// calls, which have no form, no answer and no progress.
	Client Client
}

// A Client is what only the client of a call can do. The MCP adapter
// satisfies it for a tool call.
type Client interface {
	// Forms reports whether the client can show a person a form.
	Forms() bool
	// RequestState is the sealed continuation the call carries, if any.
	RequestState() string
	// Answer is the person's answer to the form named key, or nil.
	Answer(key string) *Answer
	// Progress returns the function that reports a transfer's progress,
	// or nil when the client asked for none.
	Progress(ctx context.Context) func(done, total int64) error
	// Ledger is what QQ users' text the client's connection was handed
	// (the send gate's record); nil when the connection is unknown or
	// the gate keeps no records.
	Ledger() *untrusted.Ledger
}

// A Plan is one call of an action as its entry point read it.
type Plan struct {
	Action *catalog.Action
	// Params are the params as given ({} when none).
	Params json.RawMessage
	// InputFile makes a call of the upload stream action an automatic
	// upload of that file (invoke_action's execution.input_file).
	InputFile string
	// Answers says the call carries a person's answer to a confirmation
	// round (or to RunWithInput's form), which must open for this very
	// call before it runs as confirmed.
	Answers bool
	// Background sends as a task (Launch) instead of within the call.
	Background bool
	// Confirmed says a person has already accepted this very call.
	Confirmed bool

	// round is the confirmation round when RunWithInput has opened it
	// already; nil opens it in the resume step. restart is the next step
	// offered when a round's answer is refused; empty means calling the
	// tool again without requestState. answered says the params came
	// from a person's answer to a form: a misfit is the answer's.
	round    *seal.Claims
	restart  string
	answered bool

	upload *pendingUpload // set by the upload step
	gate   gateNote       // set by the send gate, for the audit line
}

// Run is the pipeline: it applies the steps of the package comment to p,
// in that order, and returns the reply.
func (x *Executor) Run(ctx context.Context, c *Call, p Plan) outcome.Reply {
	if len(p.Params) == 0 || string(p.Params) == "null" {
		p.Params = json.RawMessage("{}")
	}
	a := p.Action
	if p.InputFile != "" { // 1. upload
		if r, ok := x.planUpload(&p); !ok {
			return r
		}
	}
	if p.Answers { // 2. resume
		if r, ok := x.resume(c, &p); !ok {
			return r
		}
	}
	if r, ok := x.fence(a); !ok { // 3. fence
		return x.refused(c, p, r)
	}
	errs, bad := x.checkParams(a, p.Params) // 4. params
	if bad != nil {
		return x.refused(c, p, *bad)
	}
	if errs != nil {
		return x.refused(c, p, invalidParams(a, errs, p.answered, p.restart))
	}
	targets, err := untrusted.Targets(a, p.Params) // 5. targets, as SnowLuma reads them
	if err != nil {
		return x.refused(c, p, outcome.Fail(outcome.KindInvalidParams, a.Name+": "+err.Error()+"; nothing was sent", "pass params as a JSON object"))
	}
	// The allowlists check every id the params name, read by the handler or
	// not (refusing an id SnowLuma ignores costs nothing); pacing, the dry
	// run and the audit line take the targets SnowLuma writes to.
	named, _ := safety.ExtractTargets(p.Params, targetParams(a)...)
	if out := x.safety.CheckTargets(named); out != nil {
		return x.refused(c, p, outcome.Fail(outcome.KindTargetNotAllowed,
			fmt.Sprintf("%s names %s, outside this server's allowed targets; nothing was sent", a.Name, strings.Join(out, ", ")),
			"use only the groups and users in get_runtime_info's safety.allowed_groups and allowed_users; the operator sets SNOWLUMA_MCP_ALLOWED_GROUPS and SNOWLUMA_MCP_ALLOWED_USERS"))
	}
	keys := targets.PaceKeys()
	if a.Send { // 6. pacing
		if d := x.safety.Pacer.Check(keys); d > 0 {
			return x.refused(c, p, rateLimited(a, d))
		}
	}
	g, r, ok := x.judgeUntrusted(c, &p) // 7. untrusted
	if !ok {
		return x.refused(c, p, r)
	}
	if !p.Confirmed && (g.ask || x.safety.Confirm.Needs(a.Destructive, a.ReadOnly)) { // 8. confirmation
		forms := c.Client != nil && c.Client.Forms()
		if g.ask && !forms && x.remote == nil {
			p.gate.decision = gateRefused
			return x.refused(c, p, untrustedRefusal(a.Name, g,
				"SNOWLUMA_MCP_UNTRUSTED_SENDS=confirm, and this client has no form and no QQ approver is configured to confirm it",
				"reply only in the chats whose messages were read; to do more, use a client that supports form elicitation, or ask the operator to set SNOWLUMA_MCP_CHANNEL_APPROVERS"))
		}
		if x.remote == nil || forms {
			return x.askConfirm(ctx, c, p, targets, g)
		}
		why := ""
		if g.ask {
			why = gateText(lang.Zh, g.d)
		}
		if r, ok := x.remote(ctx, c, a, p.Params, targets, why); !ok {
			if g.ask {
				p.gate.decision = gateRefused
				if r.Diag.Kind == outcome.KindNotConfirmed {
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
	if x.audits(a) { // 9. audit
		if entry, err = x.safety.Audit.Begin(); err != nil {
			// The detail names a path on the host: stderr, not the client.
			x.log.Warn("audit", "action", a.Name, "problem", err.Error())
			return outcome.Fail(outcome.KindAuditFailed, a.Name+" was not run because its audit record cannot be written (the server's stderr says why); nothing was sent",
				"ask the operator to make SNOWLUMA_MCP_AUDIT_FILE writable again (or unset it), then call again")
		}
	}
	// What is left runs now, or in the task of a background call.
	do := func(ctx context.Context, c *Call) outcome.Reply {
		var r outcome.Reply
		if d := x.pace(a, keys); d > 0 { // 10. admission
			r = rateLimited(a, d)
		} else if x.dryRuns(a) { // 11. dry run: checked, not sent
			r = x.dryRun(a, targets, p)
		} else { // 11. send, redaction, the sent hook, the chats read
			r = x.send(ctx, c, p)
			x.files.learn(a.Name, r)
			r = x.noteRead(c, p, r)
			if a.Sensitive && x.safety.Sensitive == safety.SensitiveRedact {
				r = redact(r)
			}
			if x.sent != nil && a.Send && r.Diag.Outcome == outcome.OutcomeSuccess {
				x.sent(a, p.Params, r)
			}
		}
		if entry != nil { // 12. audit line
			x.write(entry, c, p, targets, r)
		}
		return r
	}
	if !p.Background {
		return do(ctx, c)
	}
	r = x.start(ctx, c, a, do)
	if r.IsError && entry != nil {
		// No task started, so do never runs: the refusal is the audit line.
		x.write(entry, c, p, targets, r)
	}
	return r
}

// Read runs a read-only catalog action through the pipeline for a
// feature: r := x.Read(ctx, call, "get_msg", params). An action that is
// not in the catalog, or not read-only, is refused as the server's defect.
func (x *Executor) Read(ctx context.Context, c *Call, action string, params json.RawMessage) outcome.Reply {
	a, r, ok := x.lookup(action)
	if !ok {
		return r
	}
	if !a.ReadOnly {
		return outcome.Fail(outcome.KindInternal, action+" is not a read-only action, so it cannot be read", "report this to the snowluma-mcp maintainers")
	}
	return x.Run(ctx, c, Plan{Action: a, Params: params})
}

// Own runs an action the server sends on its own behalf (the channel's
// approval prompts), as confirmed: every other step applies.
func (x *Executor) Own(ctx context.Context, c *Call, action string, params json.RawMessage) outcome.Reply {
	a, r, ok := x.lookup(action)
	if !ok {
		return r
	}
	return x.Run(ctx, c, Plan{Action: a, Params: params, Confirmed: true})
}

func (x *Executor) lookup(action string) (*catalog.Action, outcome.Reply, bool) {
	cat, err := x.catalog()
	if err != nil {
		return nil, outcome.Fail(outcome.KindInternal, "the bundled catalog could not be loaded: "+err.Error(), "reinstall snowluma-mcp; report this to its maintainers"), false
	}
	a, found := cat.Lookup(action)
	if !found {
		return nil, outcome.Fail(outcome.KindInternal, action+" is not in the catalog", "report this to the snowluma-mcp maintainers"), false
	}
	return a, outcome.Reply{}, true
}

// fence refuses a credential action under SNOWLUMA_MCP_SENSITIVE=deny.
func (x *Executor) fence(a *catalog.Action) (outcome.Reply, bool) {
	if !a.Sensitive || x.safety.Sensitive != safety.SensitiveDeny {
		return outcome.Reply{}, true
	}
	return outcome.Fail(outcome.KindSensitive, a.Name+" answers with a credential of the account, and this server refuses such actions; nothing was sent",
		"ask the operator: SNOWLUMA_MCP_SENSITIVE=redact shows the answer's shape without its values, allow shows it whole"), false
}

// checkParams is the one params check of every path: params against a's
// catalog inputSchema, unless the operator turned the check off. A schema
// that does not compile is the server's defect, not the caller's.
func (x *Executor) checkParams(a *catalog.Action, params json.RawMessage) ([]validate.FieldError, *outcome.Reply) {
	if x.backend.SkipParamsCheck {
		return nil, nil
	}
	errs, err := a.CheckParams(params)
	if err != nil {
		r := outcome.Fail(outcome.KindInternal, fmt.Sprintf("the catalog's inputSchema of %s does not compile; nothing was sent", a.Name),
			"set SNOWLUMA_MCP_VALIDATE_PARAMS=false to send unchecked params, and report this to the snowluma-mcp maintainers")
		return nil, &r
	}
	return errs, nil
}

// targetParams lists a's params whose catalog role names a group or a
// person, for the allowlist: friend_poke's target_id and the qzone
// actions' target_uin name a person as user_id does.
func targetParams(a *catalog.Action) []safety.TargetParam {
	var out []safety.TargetParam
	for _, p := range a.Params {
		if p.Target() {
			out = append(out, safety.TargetParam{Name: p.Name, Group: p.Role == catalog.RoleGroup})
		}
	}
	return out
}

// pace admits a send to keys, or says how long it must wait.
func (x *Executor) pace(a *catalog.Action, keys []string) time.Duration {
	if !a.Send {
		return 0
	}
	return x.safety.Pacer.Admit(keys)
}

// audits reports whether calls of a are recorded in the audit log.
func (x *Executor) audits(a *catalog.Action) bool {
	return x.safety.Audit != nil && !a.ReadOnly
}

// refused records a write action that did not run and returns r.
func (x *Executor) refused(c *Call, p Plan, r outcome.Reply) outcome.Reply {
	if !x.audits(p.Action) {
		return r
	}
	targets, _ := untrusted.Targets(p.Action, p.Params)
	x.noteDeclined(c, &p, r)
	entry, err := x.safety.Audit.Begin()
	if err != nil {
		x.log.Warn("audit", "action", p.Action.Name, "problem", err.Error())
		return r
	}
	x.write(entry, c, p, targets, r)
	return r
}

// write appends the call's audit line. The action has already run or been
// refused, so a failure is logged rather than returned.
func (x *Executor) write(e *safety.Entry, c *Call, p Plan, t safety.Targets, r outcome.Reply) {
	a := p.Action
	err := e.Write(safety.Record{
		Time:        time.Now().UTC(),
		Tool:        c.Tool,
		Action:      a.Name,
		Groups:      t.Groups,
		Users:       t.Users,
		Outcome:     string(r.Diag.Outcome),
		Kind:        string(r.Diag.Kind),
		Traceparent: c.Trace.Traceparent(),
		DryRun:      x.backend.DryRun,
		// The send gate's decision and the chats read (untrusted.go).
		Untrusted:     p.gate.decision,
		UntrustedRead: p.gate.read,
	})
	if err != nil {
		x.log.Warn("audit", "action", a.Name, "problem", err.Error())
	}
}

// send sends the action to SnowLuma and judges the answer: a stream
// action by its kind (stream.go), any other with one call.
func (x *Executor) send(ctx context.Context, c *Call, p Plan) outcome.Reply {
	a := p.Action
	req := transfer.Request{Action: a.Name, Params: p.Params, Header: c.Trace.Header()}
	if a.StreamKind != catalog.StreamNone {
		return x.stream(ctx, c, p, req)
	}
	resp, err := x.backend.Client.Call(ctx, req)
	if err != nil {
		return failure(err, a.ReadOnly, false)
	}
	r := judge(resp.Envelope, resp.Status, resp.Retcode)
	if resp.Retcode == retcodeUnknownAction {
		r.Diag.NextStep = unknownActionStep(x.unknownEverywhere(ctx))
	}
	return r
}

// start hands the rest of a background plan to the Launch hook. The job
// outlives the request: it keeps the call's tool, arguments and trace
// context (and its plan, an automatic upload included), but not its
// client: the request has been answered by then.
func (x *Executor) start(ctx context.Context, c *Call, a *catalog.Action, do func(context.Context, *Call) outcome.Reply) outcome.Reply {
	if x.launch == nil {
		return outcome.Fail(outcome.KindNotConfigured, "background tasks are not configured", "set SNOWLUMA_MCP_TASK_DIR and restart the server, or use invoke_action")
	}
	job := &Call{Tool: c.Tool, Args: c.Args, Trace: c.Trace}
	return x.launch(ctx, a.Name, func(ctx context.Context) outcome.Reply { return do(ctx, job) })
}

// redact masks the data of a credential action's envelope. An answer that
// cannot be redacted is withheld rather than shown.
func redact(r outcome.Reply) outcome.Reply {
	env, ok := r.Result.(json.RawMessage)
	if !ok || env == nil {
		return r
	}
	red, err := safety.RedactData(env)
	if err != nil {
		return outcome.Fail(outcome.KindInternal, "the credential answer could not be redacted, so it is withheld: "+err.Error(), "report this to the snowluma-mcp maintainers")
	}
	r.Result = json.RawMessage(red)
	return r
}

// stream runs a stream action once the pipeline let it through, by its
// catalog kind, as one transfer plan, and judges the outcome. It sits with
// Run so that a stream call's path leaves this file once, for transfer
// (the helpers it calls are in stream.go).
func (x *Executor) stream(ctx context.Context, c *Call, p Plan, req transfer.Request) outcome.Reply {
	a := p.Action
	th := progress(ctx, c)
	tp := transfer.Plan{Shape: transfer.Shape(a.StreamKind), Request: req, Progress: th.Update}
	var frames streamResult
	switch a.StreamKind {
	case catalog.StreamDownload:
		if x.backend.Downloads == nil {
			return finish(outcome.Fail(outcome.KindNotConfigured, "no download directory is configured", "set SNOWLUMA_MCP_DOWNLOAD_DIR and restart the server"), th)
		}
		tp.Store = x.backend.Downloads
		tp.Name = x.files.forDownload(p.Params)
	case catalog.StreamUpload:
		if p.upload != nil {
			up, r, ok := x.automatic(*p.upload)
			if !ok {
				return finish(r, th)
			}
			tp.Root, tp.File = x.backend.Uploads, &up
		}
	case catalog.StreamFrames:
		frames.Frames = []json.RawMessage{}
		size := 0
		tp.OnFrame = func(f transfer.Frame) error {
			size += len(f.Raw)
			if size > MaxCollectedStream {
				return errCollectCap
			}
			if !f.Terminal {
				frames.Frames = append(frames.Frames, f.Data)
				frames.Count++
				th.Update(int64(frames.Count), 0)
			}
			return nil
		}
	}
	out, err := x.backend.Client.Transfer(ctx, tp)
	var r outcome.Reply
	switch {
	case errors.Is(err, errCollectCap):
		r = outcome.Fail(outcome.KindTooLarge, fmt.Sprintf("the %s stream exceeded %d MiB of frames, the most a tool result collects", a.Name, MaxCollectedStream>>20),
			"narrow the request: a tool result holds at most that much of a stream's frames")
	case tp.File != nil:
		r = uploaded(out.Upload, err, a.ReadOnly)
	case err != nil:
		r = failure(err, a.ReadOnly, true)
	case a.StreamKind == catalog.StreamDownload:
		r = downloaded(out.Download)
	case a.StreamKind == catalog.StreamUpload:
		f := out.Terminal
		r = judge(f.Raw, f.Status, f.Retcode)
		r.Result = streamResult{Frames: []json.RawMessage{}, Terminal: f.Raw}
	default:
		last := out.Terminal
		frames.Terminal = last.Raw
		r = judge(last.Raw, last.Status, last.Retcode)
		if r.Diag.Outcome == outcome.OutcomeSuccess && last.Type != "response" {
			r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeUnknown, Kind: outcome.KindUnconfirmed,
				Message:  "the stream's final frame is not a response frame",
				NextStep: "inspect result.terminal before relying on the stream's data"}
		}
		r.Result = frames
	}
	return finish(r, th)
}
