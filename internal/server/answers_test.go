package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/config"
)

// TestAnswerBudget holds the text a model reads of the docs calls to what
// the TypeScript SnowLuma MCP 1.11.1 answered for the same calls (issue 25's
// measurements): the whole unpaged list included.
func TestAnswerBudget(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeDocs})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		budget int
	}{
		{"search_actions", map[string]any{"query": "group"}, 11084},
		{"search_actions", map[string]any{"query": "禁言"}, 733},
		{"list_actions", map[string]any{}, 30122},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s %v: %v %+v", tc.tool, tc.args, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if len(text) > tc.budget {
			t.Errorf("%s %v: %d bytes of text, over the %d the TypeScript server answers", tc.tool, tc.args, len(text), tc.budget)
		}
		var page struct {
			Result struct {
				Count   *int              `json:"count"`
				Actions []json.RawMessage `json:"actions"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(text), &page); err != nil || page.Result.Count == nil || *page.Result.Count != len(page.Result.Actions) || *page.Result.Count == 0 {
			t.Errorf("%s %v: not a whole {count, actions} answer (%v): %.200s", tc.tool, tc.args, err, text)
		}
		t.Logf("%s %v: %d bytes", tc.tool, tc.args, len(text))
	}

	// get_action keeps every field, result schema and examples included.
	// Issue 25 has no per-action figure of the TypeScript server; what it
	// has is that server's catalog resource (issue 16: 267,522 bytes for
	// the 177 full entries, the whole resources/read answer line, its JSON
	// escaped once more inside a string, so the yardstick is loose), and
	// the texts of get_action for every action together stay within twice
	// that.
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, a := range cat.Actions() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_action", Arguments: map[string]any{"name": a.Name}})
		if err != nil || res.IsError {
			t.Fatalf("get_action %s: %v %+v", a.Name, err, res)
		}
		total += len(res.Content[0].(*mcp.TextContent).Text)
	}
	const typeScriptEntries = 267522
	if total > 2*typeScriptEntries {
		t.Errorf("get_action of all %d actions: %d bytes of text, over twice the TypeScript server's %d", cat.Len(), total, typeScriptEntries)
	}
	t.Logf("get_action of all %d actions: %d bytes, %.2f× the TypeScript server's catalog resource", cat.Len(), total, float64(total)/typeScriptEntries)
}
