// Package completion proposes values for the arguments a person types into
// a host's prompt or resource form: the bot's groups, the members of a
// group, its friends as message targets, and catalog action names. Groups,
// members and friends come from SnowLuma through a Fetcher; the catalog is
// local. The package knows nothing of MCP; internal/server wires it to
// completion/complete.
//
// Completion sits under a person's input box, so it never fails loudly: a
// SnowLuma that is down, slow or answering something unexpected gives an
// empty list, and lists are kept for CacheTTL so that typing does not send
// one request per key.
package completion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/safety"
)

// Limits of completion.
const (
	// MaxValues is the most values one answer holds, the protocol's cap.
	MaxValues = 100
	// CacheTTL is how long a group, member or friend list fetched from
	// SnowLuma is reused: long enough to cover a person typing one value,
	// short enough that a group joined a minute ago shows up.
	CacheTTL = 30 * time.Second
	// FailureTTL is how long a failed fetch answers empty without asking
	// SnowLuma again, so that a SnowLuma that is down is not asked on every
	// key stroke.
	FailureTTL = 5 * time.Second
	// FetchTimeout bounds one fetch, whatever the client's action timeout:
	// a host waits for completion before it shows anything.
	FetchTimeout = 5 * time.Second
	// MaxInput is the longest value completed; a longer one (nobody types
	// it) answers empty.
	MaxInput = 256
	// maxLists is the most lists the cache holds (the group list, the
	// friend list and member lists); beyond it the oldest is dropped.
	maxLists = 64
	// maxItems is the most entries kept from one list; SnowLuma's largest
	// groups have 3000 members.
	maxItems = 20000
	// maxName is the most bytes of one name kept for matching: QQ's
	// nicknames and cards are far shorter, and a value is at most MaxInput.
	maxName = 128
	// maxListBytes bounds what one cached list holds (entries past it are
	// dropped) and maxCacheBytes all of them (the oldest lists go first),
	// counted as itemBytes counts, so that a SnowLuma answering huge member
	// lists cannot grow the cache without bound.
	maxListBytes  = 2 << 20
	maxCacheBytes = 16 << 20
)

// The SnowLuma actions completion reads. All three are read-only.
const (
	ActionGroupList  = "get_group_list"
	ActionMemberList = "get_group_member_list"
	ActionFriendList = "get_friend_list"
)

// The forms a message target takes: "group:<group id>" or "user:<QQ
// number>" (a private message).
const (
	GroupTarget = "group:"
	UserTarget  = "user:"
)

// A Kind is what an argument's value names, and so how it is completed.
type Kind string

// The kinds of completed values.
const (
	// None is an argument that is not completed (free text, a time).
	None Kind = ""
	// Group is a group id of the bot's groups, matched by id prefix or by
	// name.
	Group Kind = "group"
	// Member is a QQ number of a member of the group named by the
	// context's group_id argument, matched by id prefix, nickname or
	// card.
	Member Kind = "member"
	// Target is a message target: "group:" followed by a group id, or
	// "user:" followed by a friend's QQ number (matched by id, nickname
	// or remark).
	Target Kind = "target"
	// Action is a catalog action name or alias.
	Action Kind = "action"
)

// ContextGroup is the argument of a request's context whose value chooses
// the group whose members Member completes.
const ContextGroup = "group_id"

// A Fetcher runs one read-only SnowLuma action and returns the data of a
// successful answer. Any failure (transport, refusal, a failed envelope) is
// an error; completion reports it as an empty list.
type Fetcher interface {
	Fetch(ctx context.Context, action string, params json.RawMessage) (json.RawMessage, error)
}

// Result is one completion answer.
type Result struct {
	// Values are at most MaxValues values, best first.
	Values []string
	// Total is how many values matched, Values included.
	Total int
	// HasMore is true when more values matched than Values holds.
	HasMore bool
}

