package lang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An Act is a call a person is asked to confirm: the action, its params
// as sent, and, for a call that names a message by its id only (a recall),
// the text of that message when it could be read ("" otherwise).
type Act struct {
	Action string
	Params json.RawMessage
	Quoted string
}

// maxQuoted is the most characters of a message or a text an act's
// description quotes.
const maxQuoted = 40

// Describe says in l what a call will do, with its values: 禁言群 20001 的
// 30001，60 秒 / mute 30001 in group 20001 for 60 s, 撤回消息 #-12345（"…"）.
// ok is false for an action it has no sentence for, or params it cannot
// read; the caller then names the action and its targets instead.
func (l Lang) Describe(a Act) (desc string, ok bool) {
	p, err := readParams(a.Params)
	if err != nil {
		return "", false
	}
	s := func(en, zh string, args ...any) string {
		if l == Zh {
			return fmt.Sprintf(zh, args...)
		}
		return fmt.Sprintf(en, args...)
	}
	g, u := p.id("group_id"), p.id("user_id")
	switch a.Action {
	case "set_group_ban":
		d, ok := p.whole("duration", 1800)
		if g == "" || u == "" || !ok {
			return "", false
		}
		if d == 0 {
			return s("lift the mute of %s in group %s", "解除群 %[2]s 中 %[1]s 的禁言", u, g), true
		}
		return s("mute %s in group %s for %s", "禁言群 %[2]s 的 %[1]s，%[3]s", u, g, l.seconds(d)), true
	case "set_group_whole_ban":
		if g == "" {
			return "", false
		}
		if p.flag("enable", true) {
			return s("mute everyone in group %s but its owner and admins", "开启群 %s 的全员禁言（只有群主和管理员能发言）", g), true
		}
		return s("lift the mute of everyone in group %s", "关闭群 %s 的全员禁言", g), true
	case "set_group_kick":
		if g == "" || u == "" {
			return "", false
		}
		if p.flag("reject_add_request", false) {
			return s("remove %s from group %s and refuse their later requests to join", "把 %s 踢出群 %s，并拒绝其以后再申请加群", u, g), true
		}
		return s("remove %s from group %s", "把 %s 踢出群 %s", u, g), true
	case "set_group_kick_members":
		ids := p.ids("user_id")
		if g == "" || len(ids) == 0 {
			return "", false
		}
		list := strings.Join(ids, s(", ", "、"))
		if p.flag("reject_add_request", false) {
			return s("remove %s from group %s and refuse their later requests to join", "把 %s 踢出群 %s，并拒绝他们以后再申请加群", list, g), true
		}
		return s("remove %s from group %s", "把 %s 踢出群 %s", list, g), true
	case "set_group_leave":
		if g == "" {
			return "", false
		}
		if p.flag("is_dismiss", false) {
			return s("leave group %s and dismiss it (as its owner)", "退出群 %s 并解散（账号是群主时）", g), true
		}
		return s("leave group %s", "退出群 %s", g), true
	case "delete_msg":
		id := p.id("message_id")
		if id == "" {
			return "", false
		}
		if a.Quoted != "" {
			return s("recall message #%s (%q)", "撤回消息 #%s（“%s”）", id, clipText(a.Quoted)), true
		}
		return s("recall message #%s", "撤回消息 #%s", id), true
	case "delete_friend":
		if u == "" {
			return "", false
		}
		if p.flag("block", false) {
			return s("delete friend %s and block them", "删除好友 %s 并拉黑", u), true
		}
		return s("delete friend %s", "删除好友 %s", u), true
	case "set_group_admin":
		if g == "" || u == "" {
			return "", false
		}
		if p.flag("enable", true) {
			return s("make %s an admin of group %s", "把 %s 设为群 %s 的管理员", u, g), true
		}
		return s("remove %s from the admins of group %s", "取消 %s 在群 %s 的管理员身份", u, g), true
	case "delete_group_file":
		if f := p.text("file_id"); g != "" && f != "" {
			return s("delete file %s from group %s", "删除群 %[2]s 的群文件 %[1]s", f, g), true
		}
	case "delete_group_file_folder", "delete_group_folder":
		if f := p.text("folder_id"); g != "" && f != "" {
			return s("delete folder %s and its contents from group %s", "删除群 %[2]s 的文件夹 %[1]s 及其内容", f, g), true
		}
	case "send_group_msg", "send_private_msg", "send_msg":
		text := p.messageText("message")
		to := ""
		switch {
		case g != "" && (a.Action != "send_msg" || p.text("message_type") != "private"):
			to = s("group %s", "群 %s", g)
		case u != "":
			to = s("user %s", "用户 %s", u)
		}
		if to == "" || text == "" {
			return "", false
		}
		return s("send to %s: %q", "向 %s 发送：“%s”", to, clipText(text)), true
	case "set_group_add_request":
		flag := p.text("flag")
		if flag == "" {
			return "", false
		}
		if p.flag("approve", true) {
			return s("approve the join request %s", "同意入群申请 %s", flag), true
		}
		return s("decline the join request %s", "拒绝入群申请 %s", flag), true
	}
	return "", false
}

