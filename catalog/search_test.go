package catalog

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func names(as []*Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

// baselineSubstring is the baseline's search, kept here as the contract the
// default mode must honour: every action whose name, an alias, or a summary
// contains the query, ignoring case.
func baselineSubstring(c *Catalog, query string) []string {
	q := strings.ToLower(query)
	var out []string
	for _, a := range c.actions {
		hay := append([]string{a.Name, a.Summary, a.SummaryZh}, a.Aliases...)
		if slices.ContainsFunc(hay, func(h string) bool { return strings.Contains(strings.ToLower(h), q) }) {
			out = append(out, a.Name)
		}
	}
	return out
}

// TestSearchSubstring checks the default mode's contract: every plain
// substring match is in the answer, whatever else ranking adds, for the
// operator queries, every action name, and pieces of names and summaries.
func TestSearchSubstring(t *testing.T) {
	c := mustLoad(t)
	queries := []string{"GROUP_MSG", "group", "msg", "禁言", "群消息", "消息", "文件", "the", "ok", "、", "（"}
	for _, q := range loadOperatorQueries(t, c) {
		queries = append(queries, q.query)
	}
	for _, a := range c.actions {
		queries = append(queries, a.Name, a.Name[:len(a.Name)/2])
		if r := []rune(a.SummaryZh); len(r) > 6 {
			queries = append(queries, string(r[2:6]))
		}
	}
	for _, q := range queries {
		base := baselineSubstring(c, q)
		got := names(c.Search(q, Filter{}))
		for _, n := range base {
			if !slices.Contains(got, n) {
				t.Errorf("%q: substring match %s missing from %v", q, n, got)
			}
		}
		if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
			t.Errorf("%q: an action twice in %v", q, got)
		}
	}
	if got := names(c.Search("GROUP_MSG", Filter{})); len(got) == 0 || got[0] != "send_group_msg" {
		t.Errorf("GROUP_MSG: %v, want send_group_msg first", got)
	}
	// Unlike the baseline, a query with a space is cut into terms.
	if got := names(c.Search("群 禁言", Filter{})); len(got) == 0 || got[0] != "set_group_ban" {
		t.Errorf("群 禁言: %v, want set_group_ban first", got)
	}
}

