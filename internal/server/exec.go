package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// The execution tools drive a live SnowLuma. A call takes one path:
// mode gate → catalog lookup → read/write gate → params check → transfer →
// structured result.

// MaxCollectedStream caps the frames a generic stream call collects into its
// result. Past it the call stops reading and fails with kind too_large.
const MaxCollectedStream = 8 << 20

type actionArgs struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params"`
	// Execution is invoke_action's only (see streams.go).
	Execution *executionArgs `json:"execution"`
}

// actionProp and paramsHelp are the parts of the execution tools' input
// schemas that invoke_action's wider one (streams.go) repeats.
const (
	actionProp = `"action": {"type": "string", "minLength": 1, "description": "Action name or alias, e.g. get_status."}`
	paramsHelp = `The action's params, per get_action's inputSchema; ids are sent as given.`
)

const actionInput = `{
  "type": "object",
  "properties": {
    ` + actionProp + `,
    "params": {"type": "object", "description": "` + paramsHelp + `"}
  },
  "required": ["action"],
  "additionalProperties": false
}`

// envelopeResult is the outputSchema of a call's payload: SnowLuma's OneBot
// envelope as received, or for a generic stream the collected frames.
const envelopeResult = `{"type": "object", "description": "SnowLuma's OneBot envelope as sent; a stream's {frames, count, terminal}."}`

// executor runs catalog actions against SnowLuma for the execution tools.
// In docs mode it has no client and the mode gate refuses every call.
type executor struct {
	catalog  catalogSource
	client   *transfer.Client
	mode     Mode
	validate bool
	safety   *safety.Policy
	sealer   *seal.Sealer // continuations of input and confirmation rounds
	lang     lang.Lang    // of the forms a person reads
	log      *slog.Logger
	// downloads is where download streams are saved; uploads, when not
	// nil, the root automatic uploads read from (streams.go).
	downloads *transfer.Store
	uploads   *transfer.UploadRoot
	tasks     *tasks.Runner // for get_runtime_info; nil without tasks
	// launch, when set, starts the send of an invoke_action_background call
	// as a task once every check has passed (see tasks.go).
	launch func(ctx context.Context, c *toolkit.Call, a *catalog.Action, do func(context.Context, *toolkit.Call) toolkit.Reply) toolkit.Reply
}

// enabled reports whether SnowLuma can be reached at all.
func (x *executor) enabled() bool { return x.mode != ModeDocs }

// execTools declares query_action and invoke_action.
func execTools(x *executor) []toolkit.Spec {
	return []toolkit.Spec{{
		Name:        "query_action",
		Title:       "Query SnowLuma (read-only)",
		Description: "Run a read-only catalog action on SnowLuma and return its envelope. Refuses write actions (use invoke_action). retcode ≠ 0 is data with outcome failed.",
		Input:       actionInput,
		Output:      envelopeResult,
		Needs:       toolkit.ModeRead,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) toolkit.Reply {
			return x.run(ctx, c, in, false)
		}),
	}, {
		Name:        "invoke_action",
		Title:       "Invoke an action",
		Description: "Run any catalog action: it can send messages, change groups and friends. Downloads go to disk. After a timeout a write may have happened: check first. The safety policy may refuse or ask a person.",
		Input:       invokeInput,
		Output:      invokeResult,
		Needs:       toolkit.ModeWrite,
		Writes:      true,
		Destructive: true,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) toolkit.Reply {
			return x.run(ctx, c, in, true)
		}),
	}}
}

// run is the path of one query_action (write false) or invoke_action
// (write true) call.
func (x *executor) run(ctx context.Context, c *toolkit.Call, in actionArgs, write bool) toolkit.Reply {
	a, r, allowed := x.admit(c, toolName(write), in.Action, write)
	if !allowed {
		return r
	}
	params := in.Params
	if len(params) == 0 || bytes.Equal(params, []byte("null")) {
		params = json.RawMessage("{}")
	}
	if in.Execution != nil {
		return x.runExecution(ctx, c, a, params, in.Execution)
	}
	if p := c.Req.Params; p.RequestState != "" || len(p.InputResponses) > 0 {
		return x.resumeConfirm(ctx, c, a, params)
	}
	return x.execute(ctx, c, a, params)
}

// toolName is the execution tool for write or read-only calls.
func toolName(write bool) string {
	if write {
		return "invoke_action"
	}
	return "query_action"
}

