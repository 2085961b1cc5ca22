package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestEncodeMatchesSDK: a line written by the fast path for successful
// responses is byte for byte what jsonrpc.EncodeMessage writes, for number
// and string ids and results that HTML escaping or a second compaction
// would change; other messages go through EncodeMessage.
func TestEncodeMatchesSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(7)), Result: json.RawMessage(`{"content":[{"type":"text","text":"{\"a\":\"<b>&\"}"}],"structuredContent":{"a":"<b>&"}}`)},
		&jsonrpc.Response{ID: id("req-\u2028\"x\"<&>"), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id(float64(-1)), Result: json.RawMessage(`{"tools":[]}`)},
		&jsonrpc.Response{ID: id(float64(3)), Error: errors.New("boom")},
		&jsonrpc.Response{ID: id(float64(4)), Result: json.RawMessage("{\n\"a\": 1\n}")},
		&jsonrpc.Request{ID: id(float64(5)), Method: "ping"},
	} {
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		head, result, err := encode(msg)
		got := head
		if result != nil {
			got = append(append(bytes.Clone(head), result...), '}')
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("encode(%+v) = %s (%v), want %s", msg, got, err, want)
		}
		if bytes.IndexByte(got, '\n') >= 0 {
			t.Errorf("a line holds a newline: %q", got)
		}
	}
}

// TestWriteMatchesSDK: Write puts out EncodeMessage's line and a newline,
// for small results copied into one write and large ones written apart.
func TestWriteMatchesSDK(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(9))
	large := `{"s":"` + strings.Repeat("群<&>", 40_000) + `"}`
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"a":1}`)},
		&jsonrpc.Response{ID: id, Result: json.RawMessage(large)},
		&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32603, Message: "boom"}},
		&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{}`)},
	} {
		var out bytes.Buffer
		tr := New(strings.NewReader(""), &out, Options{})
		if err := tr.c.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
		want, _ := jsonrpc.EncodeMessage(msg)
		if got := out.Bytes(); !bytes.Equal(got, append(want, '\n')) {
			t.Errorf("Write wrote %.200q, want %.200q", got, want)
		}
	}
}