// TestSegment checks how queries are cut into terms.
func TestSegment(t *testing.T) {
	c := mustLoad(t)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"发送群消息", []string{"发送", "群", "消息"}},
		{"群聊天记录", []string{"群", "聊天记录"}},
		{"帮我把他踢了", []string{"踢"}},
		{"群发", []string{"群", "发送"}},
		{"改群名片", []string{"改", "群名片"}},
		{"send_grup_msg", []string{"send", "group", "msg"}},
		{"禁严", []string{"禁言"}},
		{"the friend list", []string{"friend", "list"}},
		{"qq号", []string{"qq"}},
		{"给他禁言十分钟", []string{"禁言"}},
		{"how do I mute someone please", []string{"mute"}},
		{"的了吗", nil},
	} {
		var got []string
		for _, u := range c.parse(Normalize(tc.query), c.index()) {
			got = append(got, u.word)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("parse(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
}

func TestSearchKeywords(t *testing.T) {
	c := mustLoad(t)
	for _, q := range []string{"群 禁言", "mute", "group ban", "禁言"} {
		if got := names(c.SearchKeywords(q, Filter{})); !slices.Contains(got, "set_group_ban") {
			t.Errorf("%q: set_group_ban not found in %v", q, got)
		}
	}
	// An exact name ranks first even though other entries match the term.
	if got := names(c.SearchKeywords("get_msg", Filter{})); len(got) == 0 || got[0] != "get_msg" {
		t.Errorf("exact name not first: %v", got)
	}
	// Actions matching every term (here: both in the name) come before
	// those matching some, which are still there.
	got := names(c.SearchKeywords("send group", Filter{}))
	partial := slices.Index(got, "send_private_msg")
	if partial < 0 {
		t.Errorf("send group: the partial match send_private_msg is missing: %v", got)
	}
	for i, n := range got {
		if strings.Contains(n, "send") && strings.Contains(n, "group") && i > partial {
			t.Errorf("send group: %s, which matches both terms, after send_private_msg: %v", n, got)
		}
	}
	ro := false
	for _, a := range c.SearchKeywords("message", Filter{ReadOnly: &ro}) {
		if a.ReadOnly {
			t.Errorf("filter violated: %s", a.Name)
		}
	}
}

func TestListFilters(t *testing.T) {
	c := mustLoad(t)
	yes, no := true, false
	for _, a := range c.List(Filter{ReadOnly: &yes}) {
		if !a.ReadOnly {
			t.Errorf("%s is not read-only", a.Name)
		}
	}
	for _, a := range c.List(Filter{Stream: &no}) {
		if a.Stream {
			t.Errorf("%s is a stream", a.Name)
		}
	}
	if got := len(c.List(Filter{Category: "消息"})); got == 0 {
		t.Error("no messages")
	}
	if cat, ok := c.Category("messages"); !ok || cat.Name != "消息" {
		t.Errorf("label lookup: %+v %v", cat, ok)
	}
}

func TestSuggest(t *testing.T) {
	c := mustLoad(t)
	got := c.Suggest("send_grup_msg", 3)
	if len(got) == 0 || got[0] != "send_group_msg" {
		t.Errorf("got %v", got)
	}
	if len(got) > 3 {
		t.Errorf("more than 3: %v", got)
	}
	if got := c.Suggest("zzzzzzzzzzzzzzzzzzzz", 3); len(got) != 0 {
		t.Errorf("nonsense suggested %v", got)
	}
}

// TestClosest checks the names offered for a name that is not one: a
// Chinese word, a synonym in the name, a typo.
func TestClosest(t *testing.T) {
	c := mustLoad(t)
	for q, want := range map[string]string{"禁言": "set_group_ban", "set_group_mute": "set_group_ban", "send_grup_msg": "send_group_msg", "踢人": "set_group_kick"} {
		if got := c.Closest(q, 3); len(got) == 0 || got[0] != want || len(got) > 3 {
			t.Errorf("Closest(%q) = %v, want %s first and at most 3", q, got, want)
		}
	}
	if got := c.Closest("zzzzzzzzzzzzzzzzzzzz", 3); len(got) != 0 {
		t.Errorf("nonsense: %v", got)
	}
}

// TestSynonyms checks that operators' common words, in Chinese and in
// English, find the actions they mean.
func TestSynonyms(t *testing.T) {
	c := mustLoad(t)
	for _, tc := range []struct {
		query, want string
	}{
		{"群 禁言", "set_group_ban"},
		{"mute", "set_group_ban"},
		{"ban member", "set_group_ban"},
		{"踢", "set_group_kick"},
		{"kick", "set_group_kick"},
		{"群 公告", "_send_group_notice"},
		{"notice", "_get_group_notice"},
		{"精华", "set_essence_msg"},
		{"戳", "group_poke"},
		{"poke", "friend_poke"},
		{"赞", "send_like"},
		{"相册", "get_group_album_list"},
		{"空间", "send_qzone_msg"},
		{"qzone", "like_qzone"},
		{"上传 文件", "upload_group_file"},
		{"下载", "download_file"},
		{"好友 列表", "get_friend_list"},
		{"管理员", "set_group_admin"},
		{"成员", "get_group_member_list"},
		{"好友 请求", "set_friend_add_request"},
		{"消息", "send_msg"},
		{"撤回", "delete_msg"},
		{"群 文件", "get_group_root_files"},
		{"messages", "get_msg"},
	} {
		if got := names(c.SearchKeywords(tc.query, Filter{})); !slices.Contains(got, tc.want) {
			t.Errorf("%q: %s not among %v", tc.query, tc.want, got)
		}
	}
}

// TestSearchChinese checks that the default substring mode finds actions by
// the Chinese words operators type, through the Chinese summaries.
func TestSearchChinese(t *testing.T) {
	c := mustLoad(t)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"禁言", []string{"set_group_ban", "set_group_whole_ban"}},
		{"撤回", []string{"delete_msg"}},
		{"好友", []string{"get_friend_list", "delete_friend", "set_friend_add_request", "friend_poke"}},
		{"上传", []string{"upload_group_file", "upload_private_file", "upload_file_stream"}},
	} {
		got := names(c.Search(tc.query, Filter{}))
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %s not among %v", tc.query, w, got)
			}
		}
	}
	if got := names(c.Search("撤回", Filter{})); len(got) == 0 || got[0] != "delete_msg" {
		t.Errorf("撤回: delete_msg is not first: %v", got)
	}
}

