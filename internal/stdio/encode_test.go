package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

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
