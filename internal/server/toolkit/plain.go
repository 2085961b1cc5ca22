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
type plainResult struct{ *mcp.CallToolResult }

// MarshalJSON lets the SDK encode the small fields and writes content and
// structuredContent, the large ones, itself, copying each once.
func (r *plainResult) MarshalJSON() ([]byte, error) {
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

	content := make([]json.RawMessage, len(r.Content))
	for i, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok && t.Meta == nil && t.Annotations == nil {
			text, err := plainJSON(t.Text)
			if err != nil {
				return nil, err
			}
			content[i] = append(append([]byte(`{"type":"text","text":`), text...), '}')
		} else if content[i], err = json.Marshal(c); err != nil {
			return nil, err
		}
	}
	contentJSON, err := plainJSON(content)
	if err != nil {
		return nil, err
	}
	var structured json.RawMessage
	if r.StructuredContent != nil {
		var ok bool
		if structured, ok = r.StructuredContent.(json.RawMessage); !ok {
			if structured, err = plainJSON(r.StructuredContent); err != nil {
				return nil, err
			}
		}
	}

	out := make([]byte, 0, len(head)+len(contentJSON)+len(structured)+64)
	out = append(append(out, `{"content":`...), contentJSON...)
	if structured != nil {
		out = append(append(out, `,"structuredContent":`...), structured...)
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		key, err := plainJSON(k)
		if err != nil {
			return nil, err
		}
		out = append(append(append(append(out, ','), key...), ':'), fields[k]...)
	}
	return append(out, '}'), nil
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
