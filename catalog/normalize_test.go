package catalog

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"禁言群組成員", "禁言群组成员"},
		{"設定群名片", "设置群名片"}, // Taiwan's 設定 is the mainland's 设置
		{"上傳群檔案", "上传群文件"},
		{"撤回訊息", "撤回消息"},
		{"ＳＥＮＤ＿ＧＲＯＵＰ＿ＭＳＧ", "send_group_msg"},
		{"　ｇｅｔ　ｍｓｇ　", "get msg"},
		{"Get_Msg", "get_msg"},
		{"禁言群组成员", "禁言群组成员"},
		{"bad\xffbyte", "badbyte"},
	} {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNormalizeKeepsSimplified checks that normalization changes no
// Chinese character of simplified text: the catalog's summaries and the
// labelled queries written in simplified Chinese.
func TestNormalizeKeepsSimplified(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	texts := []string{"上传群文件", "什么", "文字", "发消息"}
	for _, a := range c.actions {
		texts = append(texts, a.SummaryZh)
	}
	for _, q := range loadOperatorQueries(t, c) {
		if q.source != "issue 34" { // its examples hold traditional text
			texts = append(texts, q.query)
		}
	}
	han := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Han, r) {
				return r
			}
			return -1
		}, s)
	}
	for _, s := range texts {
		if got := han(Normalize(s)); got != han(s) {
			t.Errorf("Normalize(%q) rewrites its Chinese to %q", s, got)
		}
	}
}

// TestSearchNormalized checks that traditional characters, full-width
// forms, case and a request's filler find what the plain query finds.
func TestSearchNormalized(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	for _, tc := range []struct{ variant, plain string }{
		{"禁言群組成員", "禁言群组成员"},
		{"設定群名片", "设置群名片"},
		{"上傳群檔案", "上传群文件"},
		{"ＳＥＴ＿ＧＲＯＵＰ＿ＢＡＮ", "set_group_ban"},
		{"Mute Member", "mute member"},
		{"帮我撤回一下消息", "撤回消息"},
		{"能不能帮我把他踢了", "踢"},
		{"我想获取群列表", "获取群列表"},
		{"怎么发群公告", "发群公告"},
		{"please, how do I recall a message", "recall message"},
	} {
		got, want := names(c.Search(tc.variant, Filter{})), names(c.Search(tc.plain, Filter{}))
		if len(got) == 0 || len(want) == 0 || got[0] != want[0] {
			t.Errorf("%q finds %v, %q finds %v: want the same first action", tc.variant, got[:min(3, len(got))], tc.plain, want[:min(3, len(want))])
		}
	}
}

// TestSearchDegrades checks that an unknown word, filler or a typo lowers
// a score and never empties the answer: each query still finds its action
// among the first three.
func TestSearchDegrades(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	for _, tc := range []struct{ query, want string }{
		{"给他禁言十分钟", "set_group_ban"},
		{"禁言 xyz", "set_group_ban"},
		{"mute xyz", "set_group_ban"},
		{"拍一拍", "send_poke"},
		{"拿一下bkn", "get_csrf_token"},
		{"自动通过好友请求", "set_friend_add_request"},
		{"怎么让机器人撤回别人发的消息", "delete_msg"},
		{"有人申请加群，帮我通过一下", "set_group_add_request"},
		{"晚上开全体禁言早上再关掉", "set_group_whole_ban"},
		{"send_grup_mgs", "send_group_msg"},
	} {
		got := names(c.Search(tc.query, Filter{}))
		if !slices.Contains(got[:min(3, len(got))], tc.want) {
			t.Errorf("%q: %v, want %s among the first three", tc.query, got[:min(5, len(got))], tc.want)
		}
	}
}

// TestSearchHostileLength checks that a huge query or name is bounded:
// search reads MaxQueryRunes runes, and Closest compares no name past
// MaxNameBytes by spelling.
func TestSearchHostileLength(t *testing.T) {
	t.Parallel()
	c := mustLoad(t)
	huge := strings.Repeat("禁言群成员", 256<<10/15) + "x"
	if got := c.Search(huge, Filter{}); len(got) == 0 || got[0].Name != "set_group_ban" {
		t.Errorf("a 256 KiB query of 禁言群成员: %v", names(got[:min(3, len(got))]))
	}
	name := strings.Repeat("a", 256<<10)
	if got := c.Closest(name, 3); len(got) != 0 {
		t.Errorf("Closest of a 256 KiB name: %v, want nothing", got)
	}
	if got := c.Suggest(name, 3); len(got) != 0 {
		t.Errorf("Suggest of a 256 KiB name: %v, want nothing", got)
	}
	longest := 0
	for _, a := range c.actions {
		for _, n := range append([]string{a.Name}, a.Aliases...) {
			longest = max(longest, len(n))
		}
	}
	if longest > MaxNameBytes/2 {
		t.Errorf("the longest name has %d bytes; MaxNameBytes (%d) leaves too little room", longest, MaxNameBytes)
	}
}
