package completion

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// setup starts a fake SnowLuma and a Completer that reaches it through the
// real client; opts' Fetcher, Catalog and Now are filled in.
func setup(t *testing.T, opts Options) (*Completer, *simulator.Server, *clock) {
	t.Helper()
	fake := simtest.Start(t)
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Unix(1700000000, 0)}
	opts.Fetcher, opts.Catalog, opts.Now = clientFetcher{client}, cat, clk.Now
	return New(opts), fake, clk
}

// count is how many requests fake received for action.
func count(fake *simulator.Server, action string) int {
	n := 0
	for _, r := range fake.Requests() {
		if r.Action == action {
			n++
		}
	}
	return n
}

func want(t *testing.T, what string, got Result, values ...string) {
	t.Helper()
	if !slices.Equal(got.Values, values) || got.Total != len(values) || got.HasMore {
		t.Errorf("%s: %+v, want exactly %q", what, got, values)
	}
}

func TestGroupsByIDPrefixAndName(t *testing.T) {
	c, fake, _ := setup(t, Options{})
	ctx := context.Background()
	want(t, "prefix 200", c.Complete(ctx, Group, "200", nil), "20001", "20002", "20010")
	want(t, "Chinese name 摸鱼", c.Complete(ctx, Group, "摸鱼", nil), "20002")
	want(t, "inside a Chinese name 交流", c.Complete(ctx, Group, "交流", nil), "20010")
	want(t, "full-width digits", c.Complete(ctx, Group, "２０００１", nil), "20001")
	want(t, "case folded", c.Complete(ctx, Group, " fake ", nil), "30003")
	want(t, "empty", c.Complete(ctx, Group, "", nil), "20001", "20002", "20010", "30003", "123456789")
	want(t, "no match", c.Complete(ctx, Group, "9", nil))
	want(t, "name prefix", c.Complete(ctx, Group, "大", nil), "123456789")
	want(t, "inside three names", c.Complete(ctx, Group, "群", nil), "20001", "20010", "123456789")
	if n := count(fake, ActionGroupList); n != 1 {
		t.Errorf("%d get_group_list requests for a run of completions within the cache lifetime, want 1", n)
	}
}

func TestNamePrefixRanksBeforeInside(t *testing.T) {
	items := []item{{id: 1, names: []string{"ab"}}, {id: 2, names: []string{"xab"}}, {id: 3, names: []string{"abc"}}, {id: 40}}
	got := match(items, "ab", "", nil)
	if !slices.Equal(got.Values, []string{"1", "3", "2"}) {
		t.Errorf("got %v, want 1 3 2", got.Values)
	}
	if got := match(items, "4", "p:", nil); !slices.Equal(got.Values, []string{"p:40"}) {
		t.Errorf("got %v", got.Values)
	}
}

func TestAllowlistLimitsProposals(t *testing.T) {
	groups, _ := safety.ParseIDs("20001,20010")
	users, _ := safety.ParseIDs("30001,30010")
	c, fake, _ := setup(t, Options{Groups: groups, Users: users})
	ctx := context.Background()
	want(t, "groups", c.Complete(ctx, Group, "2", nil), "20001", "20010")
	want(t, "group by name outside the list", c.Complete(ctx, Group, "摸鱼", nil))
	want(t, "members", c.Complete(ctx, Member, "", map[string]string{"group_id": "20001"}), "30001", "30010")
	// A group outside the list is not even asked about.
	want(t, "members of a group outside the list", c.Complete(ctx, Member, "", map[string]string{"group_id": "20002"}))
	if n := count(fake, ActionMemberList); n != 1 {
		t.Errorf("%d get_group_member_list requests, want 1 (for 20001 only)", n)
	}
	want(t, "target friends", c.Complete(ctx, Target, "user:", nil), "user:30001")
}

