package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// segment is one OneBot message segment.
type segment struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// textSegment is a text segment.
func textSegment(text string) segment {
	b, _ := json.Marshal(map[string]string{"text": text}) // a string map always encodes
	return segment{Type: "text", Data: b}
}

// parseMessage reads a send action's message as SnowLuma does: a string is
// CQ-coded text (plain text with autoEscape), an object is one segment, an
// array is a list of segments; a string that looks like a JSON array is
// read as one.
func parseMessage(raw json.RawMessage, autoEscape bool) ([]segment, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, errors.New("message: is required")
	}
	var segs []segment
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, errors.New("message: expected a string, a segment or an array of segments")
		}
		// SnowLuma's f.message (action-kit.ts): a string that is a JSON
		// array, after JavaScript's trim, is that array.
		if arr, ok := qqmsg.OutgoingJSONArray(s); ok {
			return parseMessage(arr, autoEscape)
		}
		if autoEscape {
			segs = []segment{textSegment(s)}
		} else {
			segs = parseCQ(s)
		}
	case '{':
		var one segment
		if err := json.Unmarshal(raw, &one); err != nil || one.Type == "" {
			return nil, errors.New("message: a segment needs a type and a data object")
		}
		segs = []segment{one}
	case '[':
		var list []segment
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, errors.New("message: each segment needs a type and a data object")
		}
		for _, s := range list {
			if s.Type == "" {
				return nil, errors.New("message: each segment needs a type")
			}
		}
		segs = list
	default:
		return nil, errors.New("message: expected a string, a segment or an array of segments")
	}
	for i := range segs {
		if d := bytes.TrimSpace(segs[i].Data); len(d) == 0 || d[0] != '{' {
			segs[i].Data = json.RawMessage("{}")
		}
	}
	if len(segs) == 0 || (len(segs) == 1 && segs[0].Type == "text" && segmentText(segs[0]) == "") {
		return nil, errors.New("message: must not be empty")
	}
	return segs, nil
}

// dataSegment is a segment of type with string data, as SnowLuma's
// converter gives them (ids as decimal strings).
func dataSegment(typ string, data map[string]string) segment {
	b, _ := json.Marshal(data) // a string map always encodes
	return segment{Type: typ, Data: b}
}

// worldFaces are QQ face ids the world's members use: 微笑, 呲牙, 赞,
// 抱拳, 玫瑰, 捂脸.
var worldFaces = []int{14, 13, 76, 118, 63, 264}

// chatLine dresses a line said in conversation c the way real chats look
// in SnowLuma's segments: now and then an @ of the bot (groups only), a
// reply to an earlier message of c, or a face after the text; mostly
// plain text. Its draws come from w.deco. w.mu is held, or the world is
// being built.
func (w *world) chatLine(c peer, line string) []segment {
	r := w.deco
	text := textSegment(line)
	switch k := r.IntN(10); {
	case k == 0 && c.group:
		return []segment{dataSegment("at", map[string]string{"qq": strconv.FormatInt(w.self, 10)}), textSegment(" " + line)}
	case k <= 2:
		ids := w.byPeer[c]
		if len(ids) == 0 {
			break
		}
		to := ids[len(ids)-1-r.IntN(min(len(ids), 5))]
		return []segment{dataSegment("reply", map[string]string{"id": strconv.FormatInt(int64(to), 10)}), text}
	case k == 3:
		face := worldFaces[r.IntN(len(worldFaces))]
		return []segment{text, dataSegment("face", map[string]string{"id": strconv.Itoa(face)})}
	}
	return []segment{text}
}

// segmentText is a text segment's text.
func segmentText(s segment) string {
	var d struct {
		Text string `json:"text"`
	}
	json.Unmarshal(s.Data, &d)
	return d.Text
}

// parseCQ splits CQ-coded text into segments: [CQ:type,key=value,...]
// codes and the text between them, unescaped.
func parseCQ(s string) []segment {
	var segs []segment
	for s != "" {
		i := strings.Index(s, "[CQ:")
		if i < 0 {
			segs = append(segs, textSegment(cqUnescape(s)))
			break
		}
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			segs = append(segs, textSegment(cqUnescape(s)))
			break
		}
		if i > 0 {
			segs = append(segs, textSegment(cqUnescape(s[:i])))
		}
		code := s[i+len("[CQ:") : i+j]
		s = s[i+j+1:]
		typ, rest, _ := strings.Cut(code, ",")
		data := map[string]string{}
		if rest != "" {
			for _, kv := range strings.Split(rest, ",") {
				k, v, _ := strings.Cut(kv, "=")
				data[k] = cqUnescape(v)
			}
		}
		b, _ := json.Marshal(data) // a string map always encodes
		segs = append(segs, segment{Type: typ, Data: b})
	}
	return segs
}

