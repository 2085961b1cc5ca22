package simulator

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// What a write request does once SnowLuma 1.11.1 runs it: where it lands
// and what it loads. Reaches answers it from the request alone, written
// from SnowLuma's handlers (packages/onebot/src/actions/*.ts) independently
// of snowluma-mcp's effect model, so that a test reading the request log
// checks the send gate against SnowLuma's behaviour rather than against
// the gate's own reading.

// A Delivery is what one request does.
type Delivery struct {
	// Chats are "group:N" and "private:N" that the request writes to;
	// "message:N" when the chat is that of message N (SnowLuma looks it
	// up in its store); "public" when it publishes outside any chat.
	Chats []string
	// Sources are the sources SnowLuma loads for it (qqmsg.ResourceURL or
	// qqmsg.ResourceLocal; inline base64 is not a load), and Carried the
	// message ids it copies into its chat.
	Sources []qqmsg.OutgoingResource
	Carried []string
	// Content says it carries words or data others read.
	Content bool
}

// publicActions publish outside any chat (actions/qzone.ts, the profile,
// status and avatar actions of extended.ts, flash transfer's share link,
// send_packet).
var publicActions = map[string]bool{
	"send_qzone_msg": true, "comment_qzone": true, "like_qzone": true, "unlike_qzone": true, "delete_qzone_msg": true,
	"set_qq_profile": true, "set_self_longnick": true, "set_diy_online_status": true, "set_online_status": true,
	"set_qq_avatar": true, "create_flash_task": true, "get_share_link": true, "send_packet": true,
}

// privateActions write to the private chat of their user_id alone.
var privateActions = map[string]bool{
	"send_private_msg": true, "send_private_forward_msg": true, "forward_friend_single_msg": true, "upload_private_file": true,
	"send_like": true, "friend_poke": true, "delete_friend": true, "set_friend_remark": true, "set_input_status": true,
	"mark_private_msg_as_read": true,
}

// messageActions act on the chat of their message_id.
var messageActions = map[string]bool{
	"delete_msg": true, "set_essence_msg": true, "delete_essence_msg": true, "set_msg_emoji_like": true, "mark_msg_as_read": true,
}

// Reaches says what SnowLuma does with a write request of action.
func Reaches(action string, params json.RawMessage) Delivery {
	var p map[string]json.RawMessage
	json.Unmarshal(params, &p)
	var d Delivery
	has := func(k string) bool { _, ok := p[k]; return ok }
	id := func(k string) (int64, bool) { return qqmsg.ParseOutgoingID(p[k]) }
	to := func(kind, k string) {
		v, ok := id(k)
		if !ok || v <= 0 {
			return // SnowLuma refuses the call: it goes nowhere
		}
		d.Chats = append(d.Chats, kind+":"+strconv.FormatInt(v, 10))
	}
	str := func(k string) string {
		var s string
		if json.Unmarshal(p[k], &s) != nil {
			return strings.TrimSpace(string(p[k]))
		}
		return s
	}
	switch {
	case publicActions[action]:
		d.Chats = []string{"public"}
	case privateActions[action]:
		to("private", "user_id")
	case messageActions[action]:
		if v, ok := id("message_id"); ok {
			d.Chats = []string{"message:" + strconv.FormatInt(v, 10)}
		}
	case action == "send_msg": // actions/message.ts
		if str("message_type") == "group" || has("group_id") {
			to("group", "group_id")
		} else {
			to("private", "user_id")
		}
	case action == "send_forward_msg": // actions/extended.ts
		g, _ := id("group_id")
		u, _ := id("user_id")
		switch mt := str("message_type"); {
		case mt == "group" || g > 0:
			to("group", "group_id")
		case mt == "private" || u > 0:
			to("private", "user_id")
		}
	case action == "send_poke":
		if g, _ := id("group_id"); g != 0 {
			to("group", "group_id")
		} else {
			to("private", "user_id")
		}
	case action == "send_flash_msg":
		to("group", "group_id")
		to("private", "user_id")
	case action == "set_friend_add_request" || action == "set_group_add_request" || action == "set_doubt_friends_add_request":
		d.Chats = []string{"request"}
	case has("group_id"):
		to("group", "group_id")
	}
	// What each action carries, as its handler reads its params.
	for _, k := range []string{"message", "messages"} {
		if v, ok := p[k]; ok && carriesMessage(action) {
			d.message(qqmsg.ParseOutgoingParam(v, autoEscape(p["auto_escape"])), 0)
			if action != "send_msg" && action != "send_private_msg" && action != "send_group_msg" {
				break // forwards read messages, else message
			}
		}
	}
	for _, k := range mediaParams[action] {
		var list []string
		if json.Unmarshal(p[k], &list) != nil {
			list = []string{str(k)}
		}
		for _, s := range list {
			d.load(k, s)
		}
	}
	for _, k := range fetchParams[action] {
		if s := str(k); must2(qqmsg.ResourceKindOf(s)) == qqmsg.ResourceURL {
			d.load(k, s)
		}
	}
	for _, k := range []string{"content", "text", "nickname", "personal_note", "longNick", "long_nick", "wording", "card", "remark", "reason", "name", "data", "group_name", "special_title", "callback_data"} {
		if s := str(k); s != "" && has(k) {
			d.Content = true
		}
	}
	if action == "forward_friend_single_msg" || action == "forward_group_single_msg" {
		d.Carried = append(d.Carried, str("message_id"))
	}
	return d
}

