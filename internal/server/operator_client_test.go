package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// TestPastedTokenAndUserAgent checks, over the wire, that a token pasted
// with a CRLF line end still authenticates (it is trimmed at start) and that
// every request names the server in its User-Agent.
func TestPastedTokenAndUserAgent(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken+"\r\n")
		res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if res.IsError || r.Diagnostics.Outcome != "success" {
			t.Fatalf("with a CRLF-ended token: %+v", r.Diagnostics)
		}
		reqs := fake.Requests()
		if len(reqs) == 0 {
			t.Fatal("nothing reached SnowLuma")
		}
		for _, req := range reqs {
			if ua := req.Header.Get("User-Agent"); !strings.HasPrefix(ua, "snowluma-mcp/") || len(ua) == len("snowluma-mcp/") {
				t.Errorf("%s: User-Agent %q, want snowluma-mcp/<version>", req.Action, ua)
			}
		}
		// Started by a host, with stdin a pipe: no terminal hint.
		if strings.Contains(p.Stderr(), hintWords) {
			t.Errorf("terminal hint with stdin a pipe: %q", p.Stderr())
		}
	})
}

// TestProtocolFailureNamesWhatCame checks that an answer that is not a
// OneBot envelope (the wrong path of some web server) is reported with its
// HTTP status and content type.
func TestProtocolFailureNamesWhatCame(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil)
		fake.Handle("get_status", func(json.RawMessage) simulator.Reply {
			return simulator.Reply{Status: 404, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found")}
		})
		res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if !res.IsError || r.Diagnostics.Kind != "protocol" ||
			!strings.Contains(r.Diagnostics.Message, "HTTP 404, text/plain: not a OneBot envelope") ||
			!strings.Contains(r.Diagnostics.Message, "check the endpoint path") {
			t.Errorf("diagnostics %+v", r.Diagnostics)
		}
		if strings.Contains(r.Diagnostics.Message, "page not found") {
			t.Errorf("the body is quoted: %q", r.Diagnostics.Message)
		}
	})
}

// TestSearchAsOperatorsDo drives search_actions the way a Chinese-speaking
// operator's agent does: Chinese substrings, the best action first, stubs
// last and marked, and an empty search that says what to try.
func TestSearchAsOperatorsDo(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		search := func(args map[string]any) (pageResult, mcptest.ToolResult) {
			t.Helper()
			_, r := mcptest.CallTool(t, cs, "search_actions", args)
			return mcptest.Decode[pageResult](t, r.Result), r
		}
		names := func(pg pageResult) []string {
			var out []string
			for _, b := range pg.Actions {
				out = append(out, b.Name)
			}
			return out
		}
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"禁言", []string{"set_group_ban", "set_group_whole_ban"}},
			{"撤回", []string{"delete_msg"}},
			{"好友", []string{"get_friend_list", "delete_friend", "set_friend_add_request"}},
			{"上传", []string{"upload_group_file", "upload_private_file"}},
		} {
			pg, _ := search(map[string]any{"query": tc.query})
			for _, w := range tc.want {
				if !slices.Contains(names(pg), w) {
					t.Errorf("substring %q: %s not among %v", tc.query, w, names(pg))
				}
			}
			for _, b := range pg.Actions {
				if b.Summary == "" {
					t.Errorf("%s: light entry without a summary: %+v", b.Name, b)
				}
			}
		}

		pg, _ := search(map[string]any{"query": "群 禁言", "match": "keywords"})
		got := names(pg)
		if len(got) == 0 || got[0] != "set_group_ban" {
			t.Errorf("群 禁言: %v, want set_group_ban first", got)
		}
		if last := pg.Actions[len(pg.Actions)-1]; last.Name != "set_group_anonymous_ban" || last.Supported == nil || *last.Supported {
			t.Errorf("群 禁言: the stub is not last with supported false: %+v", last)
		}
		for _, b := range pg.Actions[:len(pg.Actions)-1] {
			if b.Supported != nil {
				t.Errorf("%s carries supported %v", b.Name, *b.Supported)
			}
		}
		pg, _ = search(map[string]any{"query": "send message", "match": "keywords"})
		if got := names(pg); len(got) < 2 || !slices.ContainsFunc(got[:2], func(n string) bool { return n == "send_msg" || n == "send_group_msg" }) {
			t.Errorf("send message: %v, want send_msg or send_group_msg in the top two", got)
		}

		// Unspaced Chinese is cut into words in the default mode too.
		pg, _ = search(map[string]any{"query": "把他踢出群"})
		if got := names(pg); len(got) == 0 || got[0] != "set_group_kick" {
			t.Errorf("把他踢出群: %v, want set_group_kick first", got)
		}
		pg, r := search(map[string]any{"query": "zzzzz"})
		if pg.Count != 0 || r.Diagnostics.Outcome != "success" || !strings.Contains(r.Diagnostics.Message, "no action") ||
			!strings.Contains(r.Diagnostics.NextStep, "list_actions") {
			t.Errorf("empty search: %+v %+v", pg, r.Diagnostics)
		}
		pg, r = search(map[string]any{"query": "zzzzz yyyyy", "match": "keywords", "read_only": true})
		if pg.Count != 0 || !strings.Contains(r.Diagnostics.Message, "no action matches any word") ||
			!strings.Contains(r.Diagnostics.NextStep, "filters") {
			t.Errorf("empty keyword search: %+v %+v", pg, r.Diagnostics)
		}
		pg, r = search(map[string]any{"query": "禁言", "limit": 5})
		if pg.Count == 0 || r.Diagnostics.Message != "" {
			t.Errorf("a search that finds something carries a message: %+v", r.Diagnostics)
		}

		rr, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: "snowluma://onebot/actions"})
		if err != nil {
			t.Fatal(err)
		}
		doc := mcptest.Decode[struct {
			Actions []catalog.Action `json:"actions"`
		}](t, json.RawMessage(rr.Contents[0].Text))
		for _, a := range doc.Actions {
			if a.SummaryZh == "" || a.CategoryLabel == "" {
				t.Errorf("resource: %s lacks summaryZh or categoryLabel", a.Name)
			}
		}

		_, r = mcptest.CallTool(t, cs, "get_action", map[string]any{"name": "set_group_anonymous_ban"})
		a := mcptest.Decode[catalog.Action](t, r.Result)
		if !strings.Contains(a.SummaryZh, "禁言") || a.CategoryLabel != "Group administration" || a.Supported == nil || *a.Supported {
			t.Errorf("get_action of a stub: %s", r.Result)
		}
	})
}

