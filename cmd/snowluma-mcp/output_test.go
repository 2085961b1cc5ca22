package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// maxRSSPerAnswerByte is the documented bound on the server's peak memory
// above its idle footprint, as a multiple of the size of SnowLuma's answer
// (see the README's "Limits and shutdown").
const maxRSSPerAnswerByte = 12

// bigAnswer makes the process answer one query_action whose SnowLuma data
// is a string of n '<' characters, then closes it. It returns the result,
// the longest line the server wrote and the process's peak RSS.
func bigAnswer(t *testing.T, bin string, era mcptest.Era, n int) (*mcp.CallToolResult, int, int64) {
	t.Helper()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	data := json.RawMessage(`"` + strings.Repeat("<", n) + `"`)
	fake.Handle("get_msg", func(json.RawMessage) simulator.Reply { return simulator.OK(data) })
	p := mcptest.Spawn(t, bin, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
	cs := p.Connect(nil)
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: "query_action", Arguments: map[string]any{"action": "get_msg", "params": map[string]any{"message_id": 1}}})
	if err != nil {
		t.Fatalf("query_action: %v", err)
	}
	peak := p.PeakRSS()
	p.Close()
	longest := 0
	for _, l := range p.Received() {
		longest = max(longest, len(l))
	}
	return res, longest, peak
}

// TestOutputProportionalToAnswer: an answer of '<' characters is carried
// without HTML escaping and its JSON once; past the result cap the call
// fails with too_large; the line and peak memory stay bounded.
func TestOutputProportionalToAnswer(t *testing.T) {
	t.Parallel()
	bin := plainBinary(t) // the race detector multiplies memory: measure a plain build
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		_, _, idle := bigAnswer(t, bin, era, 10)

		const fits = 7 << 20 // under toolkit.MaxResultBytes
		res, line, rss := bigAnswer(t, bin, era, fits)
		t.Logf("%d-byte answer: %d-byte line, peak RSS %d MiB (idle %d MiB)", fits, line, rss>>20, idle>>20)
		if res.IsError {
			t.Fatalf("a %d-byte answer failed: %v", fits, res.Content)
		}
		if line > fits+64<<10 {
			t.Errorf("a %d-byte answer became a %d-byte line", fits, line)
		}
		if grown := rss - idle; grown > maxRSSPerAnswerByte*fits {
			t.Errorf("peak RSS grew by %d MiB for a %d MiB answer, over %d times", grown>>20, fits>>20, maxRSSPerAnswerByte)
		}
		// (line, the longest line, is fits bytes and a little: no escapes.)
		if text := res.Content[0].(*mcp.TextContent).Text; len(text) > toolkit.TextLimit || !strings.Contains(text, "structuredContent") {
			t.Errorf("the text block of a large result: %.200s", text)
		}

		const huge = 9 << 20 // past toolkit.MaxResultBytes
		res, line, rss = bigAnswer(t, bin, era, huge)
		t.Logf("%d-byte answer: %d-byte line, peak RSS %d MiB (idle %d MiB)", huge, line, rss>>20, idle>>20)
		raw, _ := json.Marshal(res.StructuredContent)
		tr := mcptest.Decode[mcptest.ToolResult](t, raw)
		if !res.IsError || tr.Diagnostics.Kind != "too_large" || tr.Diagnostics.NextStep == "" {
			t.Errorf("a %d-byte answer: %+v", huge, tr.Diagnostics)
		}
		if line > toolkit.MaxResultBytes {
			t.Errorf("a %d-byte line", line)
		}
		if grown := rss - idle; grown > maxRSSPerAnswerByte*huge {
			t.Errorf("peak RSS grew by %d MiB for a %d MiB answer, over %d times", grown>>20, huge>>20, maxRSSPerAnswerByte)
		}
	})
}