// mediaParams are the params each action loads a source from.
var mediaParams = map[string][]string{
	"upload_group_file": {"file"}, "upload_private_file": {"file"}, "set_group_portrait": {"file"}, "set_qq_avatar": {"file"},
	"upload_image_to_qun_album": {"file"}, "_send_group_notice": {"image"}, "send_qzone_msg": {"images"}, "comment_qzone": {"images"},
	"add_custom_face": {"file"}, "create_flash_task": {"files", "thumb_path"},
}

// fetchParams are the params an action fetches a URL from for SnowLuma's
// own use (download_file saves it to data/downloads, the stream
// downloads read it, ocr_image reads its picture); a local path there
// stays on SnowLuma's side.
var fetchParams = map[string][]string{
	"download_file": {"url"}, "download_file_stream": {"file"}, "download_file_image_stream": {"file"},
	"download_file_record_stream": {"file"}, "ocr_image": {"image"},
}

func carriesMessage(action string) bool {
	switch action {
	case "send_msg", "send_private_msg", "send_group_msg", "send_forward_msg", "send_group_forward_msg", "send_private_forward_msg",
		"upload_forward_msg", "upload_foward_msg":
		return true
	}
	return false
}

// autoEscape is f.bool.
func autoEscape(v json.RawMessage) bool {
	s := strings.ToLower(strings.Trim(strings.TrimSpace(string(v)), `"`))
	return s == "true" || s == "1" || s == "yes" || s == "on"
}

func (d *Delivery) load(key, s string) {
	switch k, ok := qqmsg.ResourceKindOf(s); {
	case !ok:
	case k == qqmsg.ResourceInline:
		d.Content = true
	default:
		d.Sources = append(d.Sources, qqmsg.OutgoingResource{Key: key, Source: s, Kind: k})
	}
}

func (d *Delivery) message(segs []qqmsg.OutgoingSegment, depth int) {
	for _, seg := range segs {
		if len(qqmsg.OutgoingText(seg)) > 0 {
			d.Content = true
		}
		for _, r := range qqmsg.ResourcesOf(seg) {
			d.load(r.Key, r.Source)
		}
		d.Carried = append(d.Carried, qqmsg.OutgoingCarried(seg)...)
		if c, ok := qqmsg.OutgoingNodeContent(seg); ok && depth < 8 {
			d.message(qqmsg.ParseOutgoingMessage(bytes.TrimSpace(c), false), depth+1)
		}
	}
}

func must2(k qqmsg.ResourceKind, _ bool) qqmsg.ResourceKind { return k }