// Options configure a Completer.
type Options struct {
	// Fetcher reaches SnowLuma; nil (docs mode) completes actions only and
	// sends nothing.
	Fetcher Fetcher
	// Catalog gives action names; nil completes no action.
	Catalog *catalog.Catalog
	// Groups and Users are the allowlists: a group or user they do not
	// allow is never proposed. Nil allows every id.
	Groups, Users safety.IDSet
	// Now is the clock, time.Now when nil.
	Now func() time.Time
}

// A Completer answers completions. It is safe for concurrent use.
type Completer struct {
	opts Options
	// maxList and maxCache are maxListBytes and maxCacheBytes (a test
	// sets smaller ones, to cross them with small lists).
	maxList, maxCache int

	mu    sync.Mutex
	lists map[string]*list // by cache key
	bytes int              // held by the finished lists in lists
}

// New returns a Completer for opts.
func New(opts Options) *Completer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Completer{opts: opts, lists: map[string]*list{}, maxList: maxListBytes, maxCache: maxCacheBytes}
}

// An item is one entry of a fetched list: its id and the names it is
// matched by, folded for matching, with each name as SnowLuma gave it and
// the field it came from.
type item struct {
	id     int64
	names  []string
	raw    []string
	fields []string
}

// A list is one fetched list in the cache. ready is closed once items and
// err are set; until then concurrent askers wait for the one fetch.
type list struct {
	key     string
	ready   chan struct{}
	items   []item
	bytes   int // the items' itemBytes
	err     error
	expires time.Time
	made    time.Time
}

// itemBytes is about what one item holds in memory: the struct, its names'
// and raw names' headers and bytes, and its field names' headers.
func itemBytes(it item) int {
	n := 80 // the struct and its three slice headers
	for _, name := range it.names {
		n += 16 + len(name)
	}
	for _, raw := range it.raw {
		n += 16 + len(raw)
	}
	return n + 16*len(it.fields) // field names are the caller's constants
}

// Complete proposes values for an argument of kind k whose value so far is
// value. args are the other arguments already chosen (the request's
// context); Member reads its group from them.
func (c *Completer) Complete(ctx context.Context, k Kind, value string, args map[string]string) Result {
	if utf8.RuneCountInString(value) > MaxInput || !utf8.ValidString(value) {
		return Result{}
	}
	switch k {
	case Group:
		return c.groups(ctx, value, "")
	case Member:
		return c.members(ctx, args[ContextGroup], value)
	case Target:
		return c.targets(ctx, value)
	case Action:
		return c.actions(value)
	}
	return Result{}
}

// groups completes group ids, each with prefix before it.
func (c *Completer) groups(ctx context.Context, value, prefix string) Result {
	items := c.fetch(ctx, "groups", ActionGroupList, nil, decodeGroups)
	return match(items, value, prefix, c.opts.Groups)
}

// members completes the QQ numbers of group's members.
func (c *Completer) members(ctx context.Context, group, value string) Result {
	id, ok := parseID(Fold(group))
	if !ok || !c.opts.Groups.Allows(id) {
		return Result{}
	}
	params := fmt.Appendf(nil, `{"group_id":%d}`, id)
	items := c.fetch(ctx, "members:"+strconv.FormatInt(id, 10), ActionMemberList, params, decodeMembers)
	return match(items, value, "", c.opts.Users)
}

// targets completes "group:<id>" from the groups and "user:<id>" from the
// friends; a value that has chosen neither form yet is offered both.
func (c *Completer) targets(ctx context.Context, value string) Result {
	folded := Fold(value)
	if rest, ok := strings.CutPrefix(folded, GroupTarget); ok {
		return c.groups(ctx, rest, GroupTarget)
	}
	if rest, ok := strings.CutPrefix(folded, UserTarget); ok {
		items := c.fetch(ctx, "friends", ActionFriendList, nil, decodeFriends)
		return match(items, rest, UserTarget, c.opts.Users)
	}
	var out []string
	for _, p := range []string{GroupTarget, UserTarget} {
		if strings.HasPrefix(p, folded) {
			out = append(out, p)
		}
	}
	return Result{Values: out, Total: len(out)}
}

