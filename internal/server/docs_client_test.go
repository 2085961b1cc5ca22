package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// brief is list and search's light entry.
type brief = catalog.Entry

type pageResult struct {
	Count      int             `json:"count"`
	Total      *int            `json:"total"`
	NextOffset json.RawMessage `json:"next_offset"` // absent, null or a number
	Actions    []brief         `json:"actions"`
}

func docsSession(t *testing.T, era mcptest.Era) *mcp.ClientSession {
	return serve(t, era).Connect(nil)
}

// selfDescribed are the properties whose name, type and bounds say all a
// model needs (a definition is loaded into every session, so words that
// repeat the schema are left out); the docs-mode tools describe every
// other property.
var selfDescribed = map[string]bool{"limit": true, "offset": true, "read_only": true, "stream": true, "message_type": true}

func TestToolDefinitions(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		res, err := cs.ListTools(mcptest.Context(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			in := mcptest.Decode[map[string]any](t, e2e.MustJSON(t, tool.InputSchema))
			if in["additionalProperties"] != false {
				t.Errorf("%s: input schema is not closed", tool.Name)
			}
			props, _ := in["properties"].(map[string]any)
			for name, p := range props {
				if d, _ := p.(map[string]any)["description"].(string); d == "" && !selfDescribed[name] {
					t.Errorf("%s: property %s has no description", tool.Name, name)
				}
			}
			if tool.OutputSchema == nil {
				t.Errorf("%s: no outputSchema", tool.Name)
			}
			// Every tool of docs mode is read-only; all but get_runtime_info
			// (whose check_connection contacts SnowLuma in other modes) are
			// closed-world.
			open := tool.Name == "get_runtime_info"
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || toolkit.OpenWorld(tool.Annotations) != open {
				t.Errorf("%s: docs-mode tool annotations %+v", tool.Name, tool.Annotations)
			}
			if tool.Description == "" {
				t.Errorf("%s: no description", tool.Name)
			}
		}
	})
}

