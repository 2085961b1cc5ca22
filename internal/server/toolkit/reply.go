package toolkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

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
func Render(r outcome.Reply) *mcp.CallToolResult { return toolResult(r) }

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
// text block carries the same JSON while it is small. A request for input
// becomes the input requests of form elicitation.
func toolResult(r outcome.Reply) *mcp.CallToolResult {
	if r.Input != nil {
		requests := make(mcp.InputRequestMap, len(r.Input.Forms))
		for key, f := range r.Input.Forms {
			requests[key] = &mcp.ElicitParams{Mode: "form", Message: f.Message, RequestedSchema: f.Schema}
		}
		return &mcp.CallToolResult{InputRequests: requests, RequestState: r.Input.State}
	}
	js, err := encode(r)
	if err != nil {
		return toolResult(outcome.Fail(outcome.KindInternal, "the result could not be encoded as JSON", "report this to the snowluma-mcp maintainers"))
	}
	// SnowLuma's bytes are copied as they came, and they are not always
	// valid UTF-8. Replacing them here, once, keeps the output line valid
	// for strict clients and the text block identical to structuredContent.
	if !utf8.Valid(js) {
		js = validUTF8(js)
	}
	if len(js) > MaxResultBytes {
		return toolResult(outcome.Fail(outcome.KindTooLarge, fmt.Sprintf("the result is %d bytes of JSON, over the %d MiB a tool result may hold", len(js), MaxResultBytes>>20),
			"narrow the request (a smaller page, fewer ids, a stream to a file) so that the answer is smaller"))
	}
	// The text block repeats structuredContent's bytes, which nothing
	// writes to once encoded, so it shares them instead of copying up to
	// TextLimit bytes more for every call.
	text := unsafe.String(unsafe.SliceData(js), len(js))
	if len(js) > TextLimit {
		text = fmt.Sprintf("The result is %d bytes of JSON, too large to repeat here: read structuredContent. Outcome: %s.", len(js), r.Diag.Outcome)
	}
	content := make([]mcp.Content, 1, 1+len(r.Attach))
	content[0] = &mcp.TextContent{Text: text}
	for _, a := range r.Attach {
		if strings.HasPrefix(a.MIMEType, "audio/") {
			content = append(content, &mcp.AudioContent{Data: a.Data, MIMEType: a.MIMEType})
		} else {
			content = append(content, &mcp.ImageContent{Data: a.Data, MIMEType: a.MIMEType})
		}
	}
	return &mcp.CallToolResult{
		Content:           content,
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
func encode(r outcome.Reply) ([]byte, error) {
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
	if r.Diag == (outcome.Diagnostics{Outcome: outcome.OutcomeSuccess}) {
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
