package lang

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDescribe: what a confirmation shows a call will do, with its values,
// in both languages; an action without a sentence, or params it cannot
// read, gives none.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		action, params, quoted string
		en, zh                 string
	}{
		{"set_group_ban", `{"group_id":20001,"user_id":30001,"duration":60}`, "", "mute 30001 in group 20001 for 60 s", "禁言群 20001 的 30001，60 秒"},
		{"set_group_ban", `{"group_id":"20001","user_id":"30001"}`, "", "mute 30001 in group 20001 for 1800 s (30 min)", "禁言群 20001 的 30001，1800 秒（30 分钟）"},
		{"set_group_ban", `{"group_id":20001,"user_id":30001,"duration":86400}`, "", "for 86400 s (1 d)", "86400 秒（1 天）"},
		{"set_group_ban", `{"group_id":20001,"user_id":30001,"duration":0}`, "", "lift the mute of 30001 in group 20001", "解除群 20001 中 30001 的禁言"},
		{"delete_msg", `{"message_id":-12345}`, "今晚谁有空\n一起开黑？", `recall message #-12345 ("今晚谁有空 一起开黑？")`, "撤回消息 #-12345（“今晚谁有空 一起开黑？”）"},
		{"delete_msg", `{"message_id":"-12345"}`, "", "recall message #-12345", "撤回消息 #-12345"},
		{"delete_msg", `{"message_id":1}`, strings.Repeat("长", 50), `("` + strings.Repeat("长", 40) + `…")`, "（“" + strings.Repeat("长", 40) + "…”）"},
		{"set_group_kick", `{"group_id":20001,"user_id":30001,"reject_add_request":true}`, "", "remove 30001 from group 20001 and refuse their later requests to join", "把 30001 踢出群 20001，并拒绝其以后再申请加群"},
		{"set_group_kick_members", `{"group_id":20001,"user_id":[30001,30002]}`, "", "remove 30001, 30002 from group 20001", "把 30001、30002 踢出群 20001"},
		{"set_group_whole_ban", `{"group_id":20001,"enable":false}`, "", "lift the mute of everyone in group 20001", "关闭群 20001 的全员禁言"},
		{"set_group_leave", `{"group_id":20001}`, "", "leave group 20001", "退出群 20001"},
		{"delete_friend", `{"user_id":30001,"block":true}`, "", "delete friend 30001 and block them", "删除好友 30001 并拉黑"},
		{"send_group_msg", `{"group_id":20001,"message":[{"type":"text","data":{"text":"明天见"}},{"type":"face","data":{"id":"1"}}]}`, "", `send to group 20001: "明天见[face]"`, "向 群 20001 发送：“明天见[face]”"},
		{"send_private_msg", `{"user_id":30001,"message":"hi"}`, "", `send to user 30001: "hi"`, "向 用户 30001 发送：“hi”"},
		{"delete_group_file", `{"group_id":20001,"file_id":"/abc"}`, "", "delete file /abc from group 20001", "删除群 20001 的群文件 /abc"},
		{"set_group_add_request", `{"flag":"add:20001:u_x","approve":false}`, "", "decline the join request add:20001:u_x", "拒绝入群申请 add:20001:u_x"},
	} {
		act := Act{Action: tc.action, Params: json.RawMessage(tc.params), Quoted: tc.quoted}
		for _, l := range []struct {
			l    Lang
			want string
		}{{En, tc.en}, {Zh, tc.zh}} {
			got, ok := l.l.Describe(act)
			if !ok || !strings.Contains(got, l.want) {
				t.Errorf("%s %s in %s: %q %v, want %q", tc.action, tc.params, l.l, got, ok, l.want)
			}
		}
	}
	for _, act := range []Act{
		{Action: "bot_exit"},
		{Action: "set_group_ban", Params: json.RawMessage(`{"group_id":20001}`)},
		{Action: "set_group_ban", Params: json.RawMessage(`{"group_id":20001,"user_id":30001,"duration":-5}`)},
		{Action: "delete_msg", Params: json.RawMessage(`[1]`)},
		{Action: "delete_msg", Params: json.RawMessage(`{"message_id":"abc"}`)},
	} {
		if got, ok := Zh.Describe(act); ok {
			t.Errorf("%s %s: %q, want none", act.Action, act.Params, got)
		}
	}
}
