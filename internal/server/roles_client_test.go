package server_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

// idFor is an id in the shape a param's schema takes: a number, a decimal
// string, or an array of one.
func idFor(t *testing.T, p catalog.Param, id int64) any {
	t.Helper()
	var s struct {
		Type  any `json:"type"`
		Items *struct {
			Type any `json:"type"`
		} `json:"items"`
	}
	if err := json.Unmarshal(p.Schema, &s); err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	one := func(typ any) any {
		if typ == "string" {
			return strconv.FormatInt(id, 10)
		}
		return id
	}
	if s.Type == "array" && s.Items != nil {
		return []any{one(s.Items.Type)}
	}
	return one(s.Type)
}

// TestAllowlistFollowsRoles walks every catalog param whose role names a
// group or a person: with that param alone outside the allowlists (every
// other target param inside them), the call is refused naming the id, and
// SnowLuma receives nothing. friend_poke's target_id and the qzone
// actions' target_uin are among them.
func TestAllowlistFollowsRoles(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	const group, user, outside = 20001, 30001, 99999
	fake, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", nil, "SNOWLUMA_MCP_ALLOWED_GROUPS=20001", "SNOWLUMA_MCP_ALLOWED_USERS=30001", "SNOWLUMA_MCP_SENSITIVE=allow")
	walked := map[string]bool{}
	for _, a := range cat.Actions() {
		for _, p := range a.Params {
			if !p.Target() {
				continue
			}
			params := map[string]any{}
			if len(a.Examples) > 0 {
				params = mcptest.Decode[map[string]any](t, a.Examples[0].Params)
			}
			for _, q := range a.Params {
				switch {
				case q.Target() && q.Role == catalog.RoleGroup:
					params[q.Name] = idFor(t, q, group)
				case q.Target():
					params[q.Name] = idFor(t, q, user)
				}
			}
			params[p.Name] = idFor(t, p, outside)
			kind := "user"
			if p.Role == catalog.RoleGroup {
				kind = "group"
			}
			res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": a.Name, "params": params})
			if !res.IsError || r.Diagnostics.Kind != "target_not_allowed" || !strings.Contains(r.Diagnostics.Message, kind+":99999") {
				t.Errorf("%s.%s (%s) outside the allowlist: %+v", a.Name, p.Name, p.Role, r.Diagnostics)
			}
			walked[a.Name+"."+p.Name] = true
		}
	}
	if got := sent(fake); len(got) != 0 {
		t.Errorf("SnowLuma received %v", got)
	}
	for _, want := range []string{"friend_poke.target_id", "like_qzone.target_uin", "comment_qzone.target_uin", "set_group_kick_members.user_id", "set_group_ban.user_id"} {
		if !walked[want] {
			t.Errorf("%s was not walked: has it lost its role?", want)
		}
	}
	if len(walked) < 100 {
		t.Errorf("only %d target params walked", len(walked))
	}
}