// fetch returns the list under key, from the cache when it is fresh, else
// from SnowLuma through one shared fetch. A failure gives nil.
func (c *Completer) fetch(ctx context.Context, key, action string, params json.RawMessage, decode func(json.RawMessage, int) ([]item, error)) []item {
	items, _ := c.fetchList(ctx, key, action, params, decode)
	return items
}

// errNoSnowLuma is the failure of a list wanted where nothing reaches
// SnowLuma (docs mode).
var errNoSnowLuma = errors.New("completion: no SnowLuma to ask")

// fetchList is fetch with the failure: the fetch's own, or the asker's
// context's when it gave up waiting.
func (c *Completer) fetchList(ctx context.Context, key, action string, params json.RawMessage, decode func(json.RawMessage, int) ([]item, error)) ([]item, error) {
	if c.opts.Fetcher == nil {
		return nil, errNoSnowLuma
	}
	now := c.opts.Now()
	c.mu.Lock()
	l, ok := c.lists[key]
	if ok {
		select {
		case <-l.ready:
			if now.After(l.expires) {
				c.drop(key)
				ok = false
			}
		default: // a fetch is under way: wait for it below
		}
	}
	if !ok {
		l = &list{key: key, ready: make(chan struct{}), made: now}
		c.evict(now)
		c.lists[key] = l
		go c.load(ctx, l, action, params, decode)
	}
	c.mu.Unlock()
	select {
	case <-l.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if l.err != nil {
		return nil, l.err
	}
	return l.items, nil
}

// load fetches one list into l and closes l.ready. The fetch is the
// cache's, not the asker's: it outlives the asker's cancellation, since
// others may be waiting for it, but never FetchTimeout; an asker that gives
// up gets an empty answer at once.
func (c *Completer) load(ctx context.Context, l *list, action string, params json.RawMessage, decode func(json.RawMessage, int) ([]item, error)) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), FetchTimeout)
	defer cancel()
	data, err := c.opts.Fetcher.Fetch(fctx, action, params)
	var items []item
	if err == nil {
		items, err = decode(data, c.maxList)
	}
	ttl := CacheTTL
	if err != nil {
		ttl = FailureTTL
	}
	size := 0
	for _, it := range items {
		size += itemBytes(it)
	}
	c.mu.Lock()
	l.items, l.err, l.bytes = items, err, size
	now := c.opts.Now()
	l.expires = now.Add(ttl)
	close(l.ready)
	if c.lists[l.key] == l {
		c.bytes += size
		for c.bytes > c.maxCache && c.dropOldest(now, l) {
		}
	}
	c.mu.Unlock()
}

// drop removes the list under key. The caller holds c.mu.
func (c *Completer) drop(key string) {
	l, ok := c.lists[key]
	if !ok {
		return
	}
	select {
	case <-l.ready:
		c.bytes -= l.bytes
	default:
	}
	delete(c.lists, key)
}

// dropOldest removes the oldest finished list other than keep, and says
// whether there was one. The caller holds c.mu.
func (c *Completer) dropOldest(now time.Time, keep *list) bool {
	oldest := ""
	for k, l := range c.lists {
		select {
		case <-l.ready:
		default:
			continue
		}
		if l != keep && (oldest == "" || l.made.Before(c.lists[oldest].made)) {
			oldest = k
		}
	}
	if oldest == "" {
		return false
	}
	c.drop(oldest)
	return true
}

// evict makes room for one more list: expired lists go first, then the
// oldest finished one. The caller holds c.mu.
func (c *Completer) evict(now time.Time) {
	if len(c.lists) < maxLists {
		return
	}
	oldest := ""
	for k, l := range c.lists {
		select {
		case <-l.ready:
		default:
			continue // in flight: its askers wait for it
		}
		if now.After(l.expires) {
			c.drop(k)
			continue
		}
		if oldest == "" || l.made.Before(c.lists[oldest].made) {
			oldest = k
		}
	}
	if len(c.lists) >= maxLists && oldest != "" {
		c.drop(oldest)
	}
}

// Ranks of a match, best first.
const (
	rankIDPrefix = iota
	rankNamePrefix
	rankNameInside
)

