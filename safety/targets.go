package safety

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The fields that name a target. OneBot actions name the group and the user
// they act on with these two top-level params; a batch action (such as
// set_group_kick_members) passes an array, and send_msg and the generic
// forward route by whichever of them is present. Ids nested deeper (the
// sender shown on a forward node, for instance) name no target.
const (
	groupField = "group_id"
	userField  = "user_id"
)

// Targets are the group and user ids an action's params name.
type Targets struct {
	Groups []int64 `json:"groups"`
	Users  []int64 `json:"users"`
	// Unreadable lists the values of group_id or user_id that are not a
	// positive integer id (a fraction, a word, an object), as
	// "field=value". An allowlist cannot vouch for them.
	Unreadable []string `json:"-"`
}

// Empty reports whether the params name no target at all.
func (t Targets) Empty() bool {
	return len(t.Groups) == 0 && len(t.Users) == 0 && len(t.Unreadable) == 0
}

// ExtractTargets reads the group_id and user_id params, each a number, a
// decimal string or an array of them. A null value names nothing. params
// must be a JSON object.
func ExtractTargets(params json.RawMessage) (Targets, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return Targets{}, fmt.Errorf("params are not a JSON object: %w", err)
	}
	var t Targets
	t.Groups, t.Unreadable = readIDs(groupField, fields[groupField], t.Unreadable)
	t.Users, t.Unreadable = readIDs(userField, fields[userField], t.Unreadable)
	return t, nil
}

// readIDs reads one field's ids; what is not an id is added to unreadable.
func readIDs(field string, raw json.RawMessage, unreadable []string) ([]int64, []string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, unreadable
	}
	values := []json.RawMessage{raw}
	if raw[0] == '[' {
		values = nil
		if err := json.Unmarshal(raw, &values); err != nil {
			return nil, append(unreadable, field+"="+clip(raw))
		}
	}
	var ids []int64
	for _, v := range values {
		id, ok := readID(v)
		if !ok {
			unreadable = append(unreadable, field+"="+clip(v))
			continue
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, unreadable
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
func clip(v json.RawMessage) string {
	const max = 40
	s := strings.TrimSpace(string(v))
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

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
