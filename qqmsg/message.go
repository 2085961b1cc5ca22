package qqmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of what one message becomes. They bound what reaches a model
// whatever a sender types.
const (
	// MaxMessageRunes caps the rendered text of one message, placeholders
	// included; the rest is cut and marked with TruncatedMark.
	MaxMessageRunes = 1000
	// MaxNameRunes caps a sender's name and a name inside a placeholder.
	MaxNameRunes = 32
	// MaxSegments is how many segments of one message are rendered; the
	// rest is cut as when the text is too long.
	MaxSegments = 200
	// maxMarks is how many combining marks may follow one character; more
	// are dropped (they only stack glyphs over neighbouring text).
	maxMarks = 3
)

// TruncatedMark ends a text that was cut at a cap.
const TruncatedMark = "…[截断]"

// An Event is one OneBot event as far as the channel reads it. Events
// from the network are hostile: every field may be missing, of the wrong
// type, or huge.
type Event struct {
	PostType    string
	MetaType    string // meta_event_type, for meta events
	MessageType string // "group" or "private" for messages
	SelfID      int64
	MessageID   int64
	GroupID     int64
	UserID      int64
	Time        int64
	// Sender is the sender's group card, else nickname, cleaned and capped.
	Sender string
	// Segments are the message, from an array of segments or a string
	// with CQ codes.
	Segments []Segment
}

// A Segment is one part of a message: its type and its data, each value
// read as a string (numbers as their decimal text).
type Segment struct {
	Type string
	Data map[string]string
}

// errNotObject is the cause of an event that is not a JSON object.
var errNotObject = errors.New("qqmsg: the event is not a JSON object")

// wireEvent is the JSON shape read by ParseEvent.
type wireEvent struct {
	PostType    flexString      `json:"post_type"`
	MetaType    flexString      `json:"meta_event_type"`
	MessageType flexString      `json:"message_type"`
	SelfID      flexID          `json:"self_id"`
	MessageID   flexID          `json:"message_id"`
	GroupID     flexID          `json:"group_id"`
	UserID      flexID          `json:"user_id"`
	Time        flexID          `json:"time"`
	Message     json.RawMessage `json:"message"`
	Sender      json.RawMessage `json:"sender"`
}

// wireSender is the part of a message's sender the channel reads.
type wireSender struct {
	Card     flexString `json:"card"`
	Nickname flexString `json:"nickname"`
}

// ParseEvent reads one event as SnowLuma sends it on its WebSocket. A
// field of the wrong type reads as absent; only a frame that is not a
// JSON object fails.
func ParseEvent(raw []byte) (*Event, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errNotObject
	}
	var w wireEvent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, errNotObject
	}
	var sender wireSender
	json.Unmarshal(w.Sender, &sender) // a sender that is not an object names no one
	e := &Event{
		PostType:    string(w.PostType),
		MetaType:    string(w.MetaType),
		MessageType: string(w.MessageType),
		SelfID:      int64(w.SelfID),
		MessageID:   int64(w.MessageID),
		GroupID:     int64(w.GroupID),
		UserID:      int64(w.UserID),
		Time:        int64(w.Time),
		Sender:      CleanName(cmpString(string(sender.Card), string(sender.Nickname))),
	}
	e.Segments = parseMessage(w.Message)
	return e, nil
}

func cmpString(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// flexString reads a JSON string; any other value reads as "".
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = flexString(v)
	}
	return nil
}

// flexID reads an id sent as a JSON integer or a string of digits; any
// other value reads as 0.
type flexID int64

func (id *flexID) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if len(s) > 0 && s[0] == '"' {
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*id = flexID(v)
	}
	return nil
}

