package events

import (
	"fmt"
	"slices"
)

// The event categories a filter may name. message_sent events (the bot's
// own sent messages) count as message; meta events are connection
// housekeeping and are never buffered.
const (
	TypeMessage = "message"
	TypeNotice  = "notice"
	TypeRequest = "request"
)

// AllTypes is the category list of a filter that names none.
var AllTypes = []string{TypeMessage, TypeNotice, TypeRequest}

// Filter selects the events one resource buffers. Its parts are combined with
// AND: an event must be of one of Types and, when GroupIDs is set, carry one
// of those group_id values and, when UserIDs is set, one of those user_id
// values. An event without a group_id never passes a group filter.
type Filter struct {
	// SelfID is the logged-in account every event must carry. It is not a
	// filter: an event of another account stops the connection.
	SelfID   int64    `json:"self_id"`
	Types    []string `json:"types"`
	GroupIDs []int64  `json:"group_ids"`
	UserIDs  []int64  `json:"user_ids"`
}

// Normalize checks f and returns it as applied: types deduplicated in their
// canonical order (all three when none are named), ID lists deduplicated and
// sorted, and nil when empty (no restriction).
func (f Filter) Normalize() (Filter, error) {
	if f.SelfID <= 0 {
		return Filter{}, filterError("self_id", fmt.Sprintf("%d is not a positive account id; use the logged-in account's user_id (get_login_info)", f.SelfID))
	}
	out := Filter{SelfID: f.SelfID}
	if len(f.Types) == 0 {
		out.Types = slices.Clone(AllTypes)
	} else {
		for _, t := range f.Types {
			if !slices.Contains(AllTypes, t) {
				return Filter{}, filterError("types", fmt.Sprintf("%q is not an event type; accepted: message, notice, request (message_sent is part of message)", t))
			}
		}
		for _, t := range AllTypes {
			if slices.Contains(f.Types, t) {
				out.Types = append(out.Types, t)
			}
		}
	}
	var err error
	if out.GroupIDs, err = idSet("group_ids", f.GroupIDs); err != nil {
		return Filter{}, err
	}
	if out.UserIDs, err = idSet("user_ids", f.UserIDs); err != nil {
		return Filter{}, err
	}
	return out, nil
}

// idSet returns ids sorted and without duplicates, checking each is positive
// and that there are at most MaxFilterIDs of them.
func idSet(field string, ids []int64) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	out = slices.Compact(out)
	if out[0] <= 0 {
		return nil, filterError(field, fmt.Sprintf("%d is not a positive id", out[0]))
	}
	if len(out) > MaxFilterIDs {
		return nil, filterError(field, fmt.Sprintf("%d distinct ids given; at most %d are accepted", len(out), MaxFilterIDs))
	}
	return out, nil
}

// match reports whether an account event passes f. Meta events never do.
func (f *Filter) match(e *frame) bool {
	if e.category == "" || !slices.Contains(f.Types, e.category) {
		return false
	}
	if f.GroupIDs != nil && (!e.hasGroup || !containsSorted(f.GroupIDs, e.groupID)) {
		return false
	}
	if f.UserIDs != nil && (!e.hasUser || !containsSorted(f.UserIDs, e.userID)) {
		return false
	}
	return true
}

func containsSorted(s []int64, v int64) bool {
	_, ok := slices.BinarySearch(s, v)
	return ok
}
