package main_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	main "github.com/snowluma/snowluma-mcp/cmd/snowluma-mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// binDir holds the snowluma-mcp binary, built by the first test that needs
// a process (binary).
var binDir string

func TestMain(m *testing.M) {
	// The tests mostly wait (grace periods, a fake's delays, idle
	// timeouts) rather than compute, so more run at once than there are
	// cores; a -parallel on the command line wins.
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(8, 4*runtime.GOMAXPROCS(0))))
	}
	dir, err := os.MkdirTemp("", "snowluma-mcp-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// built builds the binary once, for the tests that need a process.
var built = sync.OnceValues(func() (string, error) { return mcptest.Build(binDir) })

// binary is the snowluma-mcp binary, for a test that needs a process of
// its own: signals, the ends of stdin and stdout, a crash, the exit
// status, doctor, a build, another client's process. Every other test runs
// the server in process (serve).
func binary(t testing.TB) string {
	t.Helper()
	bin, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A starter starts a server for a test: serve (in process) or spawn (the
// binary, for what needs a process).
type starter func(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc

// serve runs the server in the test process with env as its environment
// (plus PATH, and a HOME of its own), checked as a process is (mcptest.Start).
func serve(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc {
	t.Helper()
	return mcptest.Start(t, main.Run, era, env...)
}

// spawn starts the binary with env as its environment (plus PATH and
// HOME), for a test that needs a process (binary).
func spawn(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc {
	t.Helper()
	return mcptest.Spawn(t, binary(t), era, env...)
}

var eras = []mcptest.Era{mcptest.Modern, mcptest.Legacy}

// forEachEra runs f once as a 2026-07-28 client and once as a 2025-11-25
// client, in parallel.
func forEachEra(t *testing.T, f func(t *testing.T, era mcptest.Era)) {
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			f(t, era)
		})
	}
}

// await returns the next value from ch, failing the test after a generous
// wait, so that a hung server fails its test instead of the whole run.
func await[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(mcptest.Patience):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), mcptest.Patience)
	t.Cleanup(cancel)
	return c
}

// toolResult is a decoded structuredContent envelope.
type toolResult struct {
	Result      json.RawMessage `json:"result"`
	Diagnostics struct {
		Outcome  string `json:"outcome"`
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		NextStep string `json:"next_step"`
		// RetryAfterMS comes with kind rate_limited.
		RetryAfterMS int64 `json:"retry_after_ms"`
	} `json:"diagnostics"`
}

// callTool calls a tool and decodes its structured result, checking that the
// text block carries the same JSON.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, toolResult) {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var tr toolResult
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("%s: structuredContent %s: %v", name, raw, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", name, res.Content[0])
	}
	var fromText toolResult
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("%s: text block is not the structured JSON: %v", name, err)
	}
	if !sameJSON(fromText.Result, tr.Result) || fromText.Diagnostics != tr.Diagnostics {
		t.Errorf("%s: text block differs from structuredContent", name)
	}
	if res.IsError != (tr.Diagnostics.Outcome == "failed" && string(tr.Result) == "null") {
		t.Errorf("%s: isError=%v but diagnostics %+v, result %s", name, res.IsError, tr.Diagnostics, tr.Result)
	}
	return res, tr
}

// sameJSON reports whether a and b encode the same value, ignoring key order
// (the client re-encodes structuredContent).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}
