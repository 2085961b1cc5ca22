package mcpseam

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// PlainToolResult is a complete tool result whose JSON is written without
// HTML escaping. The SDK encodes a CallToolResult with encoding/json's
// defaults, which write '<', '>' and '&' as six-byte escapes even inside a
// json.RawMessage: an answer full of them would grow sixfold on the wire
// and in memory, past the largest result the server sends
// (TestSeamSDKEscapesHTMLInToolResults says when the SDK stops).
//
// It relies on the SDK (v1.8.0) encoding the result the receiving
// middleware returns with its MarshalJSON method, and reaching the
// embedded result through promoted methods when it sets the resultType and
// the serverInfo in _meta of a 2026-07-28 answer
// (TestSeamSDKEncodesResultViaMarshalJSON).
//
// With Pass set, the encoded result is handed to the transport instead of
// through the SDK's encoder, which would check and compact it a second
// time (see Handoff).
type PlainToolResult struct {
	*mcp.CallToolResult
	// Pass, when set, lends the buffer the result is encoded into and
	// takes the encoded result, returning the stand-in MarshalJSON returns
	// in its place (Handoff).
	Pass Passer
}

// MarshalJSON lets the SDK encode the small fields and writes content and
// structuredContent, the large ones, itself, in one pass: a text block is
// quoted once, and structuredContent in the json.RawMessage form Reply
// renders (compact, valid, without HTML escaping) is copied as it is.
// Those are the only raw structured results this server makes; any other
// value is encoded.
func (r *PlainToolResult) MarshalJSON() ([]byte, error) {
	shell := *r.CallToolResult
	shell.Content, shell.StructuredContent = nil, nil
	head, err := shell.MarshalJSON()
	if err != nil {
		return nil, err
	}

	var structured json.RawMessage
	switch v := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		structured = v
	default:
		if structured, err = PlainJSON(v); err != nil {
			return nil, err
		}
	}
	size := len(head) + len(structured) + 64
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			size += len(t.Text) + len(t.Text)/8 + 32
		}
	}

	out := resultBuffer(size, r.Pass)
	out = append(out, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			out = append(out, ',')
		}
		if t, ok := c.(*mcp.TextContent); ok && t.Meta == nil && t.Annotations == nil {
			out = append(quote.AppendJSON(append(out, `{"type":"text","text":`...), t.Text), '}')
		} else if out, err = appendJSON(out, c); err != nil {
			return nil, err
		}
	}
	out = append(out, ']')
	if structured != nil {
		out = append(append(out, `,"structuredContent":`...), structured...)
	}
	out, err = CloseResult(out, head, "content", "structuredContent")
	if err != nil || r.Pass == nil {
		return out, err
	}
	return r.Pass.Pass(out), nil
}

// appendJSON appends v's JSON to b without HTML escaping.
func appendJSON(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil // the newline Encode adds
}

// PlainJSON encodes v as the SDK does: without HTML escaping or a newline.
func PlainJSON(v any) ([]byte, error) { return appendJSON(nil, v) }

// CloseResult finishes out, a result object the server has opened and
// filled with the members it encoded itself, named in written: it appends
// the other members of head, the SDK's encoding of the same result without
// those, sorted by name, and the closing brace.
func CloseResult(out, head []byte, written ...string) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(head, &members); err != nil {
		return nil, err
	}
	for _, name := range written {
		delete(members, name)
	}
	var err error
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if out, err = appendJSON(append(out, ','), name); err != nil {
			return nil, err
		}
		out = append(append(out, ':'), members[name]...)
	}
	return append(out, '}'), nil
}

// EncodedRead is a resources/read answer whose contents this server
// encoded once, for a large resource that never changes (the catalog, about
// 340 KB): each answer copies the encoded contents after the rest of the
// result (cache hints, _meta), which is small and encoded with each answer,
// by the SDK too. With Pass set, the whole answer is handed to the
// transport instead of through the SDK's encoder (see Handoff).
//
// It relies on what PlainToolResult relies on in go-sdk v1.8.0, for a
// ReadResourceResult.
type EncodedRead struct {
	*mcp.ReadResourceResult
	// Contents is the encoded contents array, compact and without HTML
	// escaping (PlainJSON).
	Contents []byte
	// Pass, when set, lends the buffer the answer is encoded into and
	// takes the encoded answer, returning the stand-in MarshalJSON returns
	// in its place (Handoff).
	Pass Passer
}

// MarshalJSON writes the encoded contents and the SDK's encoding of the
// rest of the result, or hands them to Pass.
func (a *EncodedRead) MarshalJSON() ([]byte, error) {
	shell := *a.ReadResourceResult
	shell.Contents = nil
	head, err := shell.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return encodedAnswer(head, "contents", a.Contents, a.Pass)
}

// EncodedList is a tools/list answer whose tools array this server encoded
// once for each set of client capabilities that it lists tools for
// (toolkit's filterList). With Pass set, the whole answer is handed to the
// transport instead of through the SDK's encoder (see Handoff).
//
// It relies on what PlainToolResult relies on in go-sdk v1.8.0, for a
// ListToolsResult (TestSeamSDKMiddlewareSeesMethodAndTypedRequest, too).
type EncodedList struct {
	*mcp.ListToolsResult
	// Tools is the encoded tools array, compact and without HTML escaping
	// (PlainJSON).
	Tools []byte
	// Pass, when set, lends the buffer the answer is encoded into and
	// takes the encoded answer, returning the stand-in MarshalJSON returns
	// in its place (Handoff).
	Pass Passer
}

// MarshalJSON writes the encoded tools and the SDK's encoding of the rest
// of the result, or hands them to Pass.
func (l *EncodedList) MarshalJSON() ([]byte, error) {
	shell := *l.ListToolsResult
	shell.Tools = nil
	head, err := PlainJSON(&shell)
	if err != nil {
		return nil, err
	}
	return encodedAnswer(head, "tools", l.Tools, l.Pass)
}

// encodedAnswer is the result object whose member name holds encoded and
// whose other members are those of head, the encoding of the rest of the
// result; pass, when set, takes it and returns its stand-in.
func encodedAnswer(head []byte, name string, encoded []byte, pass Passer) ([]byte, error) {
	out := resultBuffer(len(head)+len(name)+len(encoded)+16, pass)
	out = append(append(append(append(out, `{"`...), name...), `":`...), encoded...)
	out, err := CloseResult(out, head, name)
	if err != nil || pass == nil {
		return out, err
	}
	return pass.Pass(out), nil
}

// resultBuffer returns an empty buffer for a result of about size bytes:
// for a result that is to be passed, one pass lends (Handoff.Buffer).
func resultBuffer(size int, pass Passer) []byte {
	if pass == nil {
		return make([]byte, 0, size)
	}
	return pass.Buffer(size)
}
