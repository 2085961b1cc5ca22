package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainResults is a receiving middleware that writes complete tool results
// without HTML escaping. The SDK encodes a CallToolResult with
// encoding/json's defaults, which write '<', '>' and '&' as six-byte
// escapes even inside a json.RawMessage: an answer full of them would grow
// sixfold on the wire and in memory, past MaxResultBytes.
func plainResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.InputRequests == nil && r.RequestState == "" {
			return &plainResult{r}, nil
		}
		return res, err
	}
}

// plainResult is a CallToolResult whose JSON is written without HTML
// escaping. Embedding keeps everything the SDK does with the result after
// the middleware (its resultType, the serverInfo in _meta) working.
type plainResult struct {
	*mcp.CallToolResult
}

// MarshalJSON lets the SDK encode the small fields and writes content and
// structuredContent, the large ones, itself, in one pass: a text block is
// quoted once, and structuredContent in the json.RawMessage form Reply
// renders (compact, valid, without HTML escaping) is copied as it is.
// Those are the only raw structured results this server makes; any other
// value is encoded.
func (r *plainResult) MarshalJSON() ([]byte, error) {
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

	out := make([]byte, 0, size)
	out = append(out, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			out = append(out, ',')
		}
		if t, ok := c.(*mcp.TextContent); ok && t.Meta == nil && t.Annotations == nil {
			out = append(out, `{"type":"text","text":`...)
			if out, err = appendJSON(out, t.Text); err != nil {
				return nil, err
			}
			out = append(out, '}')
		} else if out, err = appendJSON(out, c); err != nil {
			return nil, err
		}
	}
	out = append(out, ']')
	if structured != nil {
		out = append(append(out, `,"structuredContent":`...), structured...)
	}
	return CloseResult(out, head, "content", "structuredContent")
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