func TestMembersOfTheChosenGroup(t *testing.T) {
	c, fake, _ := setup(t, Options{})
	ctx := context.Background()
	in := map[string]string{"group_id": "20001"}
	want(t, "id prefix", c.Complete(ctx, Member, "300", in), "30001", "30002", "30010")
	want(t, "nickname", c.Complete(ctx, Member, "张", in), "30001")
	want(t, "card", c.Complete(ctx, Member, "管理", in), "30010")
	want(t, "card inside", c.Complete(ctx, Member, "爱丽", in), "20002")
	want(t, "English nickname, any case", c.Complete(ctx, Member, "ALI", in), "20002")
	want(t, "another group", c.Complete(ctx, Member, "", map[string]string{"group_id": "20002"}), "10001", "30001", "30020")
	want(t, "a group given in full-width digits", c.Complete(ctx, Member, "赵", map[string]string{"group_id": "２０００２"}), "30020")
	for _, bad := range []map[string]string{nil, {}, {"group_id": ""}, {"group_id": "abc"}, {"group_id": "-5"}, {"group_id": "0"}, {"group_id": "1e5"}} {
		want(t, fmt.Sprintf("context %v", bad), c.Complete(ctx, Member, "", bad))
	}
	var asked []string
	for _, r := range fake.Requests() {
		asked = append(asked, r.Action+" "+string(r.Params))
	}
	if len(asked) != 2 {
		t.Errorf("requests %q, want one member list for each of 20001 and 20002", asked)
	}
	if !slices.Contains(asked, `get_group_member_list {"group_id":20001}`) {
		t.Errorf("requests %q", asked)
	}
}

func TestAtMostMaxValues(t *testing.T) {
	c, _, _ := setup(t, Options{})
	got := c.Complete(context.Background(), Member, "", map[string]string{"group_id": "123456789"})
	if len(got.Values) != MaxValues || got.Total != simulator.BigGroupMembers || !got.HasMore {
		t.Fatalf("%d values, total %d, hasMore %v; want %d, %d, true", len(got.Values), got.Total, got.HasMore, MaxValues, simulator.BigGroupMembers)
	}
	if got.Values[0] != "40001" || got.Values[99] != "40100" {
		t.Errorf("first %s, last %s", got.Values[0], got.Values[99])
	}
	got = c.Complete(context.Background(), Member, "成员14", map[string]string{"group_id": "123456789"})
	if !slices.Equal(got.Values, []string{"40140", "40141", "40142", "40143", "40144", "40145", "40146", "40147", "40148", "40149"}) || got.HasMore {
		t.Errorf("成员14: %+v", got)
	}
}

func TestCacheLifetime(t *testing.T) {
	c, fake, clk := setup(t, Options{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { c.Complete(ctx, Group, "2", nil) })
	}
	wg.Wait()
	if n := count(fake, ActionGroupList); n != 1 {
		t.Fatalf("%d requests for 8 completions at once, want 1", n)
	}
	clk.Add(CacheTTL)
	c.Complete(ctx, Group, "2", nil)
	if n := count(fake, ActionGroupList); n != 1 {
		t.Fatalf("%d requests at exactly the lifetime, want still 1", n)
	}
	clk.Add(time.Millisecond)
	want(t, "after the lifetime", c.Complete(ctx, Group, "2000", nil), "20001", "20002")
	if n := count(fake, ActionGroupList); n != 2 {
		t.Fatalf("%d requests after the lifetime, want 2", n)
	}
}

func TestFailuresGiveEmptyAndAreNotRepeated(t *testing.T) {
	c, fake, clk := setup(t, Options{})
	ctx := context.Background()
	fake.Handle(ActionGroupList, func(json.RawMessage) simulator.Reply { return simulator.Failed(1200, "QQ is offline") })
	want(t, "business failure", c.Complete(ctx, Group, "2", nil))
	want(t, "again", c.Complete(ctx, Group, "", nil))
	if n := count(fake, ActionGroupList); n != 1 {
		t.Errorf("%d requests within the failure lifetime, want 1", n)
	}
	fake.Handle(ActionGroupList, func(json.RawMessage) simulator.Reply {
		return simulator.OK(json.RawMessage(`[{"group_id":"20001","group_name":"字符串号"},{"group_id":-3},{"group_id":1.5},{"group_name":"无号"},"x",{"group_id":20002,"group_name":7}]`))
	})
	clk.Add(FailureTTL + time.Millisecond)
	// Ids given as decimal strings are read; entries without a positive
	// integer id are skipped; a name that is not a string matches nothing.
	want(t, "odd entries", c.Complete(ctx, Group, "", nil), "20001", "20002")
	want(t, "name of a string id", c.Complete(ctx, Group, "字符串", nil), "20001")

	for name, reply := range map[string]simulator.Reply{
		"an object":    simulator.OK(json.RawMessage(`{"group_id":20001}`)),
		"null":         simulator.OK(nil),
		"HTML":         {Body: []byte("<html>"), ContentType: "text/html"},
		"async":        simulator.Async(),
		"unauthorized": {Status: 401, Envelope: simulator.Envelope{Status: "failed", Retcode: 1401, Wording: "unauthorized"}},
	} {
		fake.Handle(ActionGroupList, func(json.RawMessage) simulator.Reply { return reply })
		clk.Add(CacheTTL + time.Millisecond)
		want(t, name, c.Complete(ctx, Group, "", nil))
	}
}