// seconds writes a duration given in seconds, with the larger unit it
// fills beside it: 60 秒, 1800 秒（30 分钟）.
func (l Lang) seconds(n int64) string {
	unit := func(en, zh string, v int64) string {
		if l == Zh {
			return fmt.Sprintf("%d %s", v, zh)
		}
		return fmt.Sprintf("%d %s", v, en)
	}
	base := unit("s", "秒", n)
	var big string
	switch {
	case n >= 86400 && n%86400 == 0:
		big = unit("d", "天", n/86400)
	case n >= 3600 && n%3600 == 0:
		big = unit("h", "小时", n/3600)
	case n >= 120 && n%60 == 0:
		big = unit("min", "分钟", n/60)
	}
	if big == "" {
		return base
	}
	if l == Zh {
		return base + "（" + big + "）"
	}
	return base + " (" + big + ")"
}

// clipText makes a quoted text one short line: control characters and
// line breaks become spaces, and a long text is cut with an ellipsis.
func clipText(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }), " ")
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxQuoted {
		s = string([]rune(s)[:maxQuoted]) + "…"
	}
	return s
}

// params are an act's params, numbers kept as written.
type params map[string]any

func readParams(raw json.RawMessage) (params, error) {
	p := params{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return p, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, err
	}
	return p, nil
}

// id is a param holding an id as a number or a string of digits (a
// negative message id included); "" when absent or not one.
func (p params) id(name string) string {
	var s string
	switch v := p[name].(type) {
	case json.Number:
		s = v.String()
	case string:
		s = strings.TrimSpace(v)
	default:
		return ""
	}
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		return ""
	}
	return s
}

// ids is a param holding one id or a list of them.
func (p params) ids(name string) []string {
	list, ok := p[name].([]any)
	if !ok {
		if id := p.id(name); id != "" {
			return []string{id}
		}
		return nil
	}
	var out []string
	for _, v := range list {
		if id := (params{"v": v}).id("v"); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// whole is a param holding a whole number, or def when it is absent.
func (p params) whole(name string, def int64) (int64, bool) {
	v, ok := p[name]
	if !ok || v == nil {
		return def, true
	}
	s := (params{"v": v}).id("v")
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0
}

// flag is a boolean param, or def when absent; "true"/"false" strings
// count as OneBot implementations read them.
func (p params) flag(name string, def bool) bool {
	switch v := p[name].(type) {
	case bool:
		return v
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return b
		}
	case json.Number:
		return v.String() != "0"
	}
	return def
}

// text is a string param, trimmed.
func (p params) text(name string) string {
	s, _ := p[name].(string)
	return strings.TrimSpace(s)
}

// messageText is the text of a message param: a string, or the text
// segments of a segment array, with a placeholder for each other segment.
func (p params) messageText(name string) string {
	switch v := p[name].(type) {
	case string:
		return v
	case []any:
		return SegmentsText(v)
	case map[string]any:
		return SegmentsText([]any{v})
	}
	return ""
}

// SegmentsText is the text of OneBot message segments as decoded JSON:
// text segments as they are, any other as [type] ([image], [face]), so
// that a person recognises the message.
func SegmentsText(segs []any) string {
	var b strings.Builder
	for _, s := range segs {
		seg, _ := s.(map[string]any)
		typ, _ := seg["type"].(string)
		data, _ := seg["data"].(map[string]any)
		if typ == "text" {
			t, _ := data["text"].(string)
			b.WriteString(t)
			continue
		}
		if typ != "" {
			b.WriteString("[" + typ + "]")
		}
	}
	return b.String()
}
