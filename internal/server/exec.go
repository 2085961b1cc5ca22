package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
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
}

const actionInput = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "minLength": 1, "description": "Catalog action name or alias, e.g. get_status; see list_actions and get_action."},
    "params": {"type": "object", "description": "The action's parameters as a JSON object, per get_action's inputSchema. Omit for none. Ids are sent exactly as given (negative message ids included)."}
  },
  "required": ["action"],
  "additionalProperties": false
}`

// envelopeResult is the outputSchema of a call's payload: SnowLuma's OneBot
// envelope as received, or for a generic stream the collected frames.
const envelopeResult = `{
  "type": "object",
  "description": "The OneBot envelope exactly as SnowLuma sent it ({status, retcode, data, message, wording, ...}); for a stream action, {frames, count, terminal}.",
  "properties": {
    "status": {"type": "string"},
    "retcode": {"type": "integer"},
    "frames": {"type": "array", "description": "Each accepted frame's data, in order."},
    "count": {"type": "integer", "minimum": 0},
    "terminal": {"type": "object", "description": "The final frame as received."}
  }
}`

// executor runs catalog actions against SnowLuma for the execution tools.
// In docs mode it has no client and the mode gate refuses every call.
type executor struct {
	catalog  catalogSource
	client   *transfer.Client
	mode     Mode
	validate bool
}

// enabled reports whether SnowLuma can be reached at all.
func (x *executor) enabled() bool { return x.mode != ModeDocs }

func addExecTools(s *mcp.Server, log *slog.Logger, x *executor) {
	t := true
	addTool(s, log, &mcp.Tool{
		Name:         "query_action",
		Description:  "Run a read-only catalog action against the configured SnowLuma and return its OneBot envelope as {result, diagnostics}. Write actions are refused: use invoke_action (write mode). A business failure (retcode ≠ 0) is returned as data with outcome failed; transport failures are tool errors.",
		InputSchema:  json.RawMessage(actionInput),
		OutputSchema: outputSchema(envelopeResult),
		Annotations:  &mcp.ToolAnnotations{Title: "Query SnowLuma (read-only)", ReadOnlyHint: true, OpenWorldHint: &t},
	}, func(ctx context.Context, c *call, in actionArgs) reply {
		return x.run(ctx, c, in, false)
	})
	addTool(s, log, &mcp.Tool{
		Name:         "invoke_action",
		Description:  "Run any catalog action (reads, writes and streams) against the configured SnowLuma and return its OneBot envelope as {result, diagnostics}; a stream action returns its collected frames. This can send messages and change the account's groups and friends. A timeout or cancellation can leave a write's outcome unknown: check before repeating.",
		InputSchema:  json.RawMessage(actionInput),
		OutputSchema: outputSchema(envelopeResult),
		Annotations:  &mcp.ToolAnnotations{Title: "Invoke a SnowLuma action", DestructiveHint: &t, IdempotentHint: false, ReadOnlyHint: false, OpenWorldHint: &t},
	}, func(ctx context.Context, c *call, in actionArgs) reply {
		return x.run(ctx, c, in, true)
	})
}

// run is the path of one query_action (write false) or invoke_action
// (write true) call.
func (x *executor) run(ctx context.Context, c *call, in actionArgs, write bool) reply {
	a, r, allowed := x.admit(c, toolName(write), in.Action, write)
	if !allowed {
		return r
	}
	params := in.Params
	if len(params) == 0 || bytes.Equal(params, []byte("null")) {
		params = json.RawMessage("{}")
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

// admit applies tool's mode gate, finds the action and applies the
// read/write gate. It records the action on c for the log line.
func (x *executor) admit(c *call, tool, name string, write bool) (*catalog.Action, reply, bool) {
	if r, allowed := gate(x.mode, tool); !allowed {
		return nil, r, false
	}
	cat, r, loaded := x.catalog.get()
	if !loaded {
		return nil, r, false
	}
	a, found := cat.Lookup(name)
	if !found {
		return nil, unknownAction(cat, name), false
	}
	c.action = a.Name
	if !write && !a.ReadOnly {
		writer := strings.Replace(tool, "query_action", "invoke_action", 1)
		next := "set SNOWLUMA_MCP_MODE=write in the server's environment to enable " + writer + ", then call it instead"
		if x.mode == ModeWrite {
			next = "call " + writer + " with the same arguments"
		}
		return nil, fail(KindWriteAction, fmt.Sprintf("%s is a write action; %s only runs read-only actions", a.Name, tool), next), false
	}
	return a, reply{}, true
}

// execute checks params against the catalog and sends the action.
func (x *executor) execute(ctx context.Context, c *call, a *catalog.Action, params json.RawMessage) reply {
	if x.validate {
		errs, err := a.CheckParams(params)
		if err != nil {
			return fail(KindInvalidParams, err.Error(), "set SNOWLUMA_MCP_VALIDATE_PARAMS=false to skip the check, and report this")
		}
		if errs != nil {
			return invalidParams(a, errs)
		}
	}
	req := transfer.Request{Action: a.Name, Params: params, Header: c.trace.Header()}
	if a.Stream {
		return x.stream(ctx, req)
	}
	resp, err := x.client.Call(ctx, req)
	if err != nil {
		return transportFailure(err)
	}
	return judge(resp.Envelope, resp.Status, resp.Retcode)
}

// judge turns a OneBot envelope into a reply: success only when SnowLuma
// confirms it; an asynchronous acknowledgement or an envelope that confirms
// nothing is unknown; anything else is a business failure returned as data.
func judge(envelope json.RawMessage, status string, retcode json.Number) reply {
	r := reply{result: envelope}
	switch {
	case status == "ok" && retcode == "0":
		r.diag = Diagnostics{Outcome: OutcomeSuccess}
	case status == "async":
		r.diag = Diagnostics{Outcome: OutcomeUnknown, Kind: KindUnconfirmed,
			Message:  "SnowLuma acknowledged the action without confirming it was carried out",
			NextStep: "check its effect (for example with a read-only action) before repeating it"}
	case status == "failed" || (retcode != "" && retcode != "0"):
		r.diag = Diagnostics{Outcome: OutcomeFailed, Kind: KindBusiness,
			Message:  businessMessage(envelope, retcode),
			NextStep: "read result.wording and result.retcode; fix the params or the account state, then call again"}
	default:
		r.diag = Diagnostics{Outcome: OutcomeUnknown, Kind: KindUnconfirmed,
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

// streamResult is a generic stream's collected answer.
type streamResult struct {
	Frames   []json.RawMessage `json:"frames"`
	Count    int               `json:"count"`
	Terminal json.RawMessage   `json:"terminal"`
}

// errCollectCap stops a stream whose frames outgrow MaxCollectedStream.
var errCollectCap = errors.New("collected frames exceed the cap")

// stream runs a stream action and collects each frame's data.
func (x *executor) stream(ctx context.Context, req transfer.Request) reply {
	res := streamResult{Frames: []json.RawMessage{}}
	var last transfer.Frame
	size := 0
	err := x.client.Stream(ctx, req, func(f transfer.Frame) error {
		size += len(f.Raw)
		if size > MaxCollectedStream {
			return errCollectCap
		}
		if f.Terminal {
			last = f
			res.Terminal = f.Raw
			return nil
		}
		res.Frames = append(res.Frames, f.Data)
		res.Count++
		return nil
	})
	if errors.Is(err, errCollectCap) {
		return fail(KindTooLarge, fmt.Sprintf("the %s stream exceeded %d MiB of frames, the most a tool result collects", req.Action, MaxCollectedStream>>20),
			"narrow the request: a tool result holds at most that much of a stream's frames")
	}
	if err != nil {
		return transportFailure(err)
	}
	r := judge(last.Raw, last.Status, last.Retcode)
	if r.diag.Outcome == OutcomeSuccess && last.Type != "response" {
		r.diag = Diagnostics{Outcome: OutcomeUnknown, Kind: KindUnconfirmed,
			Message:  "the stream's final frame is not a response frame",
			NextStep: "inspect result.terminal before relying on the stream's data"}
	}
	r.result = res
	return r
}

// invalidParams reports params that fail the action's catalog schema.
func invalidParams(a *catalog.Action, errs []catalog.FieldError) reply {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = "params" + e.String()
	}
	return fail(KindInvalidParams,
		fmt.Sprintf("%s: %s; nothing was sent", a.Name, strings.Join(parts, "; ")),
		"fix the named params per get_action's inputSchema; SNOWLUMA_MCP_VALIDATE_PARAMS=false skips this check for a SnowLuma newer than the catalog")
}

// transportFailure reports a call that produced no usable answer.
func transportFailure(err error) reply {
	var te *transfer.Error
	if !errors.As(err, &te) {
		return fail(KindTransport, "the call to SnowLuma failed: "+err.Error(), "check that SnowLuma is running and reachable at SNOWLUMA_MCP_ENDPOINT")
	}
	msg := te.Error()
	switch te.Kind {
	case transfer.KindUnauthorized:
		return fail(KindUnauthorized, msg, "set SNOWLUMA_MCP_TOKEN to SnowLuma's access token and restart the server")
	case transfer.KindTimeout:
		return fail(KindTimeout, msg, "SnowLuma may still carry the action out: check its effect before repeating; raise SNOWLUMA_MCP_TIMEOUT_MS for slow actions")
	case transfer.KindCancelled:
		return fail(KindCancelled, msg, "the call was cancelled; SnowLuma may already have carried it out, so check before repeating")
	case transfer.KindProtocol:
		return fail(KindProtocol, msg, "check that SNOWLUMA_MCP_ENDPOINT points at SnowLuma's OneBot HTTP endpoint")
	case transfer.KindTooLarge:
		return fail(KindTooLarge, msg, "narrow the request so that the answer is smaller")
	case transfer.KindStreamFailed:
		return fail(KindStreamFailed, msg, "the transfer broke off; check SnowLuma's logs and try again")
	}
	return fail(KindTransport, msg, "check that SnowLuma is running and reachable at SNOWLUMA_MCP_ENDPOINT")
}
