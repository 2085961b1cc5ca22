// Package e2e holds the helpers that the end-to-end tests of
// internal/server (the behaviour tests, server in process) and of
// cmd/snowluma-mcp (the process tests, the real binary) share: a live
// server on a fake SnowLuma, a raw session, the task client, progress,
// event reads, audit lines and file hashes. It lives outside both test
// packages because one test package cannot import another.
//
// Only tests import it: no non-test code may, since it fails tests
// through testing.T and starts fakes.
package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// SecretToken is the access token of every execution test; no result and
// no stderr line may ever contain it.
const SecretToken = "tok-5ecret-DO-NOT-LEAK"

// A Starter starts a server for a test with env as its environment (plus
// PATH, and a HOME of its own): in process (mcptest.Start with app.Run,
// each test package's serve) or the binary (mcptest.Spawn, the process
// tests' spawn, for what needs a process of its own).
type Starter func(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc

// Live starts a fake SnowLuma requiring SecretToken and a snowluma-mcp in
// mode talking to it, started by start with client options and extra
// environment, and checks at the end that the token leaked nowhere.
func Live(t *testing.T, start Starter, era mcptest.Era, mode string, opts *mcp.ClientOptions, env ...string) (*simulator.Server, *mcptest.Proc, *mcp.ClientSession) {
	t.Helper()
	fake := simtest.Start(t, simulator.WithToken(SecretToken))
	// Send pacing is off unless a test sets it: most tests send to one
	// group back to back, and pacing has tests of its own
	// (internal/server/safety_client_test.go).
	env = append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + SecretToken, "SNOWLUMA_MCP_MODE=" + mode,
		"SNOWLUMA_MCP_DOWNLOAD_DIR=" + filepath.Join(t.TempDir(), "downloads"),
		"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0", "SNOWLUMA_MCP_SEND_PER_MINUTE=0"}, env...)
	p := start(t, era, env...)
	cs := p.Connect(opts)
	t.Cleanup(func() { NoLeak(t, p) })
	return fake, p, cs
}

// HangingLive is a live server, started by start, whose SnowLuma never
// answers get_status.
func HangingLive(t *testing.T, start Starter, era mcptest.Era, mode string) (*simulator.Server, *mcptest.Proc) {
	t.Helper()
	fake := simtest.Start(t, simulator.WithToken(SecretToken))
	fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Reply{Hang: true} })
	p := start(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+SecretToken, "SNOWLUMA_MCP_MODE="+mode)
	t.Cleanup(func() { NoLeak(t, p) })
	return fake, p
}

// NoLeak closes p and fails the test if SecretToken is in any message it
// wrote or on its stderr.
func NoLeak(t *testing.T, p *mcptest.Proc) {
	t.Helper()
	p.Close() // so that stderr and stdout are complete
	for _, l := range p.Received() {
		if strings.Contains(l, SecretToken) {
			t.Errorf("token in a server message: %.300s", l)
		}
	}
	if strings.Contains(p.Stderr(), SecretToken) {
		t.Errorf("token on stderr")
	}
}

// WaitFor polls cond until it holds, failing the test after a generous
// wait. It asserts an eventual state, never a duration.
func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(mcptest.Patience)
	for wait := pollFirst; !cond(); wait = nextPoll(wait) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(wait)
	}
}

// The polls of WaitFor and WaitRead start 10 ms apart and back off to
// pollMost: a condition that holds soon is seen soon, and one that takes
// seconds is not asked about hundreds of times (each ask is a tool call
// or a read that the server answers and the check replays, under the race
// detector), which slowed what the test waits for.
const (
	pollFirst = 10 * time.Millisecond
	pollMost  = 100 * time.Millisecond
)

func nextPoll(wait time.Duration) time.Duration { return min(wait*3/2, pollMost) }

// RawSession attaches a raw connection ready for requests in era (a legacy
// one after initialize with the given client capabilities) and returns it
// with a function that makes a request's params for the era: for
// 2026-07-28 it adds the _meta fields with the same capabilities.
func RawSession(t *testing.T, p *mcptest.Proc, era mcptest.Era, caps string) (*mcptest.Raw, func(params string) string) {
	t.Helper()
	raw := p.Raw()
	if era == mcptest.Legacy {
		Result(t, raw.Call(1000, "initialize", `{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}`))
		raw.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return raw, func(params string) string { return params }
	}
	meta := fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`, caps)
	return raw, func(params string) string {
		if params == "{}" {
			return `{"_meta":` + meta + `}`
		}
		return `{"_meta":` + meta + `,` + strings.TrimPrefix(params, "{")
	}
}

// Result returns a response's result, failing on an error response.
func Result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", m)
	}
	return r
}

// Answered reports whether the server wrote a response with id.
func Answered(p *mcptest.Proc, id float64) bool {
	for _, l := range p.Received() {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["id"] == id && m["method"] == nil {
			return true
		}
	}
	return false
}

// ToolNames lists the names of the tools cs is offered.
func ToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(mcptest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// MustJSON is v encoded, failing the test when it cannot be.
func MustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