// TestRanking checks that the action an operator means comes first and that
// stubs and no-ops come last, in both modes.
func TestRanking(t *testing.T) {
	c := mustLoad(t)
	if got := names(c.SearchKeywords("群 禁言", Filter{})); len(got) == 0 || got[0] != "set_group_ban" {
		t.Errorf("群 禁言: %v, want set_group_ban first", got)
	}
	if got := names(c.SearchKeywords("send message", Filter{})); len(got) < 2 ||
		!slices.ContainsFunc(got[:2], func(n string) bool { return n == "send_msg" || n == "send_group_msg" }) {
		t.Errorf("send message: %v, want send_msg or send_group_msg in the top two", got)
	}
	// More terms in the name beat fewer.
	if got := names(c.SearchKeywords("好友 列表", Filter{})); len(got) == 0 || got[0] != "get_friend_list" {
		t.Errorf("好友 列表: %v, want get_friend_list first", got)
	}
	// Things asked for in the plural are a list of them; a verb of the
	// get group is the group, whatever word a summary happens to use.
	// One member is not several.
	for q, want := range map[string]string{"get groups": "get_group_list", "show friends": "get_friend_list", "kick a member": "set_group_kick"} {
		if got := names(c.Search(q, Filter{})); len(got) == 0 || got[0] != want {
			t.Errorf("%s: %v, want %s first", q, got, want)
		}
	}
	// An exact name comes first even when it is a stub.
	if got := names(c.SearchKeywords("set_group_anonymous_ban", Filter{})); len(got) == 0 || got[0] != "set_group_anonymous_ban" {
		t.Errorf("exact stub name not first: %v", got)
	}
	for _, tc := range []struct {
		mode  string
		query string
		find  func(string, Filter) []*Action
	}{
		{"keywords", "群 禁言", c.SearchKeywords},
		{"keywords", "cache", c.SearchKeywords},
		{"keywords", "anonymous", c.SearchKeywords},
		{"substring", "禁言", c.Search},
		{"substring", "ban", c.Search},
		{"substring", "cache", c.Search},
	} {
		got := tc.find(tc.query, Filter{})
		seenStub := false
		stubs := 0
		for _, a := range got {
			if !a.IsSupported() {
				seenStub = true
				stubs++
			} else if seenStub {
				t.Errorf("%s %q: supported %s after a stub: %v", tc.mode, tc.query, a.Name, names(got))
				break
			}
		}
		if stubs == 0 {
			t.Errorf("%s %q: no stub among %v, so the test proves nothing", tc.mode, tc.query, names(got))
		}
	}
}

// TestUnsupportedFlag checks the flag on the known stubs and that it is
// absent, not true, elsewhere.
func TestUnsupportedFlag(t *testing.T) {
	c := mustLoad(t)
	for _, n := range []string{"set_group_anonymous_ban", "set_group_anonymous", "clean_cache", "set_restart", ".get_word_slices", "create_collection", "get_online_clients"} {
		a, ok := c.Lookup(n)
		if !ok || a.IsSupported() {
			t.Errorf("%s: want supported false", n)
		}
	}
	for _, n := range []string{"set_group_ban", "send_msg", "get_friend_list"} {
		a, ok := c.Lookup(n)
		if !ok || !a.IsSupported() || a.Supported != nil {
			t.Errorf("%s: want supported absent", n)
		}
	}
}