// parseMessage reads a message given as an array of segments or as a
// string with CQ codes (SnowLuma's messageFormat "string").
func parseMessage(raw json.RawMessage) []Segment {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return ParseCQ(s)
	case '[':
		var segs []struct {
			Type flexString                 `json:"type"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if json.Unmarshal(raw, &segs) != nil {
			return nil
		}
		if len(segs) > MaxSegments+1 {
			segs = segs[:MaxSegments+1]
		}
		out := make([]Segment, 0, len(segs))
		for _, s := range segs {
			seg := Segment{Type: string(s.Type), Data: make(map[string]string, len(s.Data))}
			for k, v := range s.Data {
				seg.Data[k] = scalar(v)
			}
			out = append(out, seg)
		}
		return out
	}
	return nil
}

// scalar reads a JSON string or number as text; anything else is "".
func scalar(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	if v[0] == '"' {
		var s string
		json.Unmarshal(v, &s)
		return s
	}
	if v[0] == '-' || (v[0] >= '0' && v[0] <= '9') {
		return string(v)
	}
	return ""
}

// ParseCQ splits a OneBot string message into segments: text between CQ
// codes, and each [CQ:type,key=value,...] code. An unterminated code is
// text. Escapes (&#91; &#93; &#44; &amp;) are decoded.
func ParseCQ(s string) []Segment {
	var out []Segment
	text := func(t string) {
		if t != "" {
			out = append(out, Segment{Type: "text", Data: map[string]string{"text": cqUnescape(t)}})
		}
	}
	for len(s) > 0 && len(out) <= MaxSegments {
		i := strings.Index(s, "[CQ:")
		if i < 0 {
			break
		}
		end := strings.IndexByte(s[i:], ']')
		if end < 0 {
			break
		}
		text(s[:i])
		body := s[i+len("[CQ:") : i+end]
		s = s[i+end+1:]
		typ, params, _ := strings.Cut(body, ",")
		seg := Segment{Type: typ, Data: map[string]string{}}
		if params != "" {
			for _, kv := range strings.Split(params, ",") {
				k, v, _ := strings.Cut(kv, "=")
				seg.Data[k] = cqUnescape(v)
			}
		}
		out = append(out, seg)
	}
	text(s)
	return out
}

func cqUnescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return strings.NewReplacer("&#91;", "[", "&#93;", "]", "&#44;", ",", "&amp;", "&").Replace(s)
}

// Rendered is a message as the channel pushes it.
type Rendered struct {
	Text string
	// Mentioned: the message has an at segment naming the bot.
	Mentioned bool
	// ReplyTo is the message_id the message replies to; 0 when none.
	ReplyTo int64
	// Truncated: the text was cut at MaxMessageRunes or MaxSegments.
	Truncated bool
}

// placeholders are the short readable stand-ins for what is not text.
var placeholders = map[string]string{
	"json":      "[卡片]",
	"xml":       "[卡片]",
	"forward":   "[合并转发]",
	"node":      "[合并转发]",
	"poke":      "[戳一戳]",
	"shake":     "[窗口抖动]",
	"markdown":  "[Markdown]",
	"dice":      "[骰子]",
	"rps":       "[猜拳]",
	"share":     "[链接分享]",
	"location":  "[位置]",
	"contact":   "[名片]",
	"music":     "[音乐]",
	"anonymous": "[匿名]",
	"keyboard":  "[按钮]",
}

// Render turns a message's segments into plain text for a model: text as
// sent (cleaned), everything else as a short placeholder such as [@昵称],
// [回复 #id], [表情:微笑] or, for media, [图片 #1] with the number view_media
// takes. selfID is the bot's account, for Mentioned.
func Render(segs []Segment, selfID int64) Rendered {
	var r Rendered
	var b strings.Builder
	self := strconv.FormatInt(selfID, 10)
	nmedia := 0 // media segments so far
	for i, s := range segs {
		if i >= MaxSegments {
			r.Truncated = true
			break
		}
		switch s.Type {
		case "text":
			b.WriteString(s.Data["text"])
		case "at":
			qq := strings.TrimSpace(s.Data["qq"])
			name := CleanName(cmpString(s.Data["name"], s.Data["nickname"]))
			switch {
			case qq == "all":
				b.WriteString("[@全体成员]")
			case qq == self && selfID > 0:
				r.Mentioned = true
				b.WriteString("[@" + cmpString(name, "我") + "]")
			case name != "":
				b.WriteString("[@" + name + "]")
			default:
				b.WriteString("[@" + digits(qq) + "]")
			}
		case "reply":
			id, err := strconv.ParseInt(strings.TrimSpace(s.Data["id"]), 10, 64)
			if err == nil && r.ReplyTo == 0 {
				r.ReplyTo = id
			}
			b.WriteString("[回复 #" + digits(s.Data["id"]) + "]")
		case "file":
			nmedia++
			b.WriteString(FilePlaceholder(CleanName(cmpString(s.Data["name"], s.Data["file"])), nmedia))
		case "image", "mface", "record", "video":
			// Numbered as view_media counts them: [图片 #1], [语音 #2].
			nmedia++
			b.WriteString(Placeholder(KindOf(s.Type, s.Data), nmedia, s.Data))
		case "face":
			b.WriteString(FacePlaceholder(s.Data["id"]))
		default:
			if p, ok := placeholders[s.Type]; ok {
				b.WriteString(p)
			} else {
				b.WriteString("[" + typeName(s.Type) + "]")
			}
		}
		if b.Len() > 8*MaxMessageRunes {
			// Far past the cap in bytes: stop building.
			r.Truncated = true
			break
		}
	}
	text, cut := CapRunes(Clean(b.String(), true), MaxMessageRunes)
	if r.Truncated && !cut {
		// Cut at the segments: mark it, still within the cap.
		text, _ = CapRunes(text, MaxMessageRunes-utf8.RuneCountInString(TruncatedMark))
		text = strings.TrimSuffix(text, TruncatedMark) + TruncatedMark
	}
	r.Text = text
	r.Truncated = r.Truncated || cut
	return r
}

// digits keeps the ASCII digits of s, and a leading minus sign, at most
// 20: an id quoted in a placeholder (SnowLuma's message ids may be
// negative).
func digits(s string) string {
	var b strings.Builder
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		b.WriteByte('-')
	}
	for _, c := range s {
		if c >= '0' && c <= '9' && b.Len() < 20 {
			b.WriteRune(c)
		}
	}
	if b.String() == "-" {
		b.Reset()
	}
	if b.Len() == 0 {
		return "?"
	}
	return b.String()
}

// typeName shows an unknown segment type: lower-case letters, digits and
// underscores only, at most 16; anything else reads as 消息.
func typeName(t string) string {
	if t == "" || len(t) > 16 {
		return "消息"
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "消息"
		}
	}
	return t
}

// CleanName cleans a name for one line: no line breaks, capped at
// MaxNameRunes.
func CleanName(s string) string {
	s, _ = CapRunes(strings.TrimSpace(Clean(s, false)), MaxNameRunes)
	return s
}

// CapRunes cuts s to at most n runes, marking the cut with TruncatedMark.
func CapRunes(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	keep := n - utf8.RuneCountInString(TruncatedMark)
	i := 0
	for pos := range s {
		if i == keep {
			return strings.TrimRightFunc(s[:pos], unicode.IsSpace) + TruncatedMark, true
		}
		i++
	}
	return s, false
}

// Clean removes from s what a reader cannot see or that changes how the
// text around it reads: control characters (a tab becomes a space; with
// keepLines, line breaks become "\n", else a space), format characters
// (zero-width spaces and joiners, bidirectional overrides and isolates,
// the byte-order mark, tag characters, soft hyphens), invisible fillers,
// noncharacters, invalid UTF-8 and stacks of more than three combining
// marks. Runs of more than two line breaks become two, and the text is
// trimmed.
func Clean(s string, keepLines bool) string {
	var b strings.Builder
	b.Grow(len(s))
	marks, newlines := 0, 0
	for i, w := 0, 0; i < len(s); i += w {
		var r rune
		r, w = utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 {
			continue
		}
		if r == '\r' && strings.HasPrefix(s[i+w:], "\n") {
			continue
		}
		if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085' {
			marks = 0
			if !keepLines {
				b.WriteByte(' ')
				continue
			}
			if newlines++; newlines <= 2 {
				b.WriteByte('\n')
			}
			continue
		}
		if r == '\t' {
			r = ' '
		}
		switch {
		case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), invisible(r):
			continue
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
			if marks++; marks > maxMarks {
				continue
			}
		default:
			marks = 0
		}
		newlines = 0
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// invisible reports letters and symbols that draw nothing (Hangul and
// halfwidth fillers, the braille blank) and noncharacters.
func invisible(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u3164', '\uFFA0', '\u2800', '\u034F', '\u17B4', '\u17B5':
		return true
	}
	return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE
}
