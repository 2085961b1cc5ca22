// Package outcome is the vocabulary in which every path of snowluma-mcp
// says how a call went, without MCP: a Reply (the payload, its Diagnostics,
// or a form to put to a person) and the closed list of failure Kinds. The
// pipeline and the domain packages speak it; the tool framework
// (internal/server/toolkit) renders a Reply as the go-sdk's tool result.
package outcome

// Outcome says whether a call did what it was asked.
type Outcome string

const (
	OutcomeSuccess Outcome = "success"
	OutcomeFailed  Outcome = "failed"
	// OutcomeUnknown marks an answer that neither confirms nor denies
	// success, such as an asynchronous acknowledgement.
	OutcomeUnknown Outcome = "unknown"
	// OutcomeInputRequired is logged for a call that asked for input; it
	// is never part of a result.
	OutcomeInputRequired Outcome = "input_required"
)

// Diagnostics accompanies every tool result and says how the call went.
type Diagnostics struct {
	Outcome  Outcome `json:"outcome"`
	Kind     Kind    `json:"kind,omitempty"`
	Message  string  `json:"message,omitempty"`
	NextStep string  `json:"next_step,omitempty"`
	// Match is "weak" on a search whose best match is a guess.
	Match string `json:"match,omitempty"`
	// RetryAfterMS, with kind rate_limited, is how long to wait before
	// the refused call may go.
	RetryAfterMS int64 `json:"retry_after_ms,omitempty"`
	// Sandbox marks every answer of a server that drives the simulated
	// SnowLuma of `snowluma-mcp sandbox`, so that nobody takes it for QQ.
	Sandbox bool `json:"sandbox,omitempty"`
}

// A Reply is what a tool handler, and the pipeline beneath it, produces:
// the payload and how the call went, or a request for more input.
type Reply struct {
	Result  any
	Diag    Diagnostics
	IsError bool
	// Attach are pictures or sounds the result carries after its text,
	// such as the images view_media shows; structuredContent describes
	// them.
	Attach []Attachment
	// Input, when set, asks the client for more input before the call can
	// finish (Ask); Result and IsError are then unused.
	Input *Input
	// Handle, when set, answers the call instead of a tool result: an
	// answer of the adapter's own, such as a task handle (resultType
	// "task"). Diag is what the log line records.
	Handle Handle
}

// An Attachment is a picture or a sound a result carries: its bytes and
// their media type (image/… or audio/…).
type Attachment struct {
	Data     []byte
	MIMEType string
}

// An Input asks the client for more input: Forms, by key, for a person to
// fill in, and State, the sealed continuation the call carries back with
// the answers.
type Input struct {
	Forms map[string]Form
	State string
}

// A Form is what a person is asked: a message and the requested schema
// (an object of primitive fields, as MCP's form elicitation allows).
type Form struct {
	Message string
	Schema  map[string]any
}

// A Handle is an answer that stands in for a tool result, built by the
// adapter that launches it (a task handle): the tool framework sets the
// call's trace context in its _meta and sends it as it is.
type Handle interface {
	GetMeta() map[string]any
	SetMeta(map[string]any)
}

// OK reports a completed call.
func OK(result any) Reply {
	return Reply{Result: result, Diag: Diagnostics{Outcome: OutcomeSuccess}}
}

// Fail reports a call that failed before or instead of producing a result:
// a tool error whose result is null.
func Fail(kind Kind, message, nextStep string) Reply {
	return Reply{Diag: Diagnostics{Outcome: OutcomeFailed, Kind: kind, Message: message, NextStep: nextStep}, IsError: true}
}

// Ask makes a continuation: forms, by key, put to a person, and the state
// the call comes back with, beside the answers (a 2026-07-28 client holds
// them; a legacy one is asked by elicitation/create).
func Ask(forms map[string]Form, state string) Reply {
	return Reply{Diag: Diagnostics{Outcome: OutcomeInputRequired}, Input: &Input{Forms: forms, State: state}}
}

// Substitute answers the call with h instead of a tool result. diag is what
// the log line records.
func Substitute(h Handle, diag Diagnostics) Reply {
	return Reply{Diag: diag, Handle: h}
}

// Refusal is a ready-made failure: why a tool cannot run and what to do.
type Refusal struct {
	Kind     Kind
	Message  string
	NextStep string
}

// Reply returns r as a failure.
func (r *Refusal) Reply() Reply { return Fail(r.Kind, r.Message, r.NextStep) }
