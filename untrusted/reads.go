package untrusted

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
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

// CarriesText reports whether the read-only action's answer holds text
// written by other people (its effect in the catalog; see ReadChats).
func CarriesText(action string) bool {
	e, ok := catalog.EffectOf(action)
	return ok && e.OthersText()
}

// ReadChats returns the chats whose text a successful answer of action
// (a read-only action called with params) carries, or nil when its answer
// carries none. envelope is SnowLuma's OneBot envelope.
func ReadChats(action string, params, envelope json.RawMessage) []Chat {
	e, ok := catalog.EffectOf(action)
	if !ok || !e.OthersText() {
		return nil
	}
	var p struct {
		GroupID id `json:"group_id"`
		UserID  id `json:"user_id"`
	}
	json.Unmarshal(params, &p)
	switch e.Reads {
	case catalog.ReadsGroup:
		return []Chat{GroupChat(int64(p.GroupID))}
	case catalog.ReadsUser:
		return []Chat{PrivateChat(int64(p.UserID))}
	case catalog.ReadsTarget:
		if p.GroupID > 0 {
			return []Chat{GroupChat(int64(p.GroupID))}
		}
		return []Chat{PrivateChat(int64(p.UserID))}
	case catalog.ReadsAnswer:
		if m := answerMessages(envelope); len(m) > 0 {
			return []Chat{m[0].chat}
		}
		var env struct {
			Data eventFields `json:"data"`
		}
		json.Unmarshal(envelope, &env)
		if c := messageChat(env.Data); c.Kind != Unknown {
			return []Chat{c}
		}
		return []Chat{UnknownChat}
	case catalog.ReadsAnswerIDs:
		return listChats(envelope)
	}
	return []Chat{UnknownChat}
}

// NoteRead records on l what a successful answer of the read-only action
// hands the model: its chats, and the chat of each message it holds (so
// that a reply or forward carrying one is judged by where it came from).
func NoteRead(l *Ledger, action string, params, envelope json.RawMessage) {
	chats := ReadChats(action, params, envelope)
	if chats == nil {
		return
	}
	l.Note(chats...)
	for _, m := range answerMessages(envelope) {
		l.NoteMessage(m.id, m.chat)
	}
}

// A seenMessage is a message id and its chat.
type seenMessage struct {
	id   int64
	chat Chat
}

// messageFields are the fields of a message (an event, get_msg's data,
// an entry of a history) that name it and its chat.
type messageFields struct {
	eventFields
	MessageID id `json:"message_id"`
}

// messageChat is the chat of a message's fields.
func messageChat(m eventFields) Chat {
	switch {
	case m.MessageType == "group" && m.GroupID > 0, m.MessageType == "" && m.GroupID > 0:
		return GroupChat(int64(m.GroupID))
	case m.MessageType == "private":
		return PrivateChat(int64(m.UserID))
	}
	return UnknownChat
}

// eventMessages is the message of a message event, if it is one.
func eventMessages(raw []byte) []seenMessage {
	var m messageFields
	if json.Unmarshal(raw, &m) != nil || m.PostType != "message" || m.MessageID == 0 {
		return nil
	}
	return []seenMessage{{int64(m.MessageID), messageChat(m.eventFields)}}
}

// answerMessages finds the messages of an answer's data: the data itself
// (get_msg) or the items of its messages array (histories).
func answerMessages(envelope json.RawMessage) []seenMessage {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(envelope, &env) != nil || len(env.Data) == 0 {
		return nil
	}
	var out []seenMessage
	var one messageFields
	if json.Unmarshal(env.Data, &one) == nil && one.MessageID != 0 {
		out = append(out, seenMessage{int64(one.MessageID), messageChat(one.eventFields)})
	}
	var list struct {
		Messages []messageFields `json:"messages"`
	}
	if json.Unmarshal(env.Data, &list) == nil {
		for _, m := range list.Messages {
			if m.MessageID != 0 {
				out = append(out, seenMessage{int64(m.MessageID), messageChat(m.eventFields)})
			}
		}
	}
	return out
}

// listChats names the chat of each entry of a list answer (groups by
// group_id, people by user_id, nested lists such as friend categories
// included); a list it cannot read is the unknown chat.
func listChats(envelope json.RawMessage) []Chat {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(envelope, &env) != nil {
		return []Chat{UnknownChat}
	}
	var out []Chat
	var walk func(v json.RawMessage, depth int)
	walk = func(v json.RawMessage, depth int) {
		v = bytes.TrimSpace(v)
		if len(v) == 0 || depth > 4 {
			return
		}
		switch v[0] {
		case '[':
			var items []json.RawMessage
			json.Unmarshal(v, &items)
			for _, it := range items {
				walk(it, depth+1)
			}
		case '{':
			var obj map[string]json.RawMessage
			json.Unmarshal(v, &obj)
			var g, u id
			json.Unmarshal(obj["group_id"], &g)
			json.Unmarshal(obj["user_id"], &u)
			switch {
			case g > 0:
				out = append(out, GroupChat(int64(g)))
			case u > 0:
				out = append(out, PrivateChat(int64(u)))
			default:
				for _, it := range obj {
					walk(it, depth+1)
				}
			}
		}
	}
	walk(env.Data, 0)
	if out == nil && len(bytes.TrimSpace(env.Data)) > 2 {
		return []Chat{UnknownChat}
	}
	return out
}

// NoteSent records on l the chat of the message a successful send
// created (its answer's message_id), when the send went to one chat: a
// reply to the bot's own message there is then judged by where it is.
// The chat is not noted as read: the bot wrote it.
func NoteSent(l *Ledger, a *catalog.Action, params, envelope json.RawMessage) {
	if l == nil || !a.Send {
		return
	}
	var env struct {
		Data struct {
			MessageID id `json:"message_id"`
		} `json:"data"`
	}
	if json.Unmarshal(envelope, &env) != nil || env.Data.MessageID == 0 {
		return
	}
	t, err := Targets(a, params)
	switch {
	case err != nil || len(t.Unreadable) > 0:
	case len(t.Groups) == 1:
		l.knowMessage(int64(env.Data.MessageID), GroupChat(t.Groups[0]))
	case len(t.Groups) == 0 && len(t.Users) == 1:
		l.knowMessage(int64(env.Data.MessageID), PrivateChat(t.Users[0]))
	}
}
