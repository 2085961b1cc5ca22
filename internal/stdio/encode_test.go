package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
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
		got, err := encode(msg)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("encode(%+v) = %s (%v), want %s", msg, got, err, want)
		}
		if bytes.IndexByte(got, '\n') >= 0 {
			t.Errorf("a line holds a newline: %q", got)
		}
	}
}
