package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/validate"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// How an answer, or its absence, becomes a reply: the judgement of an
// envelope, the one table from transfer failures to tool failures, and the
// refusals of the params and pacing steps.

// invalidParams reports params that fail the action's catalog schema. The
// next step is to fix them; turning the check off is offered only where the
// catalog itself may be behind the connected SnowLuma (see newerMayAccept).
// Params a person gave in answer to a form (answered) are the answer's
// misfit, with restart as the next step.
func invalidParams(a *catalog.Action, errs []validate.FieldError, answered bool, restart string) outcome.Reply {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = "params" + e.String()
	}
	if answered {
		return outcome.Fail(outcome.KindInvalidAnswer, "the answer does not fit the action's schema: "+strings.Join(parts, "; ")+"; nothing was run", restart)
	}
	next := fmt.Sprintf("fix the named params as get_action %s's inputSchema says, then call again", a.Name)
	if why := newerMayAccept(a, errs); why != "" {
		next += "; " + why + ", so if the connected SnowLuma is newer than the catalog's " + catalog.Version +
			", SNOWLUMA_MCP_VALIDATE_PARAMS=false sends params unchecked"
	}
	return outcome.Fail(outcome.KindInvalidParams,
		fmt.Sprintf("%s: %s; nothing was sent", a.Name, strings.Join(parts, "; ")), next)
}

// newerMayAccept says why a SnowLuma newer than the catalog might accept
// what the catalog refused, or returns "": the action is one 1.11.1 does
// not implement (a later release may, with other params), or a refused
// value is outside a fixed list of values (a later release may add some).
// A missing field or a wrong type is the caller's to fix.
func newerMayAccept(a *catalog.Action, errs []validate.FieldError) string {
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

// rateLimited refuses a send the pacer holds back for d.
func rateLimited(a *catalog.Action, d time.Duration) outcome.Reply {
	ms := max(d.Milliseconds(), 1)
	if time.Duration(ms)*time.Millisecond < d {
		ms++ // round up: retrying at retry_after_ms must succeed
	}
	r := outcome.Fail(outcome.KindRateLimited,
		fmt.Sprintf("%s was refused to pace message sends (SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS per target, SNOWLUMA_MCP_SEND_PER_MINUTE in all); nothing was sent", a.Name),
		"wait diagnostics.retry_after_ms milliseconds before sending again; do not send in a tight loop")
	r.Diag.RetryAfterMS = ms
	return r
}

// judge turns a OneBot envelope into a reply: success only when SnowLuma
// confirms it; an asynchronous acknowledgement or an envelope that confirms
// nothing is unknown; anything else is a business failure returned as data.
func judge(envelope json.RawMessage, status string, retcode json.Number) outcome.Reply {
	r := outcome.Reply{Result: envelope}
	switch {
	case status == "ok" && retcode == "0":
		r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeSuccess}
	case status == "async":
		r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeUnknown, Kind: outcome.KindUnconfirmed,
			Message:  "SnowLuma acknowledged the action without confirming it was carried out",
			NextStep: "check its effect (for example with a read-only action) before repeating it"}
	case status == "failed" || (retcode != "" && retcode != "0"):
		r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeFailed, Kind: outcome.KindBusiness,
			Message:  businessMessage(envelope, retcode),
			NextStep: "read result.wording and result.retcode; fix the params or the account state, then call again"}
	default:
		r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeUnknown, Kind: outcome.KindUnconfirmed,
			Message:  "the answer does not confirm success (no status ok with retcode 0)",
			NextStep: "inspect result and check the action's effect before repeating it"}
	}
	return r
}

// retcodeUnknownAction is the retcode SnowLuma answers for an action it
// does not know, and for every action when the request's path is not its
// HTTP path.
const retcodeUnknownAction = "1404"

// unknownEverywhere reports whether SnowLuma knows no action at this
// endpoint: get_version_info, which every OneBot server has, answers
// 1404 too, as doctor finds.
func (x *Executor) unknownEverywhere(ctx context.Context) bool {
	resp, err := x.backend.Client.Call(ctx, transfer.Request{Action: "get_version_info"})
	return err == nil && resp.Retcode == retcodeUnknownAction
}