// cqUnescape undoes CQ code escaping.
func cqUnescape(s string) string {
	return strings.NewReplacer("&#91;", "[", "&#93;", "]", "&#44;", ",", "&amp;", "&").Replace(s)
}

// rawMessage renders segments as CQ-coded text, as raw_message carries it.
func rawMessage(segs []segment) string {
	var b strings.Builder
	textEscaper := strings.NewReplacer("&", "&amp;", "[", "&#91;", "]", "&#93;")
	valueEscaper := strings.NewReplacer("&", "&amp;", "[", "&#91;", "]", "&#93;", ",", "&#44;")
	for _, s := range segs {
		if s.Type == "text" {
			b.WriteString(textEscaper.Replace(segmentText(s)))
			continue
		}
		var data map[string]any
		json.Unmarshal(s.Data, &data)
		b.WriteString("[CQ:" + s.Type)
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v, ok := data[k].(string)
			if !ok {
				e, _ := json.Marshal(data[k])
				v = string(e)
			}
			b.WriteString("," + k + "=" + valueEscaper.Replace(v))
		}
		b.WriteString("]")
	}
	return b.String()
}

// messageEvent is a message as SnowLuma puts it on the event WebSocket
// and, without post_type and self_id and with real_id, in get_msg and the
// history actions.
type messageEvent struct {
	Time        int64           `json:"time"`
	SelfID      int64           `json:"self_id,omitempty"`
	PostType    string          `json:"post_type,omitempty"`
	MessageType string          `json:"message_type"`
	SubType     string          `json:"sub_type"`
	MessageID   int32           `json:"message_id"`
	RealID      *int32          `json:"real_id,omitempty"`
	MessageSeq  int64           `json:"message_seq"`
	GroupID     int64           `json:"group_id,omitempty"`
	TargetID    int64           `json:"target_id,omitempty"`
	UserID      int64           `json:"user_id"`
	Message     []segment       `json:"message"`
	RawMessage  string          `json:"raw_message"`
	Font        int             `json:"font"`
	Sender      any             `json:"sender"`
	Anonymous   json.RawMessage `json:"anonymous,omitempty"`
}

type groupSender struct {
	UserID   int64  `json:"user_id"`
	Nickname string `json:"nickname"`
	Card     string `json:"card"`
	Role     string `json:"role"`
	Sex      string `json:"sex"`
	Age      int    `json:"age"`
}

type privateSender struct {
	UserID   int64  `json:"user_id"`
	Nickname string `json:"nickname"`
	Sex      string `json:"sex"`
	Age      int    `json:"age"`
}

// view is m as SnowLuma shows it: as an event (asEvent) or as an API
// answer. w.mu is held.
func (w *world) view(m *message, asEvent bool) messageEvent {
	e := messageEvent{Time: m.time, MessageID: m.id, MessageSeq: m.seq, UserID: m.sender,
		Message: m.segments, RawMessage: rawMessage(m.segments)}
	if asEvent {
		e.SelfID = w.self
		e.PostType = "message"
		if m.sender == w.self {
			e.PostType = "message_sent"
		}
	} else {
		id := m.id
		e.RealID = &id
	}
	if m.selfCopy && !asEvent {
		// SnowLuma's own copy of a send: the sender it knows without
		// asking QQ, and the conversation as group_id or target_id.
		e.Sender = privateSender{UserID: w.self, Sex: "unknown"}
		e.MessageType, e.SubType = "private", "friend"
		if m.peer.group {
			e.MessageType, e.SubType, e.GroupID = "group", "normal", m.peer.id
		} else {
			e.TargetID = m.peer.id
		}
		return e
	}
	nickname := w.nicknameOf(m.sender)
	if m.peer.group {
		e.MessageType, e.SubType, e.GroupID = "group", "normal", m.peer.id
		e.Anonymous = json.RawMessage("null")
		s := groupSender{UserID: m.sender, Nickname: nickname, Role: "member", Sex: "unknown"}
		if g := w.groupByID(m.peer.id); g != nil {
			if mem := g.member(m.sender); mem != nil {
				s.Card, s.Role = mem.card, mem.role
			}
		}
		e.Sender = s
	} else {
		e.MessageType, e.SubType = "private", "friend"
		e.Sender = privateSender{UserID: m.sender, Nickname: nickname, Sex: "unknown"}
	}
	return e
}

// nicknameOf is the nickname of id: the bot's own, or a known person's.
func (w *world) nicknameOf(id int64) string {
	if id == w.self {
		return w.nickname
	}
	if p := w.people[id]; p != nil {
		return p.nickname
	}
	return ""
}

// encode marshals v for an event or an answer; every value the world
// builds encodes.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("simulator: encoding the world: " + err.Error())
	}
	return b
}
