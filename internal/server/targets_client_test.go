package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// targetsResult is find_targets' result.
type targetsResult struct {
	Count      int `json:"count"`
	Total      int `json:"total"`
	Targets    int `json:"targets"`
	Candidates []struct {
		Kind    string `json:"kind"`
		ID      int64  `json:"id"`
		GroupID int64  `json:"group_id"`
		Name    string `json:"name"`
		Field   string `json:"field"`
		Match   string `json:"match"`
	} `json:"candidates"`
	Trust string `json:"trust"`
}

// candidates lists a result's candidates as kind:id@group(field=match).
func (r targetsResult) candidates() []string {
	var out []string
	for _, c := range r.Candidates {
		s := fmt.Sprintf("%s:%d", c.Kind, c.ID)
		if c.GroupID != 0 {
			s += fmt.Sprintf("@%d", c.GroupID)
		}
		out = append(out, s+"("+c.Field+"="+c.Match+")")
	}
	return out
}

// TestFindTargets resolves names end to end in both eras, in read and
// write mode, against the fake's groups, members and friends: one person
// under one name, an ambiguous name (every candidate, nothing picked),
// traditional characters, one group's members, and the lists read once
// within the cache's lifetime.
func TestFindTargets(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		for _, mode := range []string{"read", "write"} {
			fake, _, cs := e2e.Live(t, serve, era, mode, nil)
			find := func(args map[string]any) (targetsResult, mcptest.ToolResult) {
				t.Helper()
				res, r := mcptest.CallTool(t, cs, "find_targets", args)
				if res.IsError {
					t.Fatalf("%s %v: %+v", mode, args, r.Diagnostics)
				}
				return mcptest.Decode[targetsResult](t, r.Result), r
			}
			got, r := find(map[string]any{"query": "張三"})
			if want := []string{"friend:30001(nickname=exact)", "member:30001@20001(nickname=exact)", "member:30001@20002(nickname=exact)"}; !slices.Equal(got.candidates(), want) ||
				got.Targets != 1 || r.Diagnostics.Message != "" || !strings.HasPrefix(got.Trust, "untrusted") {
				t.Errorf("%s 張三: %v, %d targets, %+v", mode, got.candidates(), got.Targets, r.Diagnostics)
			}
			got, r = find(map[string]any{"query": "王"})
			if want := []string{"member:30010@20001(nickname=prefix)", "member:30020@20002(card=contains)"}; !slices.Equal(got.candidates(), want) ||
				got.Targets != 2 || !strings.Contains(r.Diagnostics.Message, "ambiguous") || !strings.Contains(r.Diagnostics.NextStep, "never pick") {
				t.Errorf("%s 王: %v, %+v", mode, got.candidates(), r.Diagnostics)
			}
			got, _ = find(map[string]any{"query": "摸鱼小分队"})
			if !slices.Equal(got.candidates(), []string{"group:20002(group_name=exact)"}) {
				t.Errorf("%s 摸鱼小分队: %v", mode, got.candidates())
			}
			got, _ = find(map[string]any{"query": "@张三", "group_id": 20002})
			if !slices.Equal(got.candidates(), []string{"member:30001@20002(nickname=exact)"}) {
				t.Errorf("%s 张三 in 20002: %v", mode, got.candidates())
			}
			got, r = find(map[string]any{"query": "无此人"})
			if got.Count != 0 || !strings.Contains(r.Diagnostics.NextStep, "get_friend_list") {
				t.Errorf("%s nobody: %+v, %+v", mode, got, r.Diagnostics)
			}
			for _, action := range []string{"get_group_list", "get_friend_list"} {
				if n := countRequests(fake, action); n != 1 {
					t.Errorf("%s: %d %s requests for five lookups, want 1 (the cache)", mode, n, action)
				}
			}
		}
	})
}

// TestFindTargetsAllowlist checks that a group the allowlist leaves out is
// neither searched nor proposed, and refused when named.
func TestFindTargetsAllowlist(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_ALLOWED_GROUPS=20001")
		res, r := mcptest.CallTool(t, cs, "find_targets", map[string]any{"query": "赵六", "group_id": 20002})
		if !res.IsError || r.Diagnostics.Kind != "target_not_allowed" || !strings.Contains(r.Diagnostics.Message, "20002") {
			t.Errorf("a group outside the list: %+v", r.Diagnostics)
		}
		// 摸鱼小分队 (20002) and 赵六, who is only in it, are out of reach.
		for _, q := range []string{"摸鱼", "赵六"} {
			_, r := mcptest.CallTool(t, cs, "find_targets", map[string]any{"query": q})
			if got := mcptest.Decode[targetsResult](t, r.Result); got.Count != 0 {
				t.Errorf("%s: %v, want nothing", q, got.candidates())
			}
		}
		for _, req := range fake.Requests() {
			if req.Action == "get_group_member_list" && strings.Contains(string(req.Params), "20002") {
				t.Errorf("the members of 20002 were read: %s", req.Params)
			}
		}
	})
}

// TestFindTargetsModes checks that docs mode does not offer find_targets,
// and that a SnowLuma that is down gives a failure with its kind.
func TestFindTargetsModes(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		res, r := mcptest.CallTool(t, docsSession(t, era), "find_targets", map[string]any{"query": "张三"})
		if !res.IsError || r.Diagnostics.Kind != "mode_gate" {
			t.Errorf("docs mode: %+v", r.Diagnostics)
		}
		fake, _, cs := e2e.Live(t, serve, era, "read", nil)
		fake.Close()
		res, r = mcptest.CallTool(t, cs, "find_targets", map[string]any{"query": "张三"})
		if !res.IsError || r.Diagnostics.Kind == "" || r.Diagnostics.Kind == "internal" {
			t.Errorf("SnowLuma down: %+v", r.Diagnostics)
		}
	})
}

// countRequests is how many requests fake received for action.
func countRequests(fake *simulator.Server, action string) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.Action == action {
			n++
		}
	}
	return n
}
