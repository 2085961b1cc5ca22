package server

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcome says whether a call did what it was asked.
type Outcome string

const (
	OutcomeSuccess Outcome = "success"
	OutcomeFailed  Outcome = "failed"
	// OutcomeUnknown marks an answer that neither confirms nor denies
	// success, such as an asynchronous acknowledgement.
	OutcomeUnknown Outcome = "unknown"
	// outcomeInputRequired is logged for a call that asked for input; it is
	// never part of a result.
	outcomeInputRequired Outcome = "input_required"
)

// Kind names the cause of a failure. The vocabulary is closed and
// documented in the README; every kind has a next step a person can act on.
type Kind string

const (
	KindInvalidArguments Kind = "invalid_arguments" // the tool's own arguments are wrong
	KindUnknownAction    Kind = "unknown_action"    // not a catalog action or alias
	KindModeGate         Kind = "mode_gate"         // the configured mode does not allow the tool
	KindWriteAction      Kind = "write_action"      // a write action through a read-only tool
	KindInvalidParams    Kind = "invalid_params"    // action params fail the catalog schema
	KindBusiness         Kind = "business"          // SnowLuma answered with retcode ≠ 0
	KindUnauthorized     Kind = "unauthorized"      // SnowLuma refused the token
	KindTransport        Kind = "transport"         // SnowLuma could not be reached
	KindTimeout          Kind = "timeout"           // no answer within the timeout
	KindCancelled        Kind = "cancelled"         // the client cancelled the call
	KindProtocol         Kind = "protocol"          // SnowLuma's answer was not a OneBot envelope
	KindTooLarge         Kind = "too_large"         // an answer exceeded its documented cap
	KindStreamFailed     Kind = "stream_failed"     // a stream ended without its final frame
	KindUnconfirmed      Kind = "unconfirmed"       // the answer does not confirm success

	KindElicitationUnsupported Kind = "elicitation_unsupported" // the client cannot show a form
	KindDeclined               Kind = "declined"                // the user declined the form
	KindInvalidAnswer          Kind = "invalid_answer"          // the form's answer is unusable
	KindContinuation           Kind = "continuation"            // requestState is forged, stale, reused or foreign
	KindTooManyPending         Kind = "too_many_pending"        // 256 continuations already wait

	KindInternal Kind = "internal" // a defect of snowluma-mcp itself
)

// Diagnostics accompanies every tool result and says how the call went.
type Diagnostics struct {
	Outcome  Outcome `json:"outcome"`
	Kind     Kind    `json:"kind,omitempty"`
	Message  string  `json:"message,omitempty"`
	NextStep string  `json:"next_step,omitempty"`
}

// A reply is what a tool handler produces: the payload and how the call
// went. addTool turns it into the wire result.
type reply struct {
	result  any
	diag    Diagnostics
	isError bool
	// input, when set, makes the reply an input-required continuation
	// instead of a completed result.
	input *inputRequired
}

// inputRequired asks the client for more input before the call can finish.
type inputRequired struct {
	requests mcp.InputRequestMap
	state    string
}

// ok reports a completed call.
func ok(result any) reply {
	return reply{result: result, diag: Diagnostics{Outcome: OutcomeSuccess}}
}

// fail reports a call that failed before or instead of producing a result:
// a tool error whose result is null.
func fail(kind Kind, message, next string) reply {
	return reply{diag: Diagnostics{Outcome: OutcomeFailed, Kind: kind, Message: message, NextStep: next}, isError: true}
}

// toolResult renders r: structuredContent is {result, diagnostics} and the
// text block carries the same JSON. SnowLuma's bytes pass through untouched
// (no HTML escaping, numbers as sent).
func (r reply) toolResult() *mcp.CallToolResult {
	if r.input != nil {
		// A continuation carries no content: the SDK answers modern clients
		// with resultType input_required and runs elicitation/create for
		// legacy ones.
		return &mcp.CallToolResult{InputRequests: r.input.requests, RequestState: r.input.state}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Result      any         `json:"result"`
		Diagnostics Diagnostics `json:"diagnostics"`
	}{r.result, r.diag})
	if err != nil {
		// Only a payload that cannot be encoded lands here; say so rather
		// than send a half-built answer.
		return fail(KindInternal, "the result could not be encoded as JSON", "report this to the snowluma-mcp maintainers").toolResult()
	}
	text := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
		IsError:           r.isError,
	}
}