// TestOneBot11Names checks that every action ranked as OneBot v11 standard
// exists in the catalog under that name.
func TestOneBot11Names(t *testing.T) {
	c := mustLoad(t)
	for n := range onebot11 {
		if a, ok := c.Lookup(n); !ok || a.Name != n {
			t.Errorf("%s is not an action of the catalog", n)
		}
	}
}

// TestSearchConcurrent: searches running at once, which share the
// remembered term matches and reuse each other's working memory, find what
// one search alone finds in a catalog that has searched nothing before, in
// both modes and with a filter narrowing what earlier searches scored.
func TestSearchConcurrent(t *testing.T) {
	c := mustLoad(t)
	readOnly := true
	type search struct {
		query    string
		keywords bool
		filter   Filter
	}
	searches := []search{
		{"群 禁言", true, Filter{}}, {"group member", true, Filter{}}, {"发送 消息", true, Filter{}},
		{"file upload", true, Filter{}}, {"好友", true, Filter{}}, {"stream", true, Filter{}},
		{"group", false, Filter{}}, {"group", false, Filter{ReadOnly: &readOnly}}, {"帮我撤回群里那条消息", false, Filter{}},
	}
	run := func(c *Catalog, s search) []string { return names(c.Match(s.query, s.filter, s.keywords).Actions) }
	want := map[search][]string{}
	for _, s := range searches {
		want[s] = run(mustLoad(t), s)
	}
	var wg sync.WaitGroup
	for range 8 {
		for _, s := range searches {
			wg.Go(func() {
				if got := run(c, s); !slices.Equal(got, want[s]) {
					t.Errorf("%+v: %v, want %v", s, got, want[s])
				}
			})
		}
	}
	wg.Wait()
}

// TestNamedIn checks which tokens of a query name an action outright: the
// name, a method after a receiver, a variant's suffix dropped.
func TestNamedIn(t *testing.T) {
	c := mustLoad(t)
	ix := c.index()
	for tok, want := range map[string]string{
		"get_msg":                  "get_msg",
		"getgrouplist":             "get_group_list",
		"sender.getgrouplist":      "get_group_list",
		"bot.setgroupban":          "set_group_ban",
		"set_group_ban_async":      "set_group_ban",
		"get_group_member_info_v2": "get_group_member_info",
		"send_msg_rate_limited":    "send_msg",
		"sender.unknownmethod":     "",
		"getmsg":                   "",        // too short to be taken for a name without a separator
		"sender.getmsg":            "get_msg", // a receiver says a method follows
		"a.b":                      "",
		"get_user_status":          "nc_get_user_status", // NapCat's prefix left out
		"get_group_notice":         "_get_group_notice",  // go-cqhttp's hidden _
	} {
		d, ok := namedIn(ix, tok)
		got := ""
		if ok {
			got = c.actions[d].Name
		}
		if got != want {
			t.Errorf("namedIn(%q) = %q, want %q", tok, got, want)
		}
	}
}

// TestAsksQuestion checks which queries are questions about what is, which
// ask to read.
func TestAsksQuestion(t *testing.T) {
	for q, want := range map[string]bool{
		"what's the name of this group":  true,
		"who muted him":                  true,
		"how many members are there":     true,
		"is the bot online":              true,
		"how do i kick someone":          false,
		"kick him":                       false,
		"whatever":                       false,
		"can you tell me the group name": false,
	} {
		if got := asksQuestion(q); got != want {
			t.Errorf("asksQuestion(%q) = %v, want %v", q, got, want)
		}
	}
}
