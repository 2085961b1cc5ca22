package safety

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// An IDSet is an allowlist of group or user ids. The nil set allows every
// id.
type IDSet map[int64]struct{}

// ParseIDs reads a comma-separated list of positive ids. Blank input means
// no restriction (nil); a list with no ids, such as ",", is an error, since
// it would forbid everything by accident.
func ParseIDs(s string) (IDSet, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	set := IDSet{}
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, err := strconv.ParseInt(part, 10, 64)
		if err != nil || id <= 0 || strings.TrimLeft(part, "0123456789") != "" {
			return nil, fmt.Errorf("item %d (%q) is not a positive integer id", i+1, part)
		}
		set[id] = struct{}{}
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("the list holds no id")
	}
	return set, nil
}

// Allows reports whether id is in the set (always, for the nil set).
func (s IDSet) Allows(id int64) bool {
	if s == nil {
		return true
	}
	_, ok := s[id]
	return ok
}

// Sorted lists the ids in ascending order; nil for the nil set.
func (s IDSet) Sorted() []int64 {
	if s == nil {
		return nil
	}
	ids := make([]int64, 0, len(s))
	for id := range s {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// CheckTargets returns a description of each target the allowlists do not
// allow ("group:1", "user:2", the way every answer names a chat or a
// user), or nil when every target is allowed. An unreadable id is refused
// whenever its field's list is set, since the list cannot vouch for it.
func (p *Policy) CheckTargets(t Targets) []string {
	var out []string
	for _, g := range t.Groups {
		if !p.Groups.Allows(g) {
			out = append(out, "group:"+strconv.FormatInt(g, 10))
		}
	}
	for _, u := range t.Users {
		if !p.Users.Allows(u) {
			out = append(out, "user:"+strconv.FormatInt(u, 10))
		}
	}
	for i, v := range t.Unreadable {
		group := i < len(t.unreadableGroup) && t.unreadableGroup[i]
		if (group && p.Groups != nil) || (!group && p.Users != nil) {
			out = append(out, v+" (not an id)")
		}
	}
	return out
}

// Restricted reports whether either allowlist is set.
func (p *Policy) Restricted() bool { return p.Groups != nil || p.Users != nil }
