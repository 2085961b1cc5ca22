package claudechannel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/listen"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
)

// session runs a go-sdk server on in-memory pipes behind the wire and
// returns the raw client side.
func session(t *testing.T, got chan<- PermissionRequest) (*Wire, mcp.Connection) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	streams := listen.New("io.modelcontextprotocol/tasks", nil)
	w := New(streams)
	w.OnPermission(func(_ context.Context, p PermissionRequest) { got <- p })
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Experimental: map[string]any{CapabilityChannel: map[string]any{}, CapabilityPermission: map[string]any{}}},
	})
	done := make(chan struct{})
	go func() { s.Run(ctx, mcpseam.Wrap(st, w, streams)); close(done) }()
	c, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); cancel(); <-done })
	return w, c
}

// write sends a request with id, or a notification when id is 0.
func write(t *testing.T, c mcp.Connection, id float64, method, params string) {
	t.Helper()
	msg := &jsonrpc.Request{Method: method, Params: json.RawMessage(params)}
	if id != 0 {
		msg.ID, _ = jsonrpc.MakeID(id)
	}
	if err := c.Write(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
}

// next reads the next message the server wrote, as JSON, failing after a
// generous wait.
func next(t *testing.T, c mcp.Connection) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msg, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func TestLegacySession(t *testing.T) {
	got := make(chan PermissionRequest, 1)
	w, c := session(t, got)
	// A push before the handshake is held until the client listens.
	if err := w.Push(context.Background(), "early", nil); err != nil {
		t.Fatalf("a push before the handshake: %v", err)
	}
	if err := w.Verdict(context.Background(), "abcde", "allow"); !errors.Is(err, ErrNotReady) {
		t.Fatalf("a verdict before the handshake: %v", err)
	}
	write(t, c, 1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	init := next(t, c)
	caps, _ := init["result"].(map[string]any)["capabilities"].(map[string]any)["experimental"].(map[string]any)
	if _, ok := caps[CapabilityChannel]; !ok {
		t.Fatalf("initialize declared %v", caps)
	}
	write(t, c, 0, "notifications/initialized", `{}`)
	// The client lists what it needs, as Claude Code does before it
	// listens; a push meanwhile is held too. The held pushes follow the
	// answer, in order.
	write(t, c, 3, "tools/list", `{}`)
	if err := w.Push(context.Background(), "hello", map[string]string{"chat_id": "1"}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c); m["id"] != float64(3) {
		t.Fatalf("before the tools: %v", m)
	}
	for _, want := range []string{"early", "hello"} {
		m := next(t, c)
		if p, _ := m["params"].(map[string]any); m["method"] != MethodChannel || p["content"] != want || m["id"] != nil {
			t.Fatalf("push %v, want %q", m, want)
		}
	}
	// Ready now: a push goes at once.
	if err := w.Push(context.Background(), "now", map[string]string{"chat_id": "1"}); err != nil {
		t.Fatal(err)
	}
	m := next(t, c)
	p, _ := m["params"].(map[string]any)
	if m["method"] != MethodChannel || p["content"] != "now" || p["meta"].(map[string]any)["chat_id"] != "1" || m["id"] != nil {
		t.Fatalf("push %v", m)
	}
	if err := w.Verdict(context.Background(), "abcde", "deny"); err != nil {
		t.Fatal(err)
	}
	m = next(t, c)
	if p, _ := m["params"].(map[string]any); m["method"] != MethodPermission || p["request_id"] != "abcde" || p["behavior"] != "deny" {
		t.Fatalf("verdict %v", m)
	}
	write(t, c, 0, MethodPermissionRequest, `{"request_id":"abcde","tool_name":"Bash","description":"d","input_preview":"{}"}`)
	select {
	case r := <-got:
		if r != (PermissionRequest{"abcde", "Bash", "d", "{}"}) {
			t.Errorf("request %+v", r)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the permission request never arrived")
	}
	// The SDK never saw it: a ping is answered next, not an error.
	write(t, c, 2, "ping", `{}`)
	if m := next(t, c); m["id"] != float64(2) || m["error"] != nil {
		t.Fatalf("after the request: %v", m)
	}
}

func TestModernStreams(t *testing.T) {
	w, c := session(t, make(chan PermissionRequest, 1))
	write(t, c, 6, "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	next(t, c)
	var np *NoPathError
	if err := w.Push(context.Background(), "nobody", nil); !errors.As(err, &np) || np.Version != "2026-07-28" || !errors.Is(err, ErrNotReady) {
		t.Fatalf("a push with no stream: %v", err)
	}
	write(t, c, 7, "subscriptions/listen", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"claude/channel":true}}`)
	ack := next(t, c)
	n, _ := ack["params"].(map[string]any)["notifications"].(map[string]any)
	if ack["method"] != "notifications/subscriptions/acknowledged" || n[ListenFlag] != true {
		t.Fatalf("ack %v", ack)
	}
	if err := w.Push(context.Background(), "on the stream", map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	m := next(t, c)
	p, _ := m["params"].(map[string]any)
	if m["method"] != MethodChannel || p["content"] != "on the stream" || p["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != float64(7) {
		t.Fatalf("push %v", m)
	}
}

// TestDiscoverThenLegacy: a client that probes with server/discover on the
// connection (as the go-sdk client does) and falls back to initialize is a
// legacy session: its pushes are held until it listens, then written.
func TestDiscoverThenLegacy(t *testing.T) {
	w, c := session(t, make(chan PermissionRequest, 1))
	write(t, c, 1, "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	next(t, c)
	if err := w.Push(context.Background(), "early", nil); err != nil {
		t.Fatalf("a push after the probe: %v", err)
	}
	write(t, c, 2, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)
	next(t, c)
	write(t, c, 0, "notifications/initialized", `{}`)
	write(t, c, 3, "tools/list", `{}`)
	if m := next(t, c); m["id"] != float64(3) {
		t.Fatalf("before the tools: %v", m)
	}
	if m := next(t, c); m["method"] != MethodChannel || m["params"].(map[string]any)["content"] != "early" {
		t.Fatalf("push %v", m)
	}
}