// TestFailuresPointAtTheCause checks the next steps of invalid_params and of
// a read-only action's timeout.
func TestFailuresPointAtTheCause(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_TIMEOUT_MS=400")

		for _, tc := range []struct {
			action   string
			params   map[string]any
			field    string
			validate bool // the next step offers SNOWLUMA_MCP_VALIDATE_PARAMS
		}{
			{"get_msg", map[string]any{"message_id": "abc"}, "message_id", false},
			{"get_msg", map[string]any{}, "message_id", false},
			{"get_record", map[string]any{"file": "a.amr", "out_format": "opus"}, "out_format", true},
			{"get_recent_contact", map[string]any{"count": "ten"}, "count", true},
		} {
			res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": tc.action, "params": tc.params})
			if !res.IsError || r.Diagnostics.Kind != "invalid_params" || !strings.Contains(r.Diagnostics.Message, "/"+tc.field) ||
				!strings.HasPrefix(r.Diagnostics.NextStep, "fix the named params") {
				t.Errorf("%s %v: %+v", tc.action, tc.params, r.Diagnostics)
				continue
			}
			if got := strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_VALIDATE_PARAMS"); got != tc.validate {
				t.Errorf("%s %v: next step %q mentions SNOWLUMA_MCP_VALIDATE_PARAMS: %v, want %v", tc.action, tc.params, r.Diagnostics.NextStep, got, tc.validate)
			}
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("invalid params reached SnowLuma %d times", n)
		}

		fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Reply{Delay: 5 * time.Second} })
		res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if !res.IsError || r.Diagnostics.Kind != "timeout" || strings.Contains(r.Diagnostics.NextStep, "may still") ||
			!strings.Contains(r.Diagnostics.NextStep, "only reads") || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_TIMEOUT_MS") {
			t.Errorf("read-only timeout: %+v", r.Diagnostics)
		}

	})
}

// TestCheckConnectionProbesAtOnce checks that check_connection's three
// probes are in flight together: each waits until all three have arrived,
// or, if they came one by one, until a generous limit well inside the call
// timeout, which marks them as not together.
func TestCheckConnectionProbesAtOnce(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil)
		var mu sync.Mutex
		arrived := 0
		all := make(chan struct{})
		together := true
		probe := func(json.RawMessage) simulator.Reply {
			mu.Lock()
			arrived++
			if arrived == 3 {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				mu.Lock()
				together = false
				mu.Unlock()
			}
			return simulator.OK(map[string]any{})
		}
		for _, a := range []string{"get_login_info", "get_status", "get_version_info"} {
			fake.Handle(a, probe)
		}
		_, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{"check_connection": true})
		mu.Lock()
		defer mu.Unlock()
		if arrived != 3 || !together {
			t.Errorf("check_connection: %d probes arrived, together %v", arrived, together)
		}
		info := mcptest.Decode[struct {
			Checks map[string]json.RawMessage `json:"checks"`
		}](t, r.Result)
		if len(info.Checks) != 3 {
			t.Errorf("checks: %s", r.Result)
		}
	})
}