// admit finds the action and applies the read/write gate (the mode gate
// was applied by the toolkit). It records the action on c for the log line.
func (x *executor) admit(c *toolkit.Call, tool, name string, write bool) (*catalog.Action, toolkit.Reply, bool) {
	cat, r, loaded := x.catalog.get()
	if !loaded {
		return nil, r, false
	}
	a, found := cat.Lookup(name)
	if !found {
		return nil, unknownAction(cat, name), false
	}
	c.Action = a.Name
	if !write && !a.ReadOnly {
		writer := strings.Replace(tool, "query_action", "invoke_action", 1)
		next := "set SNOWLUMA_MCP_MODE=write in the server's environment to enable " + writer + ", then call it instead"
		if x.mode == ModeWrite {
			next = "call " + writer + " with the same arguments"
		}
		return nil, toolkit.Fail(toolkit.KindWriteAction, fmt.Sprintf("%s is a write action; %s only runs read-only actions", a.Name, tool), next), false
	}
	return a, toolkit.Reply{}, true
}

// checkParams is the one params check of every path: params against a's
// catalog inputSchema, unless the operator turned the check off. A schema
// that does not compile is the server's defect, not the caller's.
func (x *executor) checkParams(a *catalog.Action, params json.RawMessage) ([]catalog.FieldError, *toolkit.Reply) {
	if !x.validate {
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

// execute runs the action through the safety policy (confirm.go), which
// checks params against the catalog and then calls send.
func (x *executor) execute(ctx context.Context, c *toolkit.Call, a *catalog.Action, params json.RawMessage) toolkit.Reply {
	return x.perform(ctx, c, a, params, false)
}

// send sends the action to SnowLuma and judges the answer.
func (x *executor) send(ctx context.Context, c *toolkit.Call, a *catalog.Action, params json.RawMessage) toolkit.Reply {
	req := transfer.Request{Action: a.Name, Params: params, Header: c.Trace.Header()}
	if a.Stream {
		return x.stream(ctx, c, req, a.ReadOnly)
	}
	resp, err := x.client.Call(ctx, req)
	if err != nil {
		return transportFailure(err, a.ReadOnly)
	}
	return judge(resp.Envelope, resp.Status, resp.Retcode)
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

// bodyLimitStep is the next step for a call refused because its request
// body is over SNOWLUMA_MCP_MAX_BODY_BYTES.
const bodyLimitStep = "make the params smaller (split a long message; send a file with execution.input_file, which is cut into chunks that fit); raise SNOWLUMA_MCP_MAX_BODY_BYTES only for a OneBot server that accepts larger bodies"

// transportFailure reports a call that produced no usable answer. One
// table maps each transfer failure kind to the kind a tool reports and the
// next step a person can act on. readOnly is the action's flag: a timed-out
// or cancelled read changed nothing, so it may simply be called again.
func transportFailure(err error, readOnly bool) toolkit.Reply {
	table := map[transfer.Kind]struct {
		kind toolkit.Kind
		next string
	}{
		transfer.KindUnauthorized: {toolkit.KindUnauthorized, "set SNOWLUMA_MCP_TOKEN to SnowLuma's access token and restart the server"},
		transfer.KindTimeout:      {toolkit.KindTimeout, "SnowLuma may still carry the action out: check its effect before repeating; raise SNOWLUMA_MCP_TIMEOUT_MS for slow actions"},
		transfer.KindCancelled:    {toolkit.KindCancelled, "the call was cancelled; SnowLuma may already have carried it out, so check before repeating"},
		transfer.KindProtocol:     {toolkit.KindProtocol, "check that SNOWLUMA_MCP_ENDPOINT points at SnowLuma's OneBot HTTP endpoint"},
		transfer.KindTooLarge:     {toolkit.KindTooLarge, "narrow the request so that the answer is smaller"},
		transfer.KindStreamFailed: {toolkit.KindStreamFailed, "the transfer broke off; check SnowLuma's logs and try again"},
		transfer.KindTransport:    {toolkit.KindTransport, "check that SnowLuma is running and reachable at SNOWLUMA_MCP_ENDPOINT"},
	}
	var te *transfer.Error
	if !errors.As(err, &te) {
		return toolkit.Fail(toolkit.KindTransport, "the call to SnowLuma failed: "+err.Error(), table[transfer.KindTransport].next)
	}
	f, known := table[te.Kind]
	if !known {
		f = table[transfer.KindTransport]
	}
	if transfer.RequestTooLarge(err) {
		f.next = bodyLimitStep
	}
	if readOnly {
		switch te.Kind {
		case transfer.KindTimeout:
			f.next = "the action only reads, so calling it again is safe; if SnowLuma is slow to answer it, raise SNOWLUMA_MCP_TIMEOUT_MS"
		case transfer.KindCancelled:
			f.next = "the call was cancelled; the action only reads, so calling it again is safe"
		}
	}
	return toolkit.Fail(f.kind, te.Error(), f.next)
}
