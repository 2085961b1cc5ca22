package mcpseam_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
)

// namedTap consumes the notification of one method, and marks every
// response the SDK writes with its name, in the order the taps see it.
type namedTap struct {
	name, consumes string
	mu             sync.Mutex
	conn           mcp.Connection
	read           []string
}

func (n *namedTap) Connected(c mcp.Connection) { n.conn = c }

func (n *namedTap) Read(_ context.Context, req *jsonrpc.Request) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.read = append(n.read, req.Method)
	return req.Method == n.consumes
}

func (n *namedTap) Write(msg jsonrpc.Message) jsonrpc.Message {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil {
		var m map[string]any
		json.Unmarshal(r.Result, &m)
		m["taps"] = append(asSlice(m["taps"]), n.name)
		out := *r
		out.Result, _ = json.Marshal(m)
		return &out
	}
	return msg
}

var _ mcpseam.Tap = (*namedTap)(nil)

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestWrapTaps: a message from the client meets the taps first to last,
// and one a tap consumes reaches neither the later taps nor the SDK; a
// message of the SDK meets them last to first; a tap's own writes reach
// the client as they are.
func TestWrapTaps(t *testing.T) {
	t.Parallel()
	first := &namedTap{name: "first", consumes: "notifications/x/first"}
	second := &namedTap{name: "second", consumes: "notifications/x/second"}
	s := newServer()
	w := serve(t, s, first, second)
	w.send(0, "notifications/x/first", `{}`)
	w.send(0, "notifications/x/second", `{}`)
	res := w.call(1, "tools/list", `{}`)
	var got struct{ Taps []string }
	json.Unmarshal(res, &got)
	if len(got.Taps) != 2 || got.Taps[0] != "second" || got.Taps[1] != "first" {
		t.Errorf("the SDK's answer met the taps in the order %v, want [second first]", got.Taps)
	}
	first.mu.Lock()
	second.mu.Lock()
	if len(first.read) != 3 || len(second.read) != 2 || second.read[0] != "notifications/x/second" {
		t.Errorf("first read %v, second read %v; want the first to see all three and the second not the one the first consumed", first.read, second.read)
	}
	first.mu.Unlock()
	second.mu.Unlock()
	if err := second.conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/x/own", Params: json.RawMessage(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	if r, ok := w.next("the tap's own notification").(*jsonrpc.Request); !ok || r.Method != "notifications/x/own" || string(r.Params) != `{"a":1}` {
		t.Errorf("the tap's own write arrived as %+v", r)
	}
}
