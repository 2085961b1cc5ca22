package completion

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// The kinds of target FindTargets resolves a name to.
const (
	KindGroup  = "group"  // a group the account is in, by its name
	KindMember = "member" // a member of a group, by card or nickname
	KindFriend = "friend" // a friend, by remark or nickname
)

// How a name matched, best first.
const (
	MatchExact    = "exact"    // the whole name, after normalization
	MatchPrefix   = "prefix"   // the name starts with the query
	MatchContains = "contains" // the name holds the query
)

// MaxScannedGroups bounds the member lists one FindTargets without a group
// reads; past it the answer says how many groups it left out.
const MaxScannedGroups = 20

// A Candidate is one target a name may mean, with what matched. It never
// holds more than the list SnowLuma answered: a group's number, a
// person's QQ number and the name that matched.
type Candidate struct {
	Kind string `json:"kind"`
	// ID is the group number of a group, the QQ number of a member or
	// friend.
	ID int64 `json:"id"`
	// GroupID is a member's group.
	GroupID int64 `json:"group_id,omitempty"`
	// Name is the name that matched, as SnowLuma gave it.
	Name string `json:"name"`
	// Field is where Name came from: group_name, card, nickname or
	// remark.
	Field string `json:"field"`
	Match string `json:"match"`
}

// Found is FindTargets' answer.
type Found struct {
	// Candidates are at most MaxValues candidates, best match first.
	Candidates []Candidate
	// Total is how many candidates matched, Candidates included.
	Total int
	// Targets is how many distinct groups and people the candidates name
	// (a person in two groups and a friend is one); more than one means
	// the name is ambiguous, and nothing may be picked for the caller.
	Targets int
	// SkippedGroups is how many groups' members were not searched
	// (beyond MaxScannedGroups).
	SkippedGroups int
}

// ErrGroupNotAllowed refuses a group the allowlist leaves out.
var ErrGroupNotAllowed = errors.New("the group is not in SNOWLUMA_MCP_ALLOWED_GROUPS")

// FindTargets resolves query, a name as an operator says it (张三, 工作群,
// @老李), to the groups and people it may mean: with group non-zero, the
// members of that group by card or nickname; otherwise the groups by name,
// the friends by remark or nickname, and the members of every group (up to
// MaxScannedGroups). Names match after Fold, so case, full-width forms and
// traditional characters do not matter, as a whole, a prefix or a part;
// the lists are those completion reads, cached for CacheTTL. Groups and
// people the allowlists leave out are never proposed, and a group they
// leave out is refused. Every candidate is returned; FindTargets never
// picks one.
func (c *Completer) FindTargets(ctx context.Context, query string, group int64) (Found, error) {
	value := strings.TrimLeft(Fold(quote.Prefix(query, MaxInput)), "@＠ ")
	if value == "" {
		return Found{}, errors.New("the name is blank")
	}
	cands := []Candidate{}
	add := func(kind string, items []item, groupID int64) {
		for _, it := range items {
			if how, i, ok := nameMatch(it, value); ok {
				cands = append(cands, Candidate{Kind: kind, ID: it.id, GroupID: groupID, Name: it.raw[i], Field: it.fields[i], Match: how})
			}
		}
	}
	var found Found
	if group != 0 {
		if !c.opts.Groups.Allows(group) {
			return Found{}, ErrGroupNotAllowed
		}
		members, err := c.memberList(ctx, group)
		if err != nil {
			return Found{}, err
		}
		add(KindMember, c.allowedUsers(members), group)
	} else {
		groups, err := c.fetchList(ctx, "groups", ActionGroupList, nil, decodeGroups)
		if err != nil {
			return Found{}, fmt.Errorf("reading the group list: %w", err)
		}
		groups = slices.DeleteFunc(slices.Clone(groups), func(it item) bool { return !c.opts.Groups.Allows(it.id) })
		add(KindGroup, groups, 0)
		friends, err := c.fetchList(ctx, "friends", ActionFriendList, nil, decodeFriends)
		if err != nil {
			return Found{}, fmt.Errorf("reading the friend list: %w", err)
		}
		add(KindFriend, c.allowedUsers(friends), 0)
		for i, g := range groups {
			if i == MaxScannedGroups {
				found.SkippedGroups = len(groups) - i
				break
			}
			members, err := c.memberList(ctx, g.id)
			if err != nil {
				return Found{}, err
			}
			add(KindMember, c.allowedUsers(members), g.id)
		}
	}
	rank := map[string]int{MatchExact: 0, MatchPrefix: 1, MatchContains: 2}
	slices.SortStableFunc(cands, func(a, b Candidate) int { return rank[a.Match] - rank[b.Match] })
	targets := map[string]bool{}
	for _, cd := range cands {
		key := "user:" + strconv.FormatInt(cd.ID, 10)
		if cd.Kind == KindGroup {
			key = "group:" + strconv.FormatInt(cd.ID, 10)
		}
		targets[key] = true
	}
	found.Candidates, found.Total, found.Targets = cands[:min(len(cands), MaxValues)], len(cands), len(targets)
	return found, nil
}

// memberList reads group's member list through the cache.
func (c *Completer) memberList(ctx context.Context, group int64) ([]item, error) {
	params := fmt.Appendf(nil, `{"group_id":%d}`, group)
	items, err := c.fetchList(ctx, "members:"+strconv.FormatInt(group, 10), ActionMemberList, params, decodeMembers)
	if err != nil {
		return nil, fmt.Errorf("reading the members of group %d: %w", group, err)
	}
	return items, nil
}

// allowedUsers keeps the people the user allowlist allows.
func (c *Completer) allowedUsers(items []item) []item {
	return slices.DeleteFunc(slices.Clone(items), func(it item) bool { return !c.opts.Users.Allows(it.id) })
}

// nameMatch is the matcher find_targets and completion share: whether the
// folded value matches one of it's names, how (MatchExact, MatchPrefix or
// MatchContains, the best over its names), and which name.
func nameMatch(it item, value string) (how string, name int, ok bool) {
	best := -1
	for i, n := range it.names {
		switch {
		case n == value:
			return MatchExact, i, true
		case strings.HasPrefix(n, value):
			if best < 0 || how != MatchPrefix {
				how, best = MatchPrefix, i
			}
		case strings.Contains(n, value):
			if best < 0 {
				how, best = MatchContains, i
			}
		}
	}
	return how, best, best >= 0
}
