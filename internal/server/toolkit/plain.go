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
// sixfold on the wire and in memory, past MaxResultBytes. With pass set
// (see Config.Pass) the encoded result goes to the transport as it is.
func plainResults(pass func([]byte) []byte) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r.InputRequests == nil && r.RequestState == "" {
				return &plainResult{r, pass}, nil
			}
			return res, err
		}
	}
}

// plainResult is a CallToolResult whose JSON is written without HTML
// escaping. Embedding keeps everything the SDK does with the result after
// the middleware (its resultType, the serverInfo in _meta) working.
type plainResult struct {
	*mcp.CallToolResult
	pass func([]byte) []byte // see Config.Pass
}

func (r *plainResult) MarshalJSON() ([]byte, error) {
	b, err := r.encode()
	if err != nil || r.pass == nil {
		return b, err
	}
	return r.pass(b), nil
}

// encode lets the SDK encode the small fields and writes content and
// structuredContent, the large ones, itself, in one pass: a text block is
// quoted once, and structuredContent in the json.RawMessage form Reply
// renders (compact, valid, without HTML escaping) is copied as it is.
// Those are the only raw structured results this server makes; any other
// value is encoded.
func (r *plainResult) encode() ([]byte, error) {
	shell := *r.CallToolResult
	shell.Content, shell.StructuredContent = nil, nil
	head, err := shell.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(head, &fields); err != nil {
		return nil, err
	}
	delete(fields, "content")
	delete(fields, "structuredContent")

	var structured json.RawMessage
	switch v := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		structured = v
	default:
		if structured, err = plainJSON(v); err != nil {
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
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if out, err = appendJSON(append(out, ','), k); err != nil {
			return nil, err
		}
		out = append(append(out, ':'), fields[k]...)
	}
	return append(out, '}'), nil
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

// plainJSON encodes v without HTML escaping.
func plainJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