// match proposes the ids of items that value matches: by id prefix, then by
// a name starting with value, then by a name containing it, each rank in id
// order. An empty value matches every item. Ids allow does not allow are
// left out. Each value is prefix followed by the id.
func match(items []item, value, prefix string, allow safety.IDSet) Result {
	value = Fold(value)
	type hit struct {
		rank int
		id   int64
	}
	var hits []hit
	for _, it := range items {
		if !allow.Allows(it.id) {
			continue
		}
		if r, ok := rankOf(it, value); ok {
			hits = append(hits, hit{r, it.id})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return compareInt(a.id, b.id)
	})
	res := Result{Total: len(hits), HasMore: len(hits) > MaxValues}
	for _, h := range hits[:min(len(hits), MaxValues)] {
		res.Values = append(res.Values, prefix+strconv.FormatInt(h.id, 10))
	}
	return res
}

// rankOf says whether value matches it, and how well: completion offers
// what find_targets resolves, by the same matcher (nameMatch).
func rankOf(it item, value string) (int, bool) {
	if strings.HasPrefix(strconv.FormatInt(it.id, 10), value) {
		return rankIDPrefix, true
	}
	if how, _, ok := nameMatch(it, value); ok {
		if how == MatchContains {
			return rankNameInside, true
		}
		return rankNamePrefix, true
	}
	return 0, false
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Fold prepares a typed value or a name for matching as the catalog's
// search does (catalog.Normalize): surrounding white space trimmed,
// full-width ASCII forms (what a Chinese input method types for digits and
// letters, and its ideographic space) made plain, upper case made lower,
// and traditional Chinese made simplified, so that 張三 finds 张三.
func Fold(s string) string { return catalog.Normalize(s) }

// parseID reads a positive decimal id.
func parseID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	return id, true
}

// errShape is the failure of a list that is not what the action returns.
var errShape = errors.New("completion: the answer is not the expected list")

// decodeList reads a JSON array of objects into items: id is the name of
// each object's id field, names those of the fields it is matched by. An
// entry that is not an object or has no readable positive id is skipped; an
// answer that is not an array is an error. Entries past maxBytes (as
// itemBytes counts them) are dropped.
func decodeList(data json.RawMessage, maxBytes int, id string, names ...string) ([]item, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil || entries == nil {
		return nil, fmt.Errorf("%w: %v", errShape, err)
	}
	items := make([]item, 0, min(len(entries), maxItems))
	size := 0
	for _, raw := range entries[:min(len(entries), maxItems)] {
		var e map[string]json.RawMessage
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		n, ok := readNumber(e[id])
		if !ok {
			continue
		}
		it := item{id: n, names: make([]string, 0, len(names)), raw: make([]string, 0, len(names)), fields: make([]string, 0, len(names))}
		for _, f := range names {
			var s string
			if json.Unmarshal(e[f], &s) == nil && s != "" {
				// Copies, clipped, so that a name does not hold on to
				// the (possibly huge) text it was cut from.
				raw := strings.Clone(clip(s, maxName))
				it.names = append(it.names, strings.Clone(clip(Fold(clip(s, 3*maxName)), maxName)))
				it.raw = append(it.raw, raw)
				it.fields = append(it.fields, f)
			}
		}
		if size += itemBytes(it); size > maxBytes {
			break
		}
		items = append(items, it)
	}
	// Cut to length: a list past maxBytes leaves most of the room
	// made for it unused.
	return slices.Clone(items), nil
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// readNumber reads a positive integer id given as a JSON number or a
// decimal string.
func readNumber(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	return parseID(s)
}

func decodeGroups(data json.RawMessage, maxBytes int) ([]item, error) {
	return decodeList(data, maxBytes, "group_id", "group_name")
}

func decodeMembers(data json.RawMessage, maxBytes int) ([]item, error) {
	return decodeList(data, maxBytes, "user_id", "card", "nickname")
}

func decodeFriends(data json.RawMessage, maxBytes int) ([]item, error) {
	return decodeList(data, maxBytes, "user_id", "remark", "nickname")
}
