package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// bin is the snowluma-mcp binary under test, built once by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "snowluma-mcp-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, err = mcptest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var eras = []mcptest.Era{mcptest.Modern, mcptest.Legacy}

// forEachEra runs f once as a 2026-07-28 client and once as a 2025-11-25
// client.
func forEachEra(t *testing.T, f func(t *testing.T, era mcptest.Era)) {
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) { f(t, era) })
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
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
