package server

import (
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/safety"
)

// targetParams lists a's params whose catalog role names a group or a
// person, for the allowlist and the pacer: friend_poke's target_id and the
// qzone actions' target_uin name a person as user_id does.
func targetParams(a *catalog.Action) []safety.TargetParam {
	var out []safety.TargetParam
	for _, p := range a.Params {
		if p.Target() {
			out = append(out, safety.TargetParam{Name: p.Name, Group: p.Role == catalog.RoleGroup})
		}
	}
	return out
}
