package safety

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// The fields that name a target. OneBot actions name the group and the user
// they act on with these two top-level params; a batch action (such as
// set_group_kick_members) passes an array, and send_msg and the generic
// forward route by whichever of them is present. They are read on every
// action, declared or not. The catalog names the others (friend_poke's
// target_id, the qzone actions' target_uin) by their role; see
// TargetParam. Ids nested in other values (the sender shown on a forward
// node, for instance) name no target.
const (
	groupField = "group_id"
	userField  = "user_id"
)

// A TargetParam is a top-level param whose value names a group (Group) or
// a person: one id, or an array of ids.
type TargetParam struct {
	Name  string
	Group bool
}

// Targets are the group and user ids an action's params name.
type Targets struct {
	Groups []int64 `json:"groups"`
	Users  []int64 `json:"users"`
	// Unreadable lists the values of target params that are not a
	// positive integer id (a fraction, a word, an object), as
	// "field=value". An allowlist cannot vouch for them.
	Unreadable []string `json:"-"`
	// unreadableGroup says, for each of Unreadable, whether its field
	// names a group.
	unreadableGroup []bool
}

// Empty reports whether the params name no target at all.
func (t Targets) Empty() bool {
	return len(t.Groups) == 0 && len(t.Users) == 0 && len(t.Unreadable) == 0
}

// ExtractTargets reads the ids that params name: group_id, user_id and each
// of extra (the action's target params from the catalog), each a number, a
// decimal string or an array of them. A null value names nothing. params
// must be a JSON object.
func ExtractTargets(params json.RawMessage, extra ...TargetParam) (Targets, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return Targets{}, fmt.Errorf("params are not a JSON object: %w", err)
	}
	var t Targets
	read := []TargetParam{{groupField, true}, {userField, false}}
	for _, p := range extra {
		if !slices.ContainsFunc(read, func(q TargetParam) bool { return q.Name == p.Name }) {
			read = append(read, p)
		}
	}
	for _, p := range read {
		if p.Group {
			t.Groups = t.readIDs(p, fields[p.Name], t.Groups)
		} else {
			t.Users = t.readIDs(p, fields[p.Name], t.Users)
		}
	}
	return t, nil
}

// ExtractOnly reads the ids of exactly the params read names, as
// ExtractTargets does, without the implicit group_id and user_id: for a
// caller that knows which params the action's handler reads (a group_id
// beside send_private_msg's user_id names nothing SnowLuma writes to).
func ExtractOnly(params json.RawMessage, read ...TargetParam) (Targets, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return Targets{}, fmt.Errorf("params are not a JSON object: %w", err)
	}
	var t Targets
	for i, p := range read {
		if slices.ContainsFunc(read[:i], func(q TargetParam) bool { return q.Name == p.Name }) {
			continue
		}
		if p.Group {
			t.Groups = t.readIDs(p, fields[p.Name], t.Groups)
		} else {
			t.Users = t.readIDs(p, fields[p.Name], t.Users)
		}
	}
	return t, nil
}

// readIDs adds one field's ids to ids; what is not an id is recorded as
// unreadable.
func (t *Targets) readIDs(p TargetParam, raw json.RawMessage, ids []int64) []int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ids
	}
	if raw[0] == '[' {
		var values []json.RawMessage
		if err := json.Unmarshal(raw, &values); err != nil {
			t.unreadable(p, raw)
			return ids
		}
		for _, v := range values {
			ids = t.addID(p, v, ids)
		}
		return ids
	}
	return t.addID(p, raw, ids)
}

// addID adds the one id v to ids, or records v as unreadable: an array
// inside the array is not an id either.
func (t *Targets) addID(p TargetParam, v json.RawMessage, ids []int64) []int64 {
	id, ok := readID(v)
	if !ok {
		t.unreadable(p, v)
		return ids
	}
	if !slices.Contains(ids, id) {
		ids = append(ids, id)
	}
	return ids
}

func (t *Targets) unreadable(p TargetParam, v json.RawMessage) {
	t.Unreadable = append(t.Unreadable, p.Name+"="+clip(v))
	t.unreadableGroup = append(t.unreadableGroup, p.Group)
}

// readID accepts a positive integer, as a JSON number or a decimal string.
func readID(v json.RawMessage) (int64, bool) {
	v = bytes.TrimSpace(v)
	s := string(v)
	if len(v) > 0 && v[0] == '"' {
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, false
		}
	}
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// clip shortens a value quoted in a refusal: ids are short, anything long
// is not an id and need not be repeated whole.
func clip(v json.RawMessage) string { return quote.Clip(strings.TrimSpace(string(v)), 40) }

// PaceKeys are the keys under which a send is paced: one per target it
// names ("group:1", "user:2"), unreadable values by their text. A send
// that names no target has none and counts only against the per-minute
// budget.
func (t Targets) PaceKeys() []string {
	var keys []string
	for _, g := range t.Groups {
		keys = append(keys, "group:"+strconv.FormatInt(g, 10))
	}
	for _, u := range t.Users {
		keys = append(keys, "user:"+strconv.FormatInt(u, 10))
	}
	return append(keys, t.Unreadable...)
}
