package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/config"
)

// TestPrecomputedAnswers: the docs tools and the catalog resource answer
// from JSON encoded once; each answer holds exactly what encoding the
// catalog's values anew gives.
func TestPrecomputedAnswers(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeDocs})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	all := cat.List(catalog.Filter{})
	briefs := func(as []*catalog.Action) []catalog.Entry {
		out := []catalog.Entry{}
		for _, a := range as {
			out = append(out, a.Entry())
		}
		return out
	}
	send, _ := cat.Lookup("send_group_msg")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want any
	}{
		{"list_actions", map[string]any{}, map[string]any{"count": len(all), "actions": briefs(all)}},
		{"list_actions", map[string]any{"limit": 5, "offset": 3}, map[string]any{"count": 5, "total": len(all), "next_offset": 8, "actions": briefs(all[3:8])}},
		{"list_actions", map[string]any{"offset": len(all) - 2}, map[string]any{"count": 2, "total": len(all), "next_offset": nil, "actions": briefs(all[len(all)-2:])}},
		{"list_actions", map[string]any{"offset": len(all) + 5}, map[string]any{"count": 0, "total": len(all), "next_offset": nil, "actions": []catalog.Entry{}}},
		{"search_actions", map[string]any{"query": "group"}, map[string]any{"count": len(cat.Search("group", catalog.Filter{})), "actions": briefs(cat.Search("group", catalog.Filter{}))}},
		{"search_actions", map[string]any{"query": "zzzq-xqzv"}, map[string]any{"count": 0, "actions": []catalog.Entry{}}},
		{"get_action", map[string]any{"name": "send_group_msg"}, send},
		{"list_categories", map[string]any{}, cat.Categories()},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %+v", tc.tool, tc.args, err, res)
		}
		got, _ := json.Marshal(res.StructuredContent.(map[string]any)["result"])
		if !sameJSON(t, got, tc.want) {
			t.Errorf("%s %v:\n%s\nwant\n%s", tc.tool, tc.args, got, mustJSON(t, tc.want))
		}
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: CatalogURI})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"version": cat.Version(), "categories": cat.Categories(), "actions": cat.Actions()}
	if !sameJSON(t, []byte(res.Contents[0].Text), want) {
		t.Error("catalog resource differs from its values encoded anew")
	}
}

// sameJSON reports whether got and want's encoding hold the same JSON value.
func sameJSON(t *testing.T, got []byte, want any) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%v: %.200s", err, got)
	}
	if err := json.Unmarshal(mustJSON(t, want), &w); err != nil {
		t.Fatal(err)
	}
	return string(mustJSON(t, g)) == string(mustJSON(t, w))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