func TestSnowLumaDown(t *testing.T) {
	c, fake, _ := setup(t, Options{})
	fake.Close()
	ctx := context.Background()
	want(t, "groups", c.Complete(ctx, Group, "2", nil))
	want(t, "members", c.Complete(ctx, Member, "", map[string]string{"group_id": "20001"}))
	want(t, "targets", c.Complete(ctx, Target, "group:", nil))
	// The catalog needs no SnowLuma.
	if got := c.Complete(ctx, Action, "get_group_l", nil); !slices.Equal(got.Values, []string{"get_group_list"}) {
		t.Errorf("actions with SnowLuma down: %v", got.Values)
	}
}

func TestGivingUpAnswersAtOnce(t *testing.T) {
	c, fake, _ := setup(t, Options{})
	release := make(chan struct{})
	defer close(release)
	fake.Handle(ActionGroupList, func(json.RawMessage) simulator.Reply {
		<-release
		return simulator.OK(simulator.Groups())
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	want(t, "cancelled while SnowLuma hangs", c.Complete(ctx, Group, "2", nil))
}

func TestDocsModeSendsNothing(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Catalog: cat})
	ctx := context.Background()
	want(t, "groups", c.Complete(ctx, Group, "2", nil))
	want(t, "members", c.Complete(ctx, Member, "", map[string]string{"group_id": "20001"}))
	want(t, "target groups", c.Complete(ctx, Target, "group:2", nil))
	if got := c.Complete(ctx, Action, "send_group_m", nil); !slices.Equal(got.Values, []string{"send_group_msg"}) {
		t.Errorf("actions in docs mode: %v", got.Values)
	}
}

func TestTargets(t *testing.T) {
	c, _, _ := setup(t, Options{})
	ctx := context.Background()
	want(t, "nothing typed", c.Complete(ctx, Target, "", nil), "group:", "user:")
	want(t, "g", c.Complete(ctx, Target, "g", nil), "group:")
	want(t, "US", c.Complete(ctx, Target, "US", nil), "user:")
	want(t, "other", c.Complete(ctx, Target, "x", nil))
	want(t, "group by name", c.Complete(ctx, Target, "group:摸鱼", nil), "group:20002")
	want(t, "group by prefix", c.Complete(ctx, Target, "Group:2001", nil), "group:20010")
	want(t, "friend by remark", c.Complete(ctx, Target, "user:老李", nil), "user:30002")
	want(t, "friend by nickname", c.Complete(ctx, Target, "user:张", nil), "user:30001")
	want(t, "friends", c.Complete(ctx, Target, "user:", nil), "user:20002", "user:30001", "user:30002")
}

func TestActions(t *testing.T) {
	c, _, _ := setup(t, Options{})
	cat := c.opts.Catalog
	ctx := context.Background()
	got := c.Complete(ctx, Action, "set_group_ba", nil)
	if !slices.Equal(got.Values, []string{"set_group_ban"}) {
		t.Errorf("set_group_ba: %v", got.Values)
	}
	got = c.Complete(ctx, Action, "ban", nil)
	if len(got.Values) == 0 || !slices.Contains(got.Values, "set_group_ban") || !slices.Contains(got.Values, "set_group_whole_ban") {
		t.Errorf("ban: %v", got.Values)
	}
	// An alias is proposed as itself.
	var alias, of string
	for _, a := range cat.Actions() {
		if len(a.Aliases) > 0 {
			alias, of = a.Aliases[0], a.Name
			break
		}
	}
	if alias == "" {
		t.Fatal("the catalog has no alias")
	}
	if got := c.Complete(ctx, Action, alias, nil); len(got.Values) == 0 || got.Values[0] != alias {
		t.Errorf("alias %s (of %s): %v, want it first", alias, of, got.Values)
	}
	// A word that spells no name goes through the catalog's search.
	if got := c.Complete(ctx, Action, "禁言", nil); len(got.Values) == 0 || got.Values[0] != "set_group_ban" {
		t.Errorf("禁言: %v, want set_group_ban first", got.Values)
	}
	if got := c.Complete(ctx, Action, "撤回", nil); !slices.Contains(got.Values, "delete_msg") {
		t.Errorf("撤回: %v", got.Values)
	}
	n := 0
	for _, a := range cat.Actions() {
		n += 1 + len(a.Aliases)
	}
	got = c.Complete(ctx, Action, "", nil)
	if len(got.Values) != MaxValues || got.Total != n || !got.HasMore {
		t.Errorf("everything: %d values, total %d (want %d), hasMore %v", len(got.Values), got.Total, n, got.HasMore)
	}
}

