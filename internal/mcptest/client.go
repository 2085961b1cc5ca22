package mcptest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The helpers below are a client's view of one call, shared by the
// behaviour tests in internal/server and the process tests in
// cmd/snowluma-mcp.

// Eras are the protocol eras a test runs in: a 2026-07-28 client and a
// 2025-11-25 client.
var Eras = []Era{Modern, Legacy}

// ForEachEra runs f once as a 2026-07-28 client and once as a 2025-11-25
// client, in parallel.
func ForEachEra(t *testing.T, f func(t *testing.T, era Era)) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			f(t, era)
		})
	}
}

// Await returns the next value from ch, failing the test after a generous
// wait (Patience), so that a hung server fails its test instead of the
// whole run.
func Await[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(Patience):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// Context is a context for one request of t, cancelled after Patience or
// when t ends.
func Context(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), Patience)
	t.Cleanup(cancel)
	return c
}

// ToolResult is a decoded structuredContent envelope.
type ToolResult struct {
	Result      json.RawMessage `json:"result"`
	Diagnostics struct {
		Outcome  string `json:"outcome"`
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		NextStep string `json:"next_step"`
		// RetryAfterMS comes with kind rate_limited.
		RetryAfterMS int64 `json:"retry_after_ms"`
		// Match is "weak" on a search whose best match is a guess.
		Match string `json:"match"`
	} `json:"diagnostics"`
}

// CallTool calls a tool and decodes its structured result, checking that the
// text block carries the same JSON.
func CallTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, ToolResult) {
	t.Helper()
	res, err := cs.CallTool(Context(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var tr ToolResult
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
	var fromText ToolResult
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatalf("%s: text block is not the structured JSON: %v", name, err)
	}
	if !SameJSON(fromText.Result, tr.Result) || fromText.Diagnostics != tr.Diagnostics {
		t.Errorf("%s: text block differs from structuredContent", name)
	}
	if res.IsError != (tr.Diagnostics.Outcome == "failed" && string(tr.Result) == "null") {
		t.Errorf("%s: isError=%v but diagnostics %+v, result %s", name, res.IsError, tr.Diagnostics, tr.Result)
	}
	return res, tr
}

// SameJSON reports whether a and b encode the same value, ignoring key order
// (the client re-encodes structuredContent).
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Decode decodes raw into a T, failing t if it cannot.
func Decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}