// unknownActionStep is the next step of a call SnowLuma answered with
// 1404: a wrong endpoint path when every action is unknown there, else a
// SnowLuma that lacks this catalog action.
func unknownActionStep(everywhere bool) string {
	if everywhere {
		return "every action answers retcode 1404 here, so SNOWLUMA_MCP_ENDPOINT's path is not SnowLuma's HTTP path (SnowLuma's default is /, e.g. http://127.0.0.1:3000/): the params are not at fault; ask the operator to correct the endpoint (snowluma-mcp doctor checks it)"
	}
	return "this SnowLuma does not have the action (it is older than the catalog, or the action was removed): the params are not at fault; use another action, or ask the operator to upgrade SnowLuma"
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

// A failureStep is the next step a person can act on for one failure kind
// a transfer reports (the kind itself is the tool's, one vocabulary). read replaces next for a
// read-only action's call, which changed nothing and may simply be made
// again; stream replaces it for a stream, whose failure of that kind has
// another cause. A step with stream alone is one only streams report.
type failureStep struct {
	next, read, stream string
}

// failureSteps is the one table from transfer failures to tool failures.
var failureSteps = map[outcome.Kind]failureStep{
	outcome.KindUnauthorized: {next: "set SNOWLUMA_MCP_TOKEN to SnowLuma's access token and restart the server"},
	outcome.KindTimeout: {next: "SnowLuma may still carry the action out: check its effect before repeating; raise SNOWLUMA_MCP_TIMEOUT_MS for slow actions",
		read:   "the action only reads, so calling it again is safe; if SnowLuma is slow to answer it, raise SNOWLUMA_MCP_TIMEOUT_MS",
		stream: "SnowLuma stopped sending or answering: check that it is running; raise SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS (or _CONNECT_TIMEOUT_MS) if it is merely slow"},
	outcome.KindCancelled: {next: "the call was cancelled; SnowLuma may already have carried it out, so check before repeating",
		read: "the call was cancelled; the action only reads, so calling it again is safe"},
	outcome.KindProtocol: {next: "check that SNOWLUMA_MCP_ENDPOINT points at SnowLuma's OneBot HTTP endpoint"},
	outcome.KindTooLarge: {next: "narrow the request so that the answer is smaller",
		stream: "the file is larger than SNOWLUMA_MCP_MAX_FILE_BYTES allows: raise it and restart the server, or transfer a smaller file"},
	outcome.KindStreamFailed: {next: "the transfer broke off; check SnowLuma's logs and try again"},
	outcome.KindTransport:    {next: "check that SnowLuma is running and reachable at SNOWLUMA_MCP_ENDPOINT"},
	outcome.KindBusy:         {stream: "wait for a running transfer to finish and call again, or raise SNOWLUMA_MCP_MAX_STREAMS and restart the server"},
	outcome.KindQuota:        {stream: "delete files you no longer need from the download directory (get_runtime_info shows it), or raise SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES and restart the server"},
	outcome.KindPathRefused:  {stream: "give the absolute path of a regular, readable file inside SNOWLUMA_MCP_UPLOAD_ROOT (get_runtime_info shows it); copy the file there first if needed"},
	outcome.KindLocalIO:      {stream: "check the MCP host's disk (free space, permissions) and call again"},
}

// failure reports a call (stream false) or a stream (stream true) that
// produced no usable answer, by failureSteps. readOnly is the action's
// flag. A request over the body limit is told how to fit it.
func failure(err error, readOnly, stream bool) outcome.Reply {
	transport := failureSteps[outcome.KindTransport]
	var te *transfer.Error
	if !errors.As(err, &te) {
		return outcome.Fail(outcome.KindTransport, "the call to SnowLuma failed: "+err.Error(), transport.next)
	}
	kind := te.Kind
	f, known := failureSteps[kind]
	tooBig := transfer.RequestTooLarge(err)
	if stream && known && f.stream != "" && !tooBig {
		return outcome.Fail(kind, te.Error(), f.stream)
	}
	if !known || f.next == "" {
		f, kind = transport, outcome.KindTransport
	}
	next := f.next
	if tooBig {
		next = bodyLimitStep
	}
	if readOnly && f.read != "" {
		next = f.read
	}
	return outcome.Fail(kind, te.Error(), next)
}