func TestListActions(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)

		_, all := mcptest.CallTool(t, cs, "list_actions", map[string]any{})
		full := mcptest.Decode[map[string]json.RawMessage](t, all.Result)
		if _, paged := full["total"]; paged {
			t.Error("unpaged answer carries total")
		}
		if _, paged := full["next_offset"]; paged {
			t.Error("unpaged answer carries next_offset")
		}
		everything := mcptest.Decode[pageResult](t, all.Result)
		if everything.Count != len(everything.Actions) || everything.Count == 0 {
			t.Fatalf("count %d, %d actions", everything.Count, len(everything.Actions))
		}
		if !slices.IsSortedFunc(everything.Actions, func(a, b brief) int { return strings.Compare(a.Name, b.Name) }) {
			t.Error("not in catalog (name) order")
		}
		cat, err := catalog.Load()
		if err != nil {
			t.Fatal(err)
		}
		// Each entry is the action's light form: no field at its default, no
		// category, the summary's first clause.
		var raw struct {
			Actions []map[string]json.RawMessage `json:"actions"`
		}
		if err := json.Unmarshal(all.Result, &raw); err != nil {
			t.Fatal(err)
		}
		for i, e := range raw.Actions {
			b := everything.Actions[i]
			for k, v := range e {
				switch s := string(v); {
				case s == "false" && k != "supported", s == "[]", k == "category", k == "categoryLabel", k == "summaryZh":
					t.Errorf("%s: entry carries %s: %s", b.Name, k, v)
				}
			}
			a, found := cat.Lookup(b.Name)
			if !found || b.Summary != catalog.ShortSummary(a.Summary) || b.ReadOnly != a.ReadOnly || b.Stream != a.Stream || !slices.Equal(b.Aliases, a.Brief.Entry().Aliases) {
				t.Errorf("%s: entry %+v is not the catalog's", b.Name, b)
			}
		}
		in := func(category string) func(brief) bool {
			return func(b brief) bool {
				a, found := cat.Lookup(b.Name)
				return found && a.Category == category
			}
		}

		t.Run("filters", func(t *testing.T) {
			for _, tc := range []struct {
				args map[string]any
				ok   func(brief) bool
			}{
				{map[string]any{"read_only": true}, func(b brief) bool { return b.ReadOnly }},
				{map[string]any{"read_only": false}, func(b brief) bool { return !b.ReadOnly }},
				{map[string]any{"stream": true}, func(b brief) bool { return b.Stream }},
				{map[string]any{"stream": false}, func(b brief) bool { return !b.Stream }},
				{map[string]any{"category": "消息"}, in("消息")},
				{map[string]any{"category": "Messages"}, in("消息")},
				{map[string]any{"category": "消息", "read_only": true}, func(b brief) bool { return in("消息")(b) && b.ReadOnly }},
			} {
				_, r := mcptest.CallTool(t, cs, "list_actions", tc.args)
				pg := mcptest.Decode[pageResult](t, r.Result)
				if pg.Count == 0 {
					t.Errorf("%v: nothing", tc.args)
				}
				want := 0
				for _, b := range everything.Actions {
					if tc.ok(b) {
						want++
					}
				}
				if pg.Count != want {
					t.Errorf("%v: %d actions, want %d", tc.args, pg.Count, want)
				}
				for _, b := range pg.Actions {
					if !tc.ok(b) {
						t.Errorf("%v: %s passed the filter", tc.args, b.Name)
					}
				}
			}
		})

		t.Run("pagination", func(t *testing.T) {
			var got []brief
			offset := 0
			for pages := 0; ; pages++ {
				if pages > 1000 {
					t.Fatal("pagination does not end")
				}
				_, r := mcptest.CallTool(t, cs, "list_actions", map[string]any{"limit": 2, "offset": offset})
				pg := mcptest.Decode[pageResult](t, r.Result)
				if pg.Total == nil || *pg.Total != everything.Count {
					t.Fatalf("total = %v", pg.Total)
				}
				if pg.Count != len(pg.Actions) || pg.Count > 2 {
					t.Fatalf("page count %d, %d actions", pg.Count, len(pg.Actions))
				}
				got = append(got, pg.Actions...)
				if pg.NextOffset == nil {
					t.Fatal("paged answer lacks next_offset")
				}
				if string(pg.NextOffset) == "null" {
					break
				}
				offset = mcptest.Decode[int](t, pg.NextOffset)
			}
			if !slices.EqualFunc(got, everything.Actions, func(a, b brief) bool { return a.Name == b.Name }) {
				t.Error("pages do not add up to the whole list")
			}
			// Past the end: an empty page, next_offset null.
			_, r := mcptest.CallTool(t, cs, "list_actions", map[string]any{"offset": everything.Count + 5})
			pg := mcptest.Decode[pageResult](t, r.Result)
			if pg.Count != 0 || len(pg.Actions) != 0 || string(pg.NextOffset) != "null" {
				t.Errorf("past the end: %+v", pg)
			}
			// Offset alone returns the rest.
			_, r = mcptest.CallTool(t, cs, "list_actions", map[string]any{"offset": 1})
			if pg := mcptest.Decode[pageResult](t, r.Result); pg.Count != everything.Count-1 {
				t.Errorf("offset 1: %d actions", pg.Count)
			}
		})

		t.Run("bad arguments", func(t *testing.T) {
			for _, tc := range []struct {
				args  map[string]any
				field string
			}{
				{map[string]any{"limit": 0}, "/limit"},
				{map[string]any{"limit": 201}, "/limit"},
				{map[string]any{"offset": -1}, "/offset"},
				{map[string]any{"limit": "ten"}, "/limit"},
				{map[string]any{"category": "no such"}, "/category"},
				{map[string]any{"colour": "red"}, "colour"},
			} {
				res, r := mcptest.CallTool(t, cs, "list_actions", tc.args)
				if !res.IsError || r.Diagnostics.Kind != "invalid_arguments" || !strings.Contains(r.Diagnostics.Message, tc.field) || r.Diagnostics.NextStep == "" {
					t.Errorf("%v: isError=%v diagnostics=%+v", tc.args, res.IsError, r.Diagnostics)
				}
			}
		})
	})
}

