package untrusted

import (
	"encoding/json"
	"fmt"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/safety"
)

// Targets returns the groups and people a call of a with params acts on,
// as SnowLuma's handler reads them (the action's effect): the ids of the
// params its route reads, and the other params the catalog gives a target
// role (friend_poke's target_id, the qzone actions' target_uin). The
// allowlists, the pacer, the dry run and the audit line use it, so that a
// group_id SnowLuma ignores is neither allowed for, paced, nor recorded
// as where the call went.
func Targets(a *catalog.Action, params json.RawMessage) (safety.Targets, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return safety.Targets{}, fmt.Errorf("params are not a JSON object: %w", err)
	}
	group := safety.TargetParam{Name: "group_id", Group: true}
	user := safety.TargetParam{Name: "user_id"}
	has := func(k string) bool { _, ok := fields[k]; return ok }
	var read []safety.TargetParam
	e, _ := catalog.EffectOf(a.Name)
	switch e.To {
	case catalog.DestGroup:
		read = []safety.TargetParam{group}
	case catalog.DestUser:
		read = []safety.TargetParam{user}
	case catalog.DestMember, catalog.DestEach:
		read = []safety.TargetParam{group, user}
	case catalog.DestSendMsg:
		if jsText(fields["message_type"]) == "group" || has("group_id") {
			read = []safety.TargetParam{group}
		} else {
			read = []safety.TargetParam{user}
		}
	case catalog.DestSendForward:
		g, _ := qqmsg.ParseOutgoingID(fields["group_id"])
		u, _ := qqmsg.ParseOutgoingID(fields["user_id"])
		switch mt := jsText(fields["message_type"]); {
		case mt == "group" || g > 0:
			read = []safety.TargetParam{group}
		case mt == "private" || u > 0:
			read = []safety.TargetParam{user}
		}
	case catalog.DestPoke:
		if has("group_id") && !jsFalsy(fields["group_id"]) {
			read = []safety.TargetParam{group, user}
		} else {
			read = []safety.TargetParam{user}
		}
	}
	for _, p := range a.Params {
		if !p.Target() {
			continue
		}
		if e.To != "" && e.To != catalog.DestMessage && e.To != catalog.DestFlag && e.To != catalog.DestSelf && e.To != catalog.DestPublic &&
			(p.Name == "group_id" || p.Name == "user_id") {
			continue // the route above decides whether SnowLuma reads it
		}
		read = append(read, safety.TargetParam{Name: p.Name, Group: p.Role == catalog.RoleGroup})
	}
	return safety.ExtractOnly(params, read...)
}
