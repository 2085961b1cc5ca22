package toolkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
	"unsafe"

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
	// outcomeInputRequired is logged for a call that asked for input; it
	// is never part of a result.
	outcomeInputRequired Outcome = "input_required"
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

// A Reply is what a tool handler produces: the payload and how the call
// went, or a request for more input. Register turns it into the wire result.
type Reply struct {
	Result  any
	Diag    Diagnostics
	IsError bool
	// Attach are content blocks the result carries after its text block,
	// such as the images view_media shows; structuredContent describes
	// them.
	Attach []mcp.Content

	input      *inputRequired
	substitute mcp.Result
}

// inputRequired asks the client for more input before the call can finish.
type inputRequired struct {
	requests mcp.InputRequestMap
	state    string
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

// Ask makes a continuation: the SDK answers 2026-07-28 clients with an
// input-required result carrying requests and state, and runs
// elicitation/create for legacy ones. The call comes back with the answers
// and state in its params.
func Ask(requests mcp.InputRequestMap, state string) Reply {
	return Reply{Diag: Diagnostics{Outcome: outcomeInputRequired}, input: &inputRequired{requests, state}}
}

// Substitute answers the call with res instead of a tool result, for a
// tool whose answer is a protocol object of its own, such as a task handle
// (resultType "task"). diag is what the log line records.
func Substitute(res mcp.Result, diag Diagnostics) Reply {
	return Reply{Diag: diag, substitute: res}
}

// Refusal is a ready-made tool error: why a tool cannot run and what to do.
type Refusal struct {
	Kind     Kind
	Message  string
	NextStep string
}

// Reply returns r as a tool error.
func (r *Refusal) Reply() Reply { return Fail(r.Kind, r.Message, r.NextStep) }

// TextLimit is the largest structured result whose JSON the text block
// repeats. Past it, the text block says where the result is instead of
// doubling the answer's size on the wire.
const TextLimit = 64 << 10

// MaxResultBytes caps the JSON of one structured result. A larger result
// is refused with too_large, so that no answer line outgrows what common
// clients read per line.
const MaxResultBytes = 8 << 20

// Render is r as a tool result, for a caller that keeps it (a background
// task saves the result its transfer would have had).
func (r Reply) Render() *mcp.CallToolResult { return r.toolResult() }

// Encoded is a result this server encoded itself: valid, compact JSON
// without HTML escaping (such as the catalog's precomputed answers). It is
// copied into the answer as it is; any other json.RawMessage, such as
// SnowLuma's bytes, is checked and compacted first.
type Encoded []byte

// Appended is a result this server encodes itself straight into the
// answer, where an Encoded one is built apart and copied in, such as a page
// of list_actions or search_actions: Append appends valid, compact JSON
// without HTML escaping to b, about Size bytes of it.
type Appended struct {
	Size   int
	Append func(b []byte) []byte
}

// successDiag is the diagnostics of every plain success, encoded.
const successDiag = `{"outcome":"success"}`

// toolResult renders r: structuredContent is {result, diagnostics}, encoded
// once without HTML escaping and with SnowLuma's bytes untouched, and the
// text block carries the same JSON while it is small.
func (r Reply) toolResult() *mcp.CallToolResult {
	if r.input != nil {
		return &mcp.CallToolResult{InputRequests: r.input.requests, RequestState: r.input.state}
	}
	js, err := r.encode()
	if err != nil {
		return Fail(KindInternal, "the result could not be encoded as JSON", "report this to the snowluma-mcp maintainers").toolResult()
	}
	// SnowLuma's bytes are copied as they came, and they are not always
	// valid UTF-8. Replacing them here, once, keeps the output line valid
	// for strict clients and the text block identical to structuredContent.
	if !utf8.Valid(js) {
		js = validUTF8(js)
	}
	if len(js) > MaxResultBytes {
		return Fail(KindTooLarge, fmt.Sprintf("the result is %d bytes of JSON, over the %d MiB a tool result may hold", len(js), MaxResultBytes>>20),
			"narrow the request (a smaller page, fewer ids, a stream to a file) so that the answer is smaller").toolResult()
	}
	// The text block repeats structuredContent's bytes, which nothing
	// writes to once encoded, so it shares them instead of copying up to
	// TextLimit bytes more for every call.
	text := unsafe.String(unsafe.SliceData(js), len(js))
	if len(js) > TextLimit {
		text = fmt.Sprintf("The result is %d bytes of JSON, too large to repeat here: read structuredContent. Outcome: %s.", len(js), r.Diag.Outcome)
	}
	return &mcp.CallToolResult{
		Content:           append([]mcp.Content{&mcp.TextContent{Text: text}}, r.Attach...),
		StructuredContent: json.RawMessage(js),
		IsError:           r.IsError,
	}
}

// validUTF8 replaces each byte of js that is not part of a valid UTF-8
// sequence with U+FFFD, as encoding/json does when it encodes a string.
// Such bytes can only be inside JSON strings, so the JSON stays valid.
func validUTF8(js []byte) []byte {
	out := make([]byte, 0, len(js)+len(js)/8)
	for len(js) > 0 {
		r, n := utf8.DecodeRune(js)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, js[:n]...)
		}
		js = js[n:]
	}
	return out
}

// encode writes {"result": ..., "diagnostics": ...} into one buffer:
// Encoded results as they are, raw JSON compacted, anything else through
// encoding/json, and a plain success's diagnostics as a constant.
func (r Reply) encode() ([]byte, error) {
	var buf bytes.Buffer
	// A result of known size and a plain success's diagnostics fit at once.
	switch v := r.Result.(type) {
	case Encoded:
		buf.Grow(len(`{"result":,"diagnostics":}`) + len(v) + len(successDiag))
	case Appended:
		buf.Grow(len(`{"result":,"diagnostics":}`) + v.Size + len(successDiag))
	}
	buf.WriteString(`{"result":`)
	switch v := r.Result.(type) {
	case Encoded:
		buf.Write(v)
	case Appended:
		// Appended into the buffer's free space, so Write copies it onto
		// itself.
		buf.Write(v.Append(buf.AvailableBuffer()))
	case json.RawMessage:
		if len(v) == 0 {
			buf.WriteString("null")
		} else if err := json.Compact(&buf, v); err != nil {
			return nil, err
		}
	default:
		if err := encodeInto(&buf, v); err != nil {
			return nil, err
		}
	}
	buf.WriteString(`,"diagnostics":`)
	if r.Diag == (Diagnostics{Outcome: OutcomeSuccess}) {
		buf.WriteString(successDiag)
	} else if err := encodeInto(&buf, r.Diag); err != nil {
		return nil, err
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// encodeInto appends v's JSON to buf without HTML escaping or a newline.
func encodeInto(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the newline Encode adds
	return nil
}