func TestSearchActions(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		names := func(args map[string]any) []string {
			t.Helper()
			_, r := mcptest.CallTool(t, cs, "search_actions", args)
			pg := mcptest.Decode[pageResult](t, r.Result)
			var out []string
			for _, b := range pg.Actions {
				out = append(out, b.Name)
			}
			return out
		}
		if got := names(map[string]any{"query": "GROUP_MSG"}); len(got) == 0 || got[0] != "send_group_msg" {
			t.Errorf("substring: %v, want send_group_msg first", got)
		}
		// Every plain substring match stays in the answer.
		if got := names(map[string]any{"query": "群消息"}); len(got) == 0 || got[0] != "send_group_msg" ||
			!slices.Contains(got, "get_group_msg_history") || !slices.Contains(got, "mark_group_msg_as_read") {
			t.Errorf("群消息: %v, want send_group_msg first and the substring matches kept", got)
		}
		for q, want := range map[string]string{"撤回消息": "delete_msg", "踢人": "set_group_kick", "上传群文件": "upload_group_file", "改群名片": "set_group_card"} {
			if got := names(map[string]any{"query": q}); len(got) == 0 || got[0] != want {
				t.Errorf("%s: %v, want %s first", q, got, want)
			}
		}
		for _, q := range []string{"群 禁言", "mute", "禁言"} {
			if got := names(map[string]any{"query": q, "match": "keywords"}); !slices.Contains(got, "set_group_ban") {
				t.Errorf("keywords %q: %v", q, got)
			}
		}
		if got := names(map[string]any{"query": "get_msg", "match": "keywords"}); len(got) == 0 || got[0] != "get_msg" {
			t.Errorf("exact name not first: %v", got)
		}
		if got := names(map[string]any{"query": "send", "match": "keywords", "read_only": true}); slices.Contains(got, "send_group_msg") {
			t.Errorf("read_only filter let send_group_msg through: %v", got)
		}
		_, r := mcptest.CallTool(t, cs, "search_actions", map[string]any{"query": "msg", "limit": 1})
		pg := mcptest.Decode[pageResult](t, r.Result)
		if pg.Count != 1 || pg.Total == nil || *pg.Total < 2 || string(pg.NextOffset) != "1" {
			t.Errorf("paged search: %+v", pg)
		}
		res, r := mcptest.CallTool(t, cs, "search_actions", map[string]any{"query": "x", "match": "regex"})
		if !res.IsError || !strings.Contains(r.Diagnostics.Message, "/match") {
			t.Errorf("bad match: %+v", r.Diagnostics)
		}
		res, r = mcptest.CallTool(t, cs, "search_actions", map[string]any{})
		if !res.IsError || !strings.Contains(r.Diagnostics.Message, "query") {
			t.Errorf("missing query: %+v", r.Diagnostics)
		}
	})
}

type fullAction struct {
	Name          string          `json:"name"`
	Aliases       []string        `json:"aliases"`
	Params        []any           `json:"params"`
	ReturnsSchema json.RawMessage `json:"returnsSchema"`
	Examples      []any           `json:"examples"`
	InputSchema   map[string]any  `json:"inputSchema"`
}

func TestGetAction(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		_, r := mcptest.CallTool(t, cs, "get_action", map[string]any{"name": "send_group_msg"})
		a := mcptest.Decode[fullAction](t, r.Result)
		if a.Name != "send_group_msg" || len(a.Params) == 0 || len(a.Examples) == 0 || len(a.ReturnsSchema) == 0 || a.InputSchema["type"] != "object" {
			t.Errorf("entry incomplete: %s", r.Result)
		}
		if req, _ := a.InputSchema["required"].([]any); !slices.Contains(req, any("group_id")) || !slices.Contains(req, any("message")) {
			t.Errorf("inputSchema required = %v", a.InputSchema["required"])
		}

		// An alias returns its target's full entry.
		_, r = mcptest.CallTool(t, cs, "get_action", map[string]any{"name": "get_ptt_text"})
		if a := mcptest.Decode[fullAction](t, r.Result); a.Name != "fetch_ptt_text" || !slices.Contains(a.Aliases, "get_ptt_text") {
			t.Errorf("alias lookup: %s", r.Result)
		}

		res, r := mcptest.CallTool(t, cs, "get_action", map[string]any{"name": "send_grup_msg"})
		if !res.IsError || r.Diagnostics.Kind != "unknown_action" || string(r.Result) != "null" {
			t.Fatalf("unknown name: %+v", r)
		}
		if !strings.Contains(r.Diagnostics.Message, `"send_grup_msg"`) || !strings.Contains(r.Diagnostics.NextStep, "send_group_msg") {
			t.Errorf("unknown name diagnostics: %+v", r.Diagnostics)
		}
		// A word or a synonym instead of a name leads to the action.
		for _, name := range []string{"禁言", "set_group_mute"} {
			res, r := mcptest.CallTool(t, cs, "get_action", map[string]any{"name": name})
			if !res.IsError || r.Diagnostics.Kind != "unknown_action" || !strings.HasPrefix(r.Diagnostics.NextStep, "did you mean set_group_ban,") {
				t.Errorf("get_action %s: %+v", name, r.Diagnostics)
			}
		}
	})
}

func TestListCategories(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		_, r := mcptest.CallTool(t, cs, "list_categories", nil)
		cats := mcptest.Decode[[]struct {
			Category string `json:"category"`
			Label    string `json:"label"`
			Count    int    `json:"count"`
		}](t, r.Result)
		if len(cats) == 0 || cats[0].Category != "信息" || cats[0].Label != "Information" {
			t.Errorf("categories: %+v", cats)
		}
	})
}