func TestHostileInput(t *testing.T) {
	c, fake, _ := setup(t, Options{})
	ctx := context.Background()
	for _, v := range []string{strings.Repeat("2", MaxInput+1), "\xff\xfe"} {
		for _, k := range []Kind{Group, Member, Target, Action, None, "other"} {
			if got := c.Complete(ctx, k, v, map[string]string{"group_id": "20001"}); len(got.Values) != 0 || got.Total != 0 {
				t.Errorf("%s %q: %+v", k, v, got)
			}
		}
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests for values that are never completed", n)
	}
	// A control character matches nothing, and breaks nothing.
	want(t, "NUL", c.Complete(ctx, Group, "群\x00", nil))
}

func TestEvictionKeepsTheCacheBounded(t *testing.T) {
	c, _, clk := setup(t, Options{})
	ctx := context.Background()
	for i := range maxLists + 10 {
		c.Complete(ctx, Member, "", map[string]string{"group_id": fmt.Sprint(50000 + i)})
		clk.Add(time.Millisecond)
	}
	c.mu.Lock()
	n := len(c.lists)
	c.mu.Unlock()
	if n > maxLists {
		t.Errorf("%d lists cached, want at most %d", n, maxLists)
	}
}

// clientFetcher reads lists through the real client, as the server's
// pipeline does (without its policy, which these tests give Options).
type clientFetcher struct{ client *transfer.Client }

func (f clientFetcher) Fetch(ctx context.Context, action string, params json.RawMessage) (json.RawMessage, error) {
	resp, err := f.client.Call(ctx, transfer.Request{Action: action, Params: params})
	if err != nil {
		return nil, err
	}
	var env struct {
		Status  string          `json:"status"`
		Retcode json.Number     `json:"retcode"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(resp.Envelope, &env); err != nil {
		return nil, err
	}
	if env.Status != "ok" || env.Retcode != "0" {
		return nil, fmt.Errorf("%s answered status %q, retcode %s", action, env.Status, env.Retcode)
	}
	return env.Data, nil
}

// hugeLists answers every member list with the same answer.
type hugeLists struct{ data json.RawMessage }

func (h hugeLists) Fetch(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return h.data, nil
}

// TestCacheBoundedByBytes: a SnowLuma answering member lists of megabytes
// (the probe's were 12.9 MiB) fills neither one list nor the cache past its
// byte bounds, and what is kept still completes. The bounds here are a
// thirty-second of the real ones, with lists to match (400 members with
// names past maxName, where megabytes take seconds under the race
// detector): each list crosses its bound, and a dozen cross the cache's.
func TestCacheBoundedByBytes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[")
	long := strings.Repeat("很长的群名片", 8) // 144 bytes, past maxName
	for i := range 400 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"user_id":%d,"nickname":%q,"card":%q}`, 20000+i, long, fmt.Sprint("成员", i, long))
	}
	b.WriteString("]")
	clk := &clock{now: time.Unix(1700000000, 0)}
	c := New(Options{Fetcher: hugeLists{json.RawMessage(b.String())}, Now: clk.Now})
	c.maxList, c.maxCache = maxListBytes/32, maxCacheBytes/32
	ctx := context.Background()
	for i := range 12 {
		if got := c.Complete(ctx, Member, "2000", map[string]string{"group_id": fmt.Sprint(50000 + i)}); len(got.Values) == 0 {
			t.Fatalf("list %d completed nothing", i)
		}
		clk.Add(time.Millisecond)
		c.mu.Lock()
		total, n := c.bytes, len(c.lists)
		sum := 0
		for _, l := range c.lists {
			if l.bytes > c.maxList || len(l.items) >= 400 {
				t.Errorf("one list holds %d bytes in %d of 400 members, bound %d", l.bytes, len(l.items), c.maxList)
			}
			sum += l.bytes
		}
		c.mu.Unlock()
		if total > c.maxCache || total != sum {
			t.Fatalf("after %d lists: the cache counts %d bytes (its lists hold %d), bound %d; %d lists", i+1, total, sum, c.maxCache, n)
		}
	}
	// The newest list is still there, the oldest were dropped.
	c.mu.Lock()
	_, newest := c.lists["members:50011"]
	_, oldest := c.lists["members:50000"]
	c.mu.Unlock()
	if !newest || oldest {
		t.Errorf("newest kept %v, oldest kept %v", newest, oldest)
	}
}
