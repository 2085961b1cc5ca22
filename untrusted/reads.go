package untrusted

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// What a read hands the model. An event names its chat; an action's answer
// is the chat its params name, or the chats its data names.

// eventFields are the fields of an event that name its chat.
type eventFields struct {
	PostType    string `json:"post_type"`
	MessageType string `json:"message_type"`
	RequestType string `json:"request_type"`
	GroupID     id     `json:"group_id"`
	UserID      id     `json:"user_id"`
}

// id reads an id sent as a JSON number or a string of digits; anything
// else reads as 0.
type id int64

func (v *id) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*v = id(n)
	}
	return nil
}

// EventChats returns the chat whose text one OneBot event carries: a
// message's group or private chat, a notice's group (else the person's
// private chat), a request's applicant (whose comment it carries). The
// bot's own messages (message_sent) and meta events carry none; an event
// that names no chat is the unknown chat.
func EventChats(raw []byte) []Chat {
	var e eventFields
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	switch e.PostType {
	case "message":
		if e.MessageType == "group" || (e.MessageType == "" && e.GroupID > 0) {
			return []Chat{GroupChat(int64(e.GroupID))}
		}
		return []Chat{PrivateChat(int64(e.UserID))}
	case "notice":
		if e.GroupID > 0 {
			return []Chat{GroupChat(int64(e.GroupID))}
		}
		return []Chat{PrivateChat(int64(e.UserID))}
	case "request":
		return []Chat{PrivateChat(int64(e.UserID))}
	}
	return nil
}

// How a read action's chats are found.
const (
	byGroupParam = iota + 1 // the group its group_id param names
	byUserParam             // the private chat its user_id param names
	byAnswer                // the chat its answer's data names (get_msg)
	byNone                  // text of chats it cannot tell
)

// readActions are the read-only actions whose answer holds text written
// by QQ users, by how their chat is found. Member lists and profiles also
// hold names people chose; they are left out, as names are not where a
// request to send something hides.
var readActions = map[string]int{
	"get_msg":                    byAnswer,
	"get_group_msg_history":      byGroupParam,
	"get_friend_msg_history":     byUserParam,
	"get_forward_msg":            byNone,
	"get_essence_msg_list":       byGroupParam,
	"_get_group_notice":          byGroupParam,
	"get_group_root_files":       byGroupParam,
	"get_group_files_by_folder":  byGroupParam,
	"get_group_album_media_list": byGroupParam,
	"get_group_system_msg":       byNone,
	"get_recent_contact":         byNone,
	"get_qzone_msg_list":         byNone,
}

// CarriesText reports whether the read-only action's answer holds text
// written by QQ users (see ReadChats).
func CarriesText(action string) bool { return readActions[action] != 0 }

// ReadChats returns the chats whose text a successful answer of action
// (a read-only action called with params) carries, or nil when its answer
// carries none. envelope is SnowLuma's OneBot envelope.
func ReadChats(action string, params, envelope json.RawMessage) []Chat {
	var p struct {
		GroupID id `json:"group_id"`
		UserID  id `json:"user_id"`
	}
	switch readActions[action] {
	case byGroupParam:
		json.Unmarshal(params, &p)
		return []Chat{GroupChat(int64(p.GroupID))}
	case byUserParam:
		json.Unmarshal(params, &p)
		return []Chat{PrivateChat(int64(p.UserID))}
	case byNone:
		return []Chat{UnknownChat}
	case byAnswer:
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(envelope, &env)
		var m eventFields
		json.Unmarshal(env.Data, &m)
		switch {
		case m.MessageType == "group" && m.GroupID > 0, m.MessageType == "" && m.GroupID > 0:
			return []Chat{GroupChat(int64(m.GroupID))}
		case m.MessageType == "private":
			return []Chat{PrivateChat(int64(m.UserID))}
		}
		return []Chat{UnknownChat}
	}
	return nil
}
