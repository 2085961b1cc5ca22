package catalog

import (
	"slices"
	"testing"
)

func names(as []*Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name
	}
	return out
}

func TestSearchSubstring(t *testing.T) {
	c := mustLoad(t)
	got := names(c.Search("GROUP_MSG", Filter{}))
	if !slices.Contains(got, "send_group_msg") {
		t.Errorf("case-insensitive substring search missed send_group_msg: %v", got)
	}
	if !slices.IsSorted(got) {
		t.Errorf("not in catalog order: %v", got)
	}
	if got := c.Search("群 禁言", Filter{}); len(got) != 0 {
		t.Errorf("substring mode must not split terms: %v", names(got))
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
	// Terms combine with AND.
	for _, a := range c.SearchKeywords("send group", Filter{}) {
		if a.Name == "send_private_msg" {
			t.Errorf("AND violated: %s matched", a.Name)
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

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"群禁言", "群言", 1}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q,%q)=%d want %d", tc.a, tc.b, got, tc.d)
		}
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