func TestCatalogResource(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		lr, err := cs.ListResources(mcptest.Context(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		// The catalog and the failure vocabulary, both JSON.
		var uris []string
		for _, r := range lr.Resources {
			if r.MIMEType != "application/json" {
				t.Errorf("%s: MIME type %q", r.URI, r.MIMEType)
			}
			uris = append(uris, r.URI)
		}
		slices.Sort(uris)
		if !slices.Equal(uris, []string{"snowluma://mcp/failure-kinds", "snowluma://onebot/actions"}) {
			t.Fatalf("resources: %v", uris)
		}
		rr, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: "snowluma://onebot/actions"})
		if err != nil {
			t.Fatal(err)
		}
		doc := mcptest.Decode[struct {
			Version    string `json:"version"`
			Categories []struct {
				Count int `json:"count"`
			} `json:"categories"`
			Actions []fullAction `json:"actions"`
		}](t, json.RawMessage(rr.Contents[0].Text))
		if doc.Version != "1.11.1" || len(doc.Categories) == 0 {
			t.Errorf("version %q, %d categories", doc.Version, len(doc.Categories))
		}
		n := 0
		for _, c := range doc.Categories {
			n += c.Count
		}
		if n != len(doc.Actions) {
			t.Errorf("categories count %d, %d actions", n, len(doc.Actions))
		}
		for _, a := range doc.Actions {
			if len(a.ReturnsSchema) == 0 || len(a.Examples) == 0 || a.InputSchema == nil {
				t.Errorf("%s: entry is not complete", a.Name)
			}
		}
	})
}

// TestSearchWeakMatch checks honest confidence over the wire: a request no
// action answers comes back with diagnostics.match "weak", a next step that
// names a category to browse, and no destructive action first; a clear
// request comes back without the note.
func TestSearchWeakMatch(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		for _, q := range []string{"解散群聊", "发个红包", "转让群主", "bot主动退群"} {
			_, r := mcptest.CallTool(t, cs, "search_actions", map[string]any{"query": q})
			pg := mcptest.Decode[pageResult](t, r.Result)
			if q == "bot主动退群" {
				// Not weak: 退群 is set_group_leave, never bot_exit.
				if r.Diagnostics.Match != "" || len(pg.Actions) == 0 || pg.Actions[0].Name != "set_group_leave" {
					t.Errorf("%s: %+v, first %v", q, r.Diagnostics, pg.Actions[:min(1, len(pg.Actions))])
				}
				continue
			}
			if r.Diagnostics.Match != "weak" || !strings.Contains(r.Diagnostics.NextStep, "list_actions {category:") {
				t.Errorf("%s: diagnostics %+v, want a weak match and a category to browse", q, r.Diagnostics)
			}
			if len(pg.Actions) > 0 && pg.Actions[0].Destructive {
				t.Errorf("%s: a weak match led by destructive %s", q, pg.Actions[0].Name)
			}
		}
		_, r := mcptest.CallTool(t, cs, "search_actions", map[string]any{"query": "禁言群組成員"})
		pg := mcptest.Decode[pageResult](t, r.Result)
		if r.Diagnostics.Match != "" || len(pg.Actions) == 0 || pg.Actions[0].Name != "set_group_ban" {
			t.Errorf("禁言群組成員: %+v, %v", r.Diagnostics, pg.Actions[:min(3, len(pg.Actions))])
		}
	})
}

// TestHostileNames checks that a 256 KiB name or query costs no edit
// distance and is never echoed whole, through get_action, search_actions
// and the action resource.
func TestHostileNames(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("set_group_ban", 256<<10/13)
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		res, r := mcptest.CallTool(t, cs, "get_action", map[string]any{"name": huge})
		if !res.IsError || r.Diagnostics.Kind != "unknown_action" || len(r.Diagnostics.Message) > 300 || len(r.Diagnostics.NextStep) > 300 {
			t.Errorf("get_action of a huge name: kind %s, message %d bytes, next step %d bytes", r.Diagnostics.Kind, len(r.Diagnostics.Message), len(r.Diagnostics.NextStep))
		}
		_, r = mcptest.CallTool(t, cs, "search_actions", map[string]any{"query": strings.Repeat("mute member ", 256<<10/12)})
		if pg := mcptest.Decode[pageResult](t, r.Result); len(pg.Actions) == 0 || pg.Actions[0].Name != "set_group_ban" || len(r.Diagnostics.Message) > 300 {
			t.Errorf("search_actions of a huge query: %+v", r.Diagnostics)
		}
		_, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: "snowluma://onebot/actions/" + huge})
		if err == nil || len(err.Error()) > 600 {
			t.Errorf("action resource of a huge name: %d bytes of error", len(fmt.Sprint(err)))
		}
	})
}
