package qqmsg

import (
	"strconv"
	"strings"
	"time"
)

// A Line is one message of a compact listing (AppendLines): who sent it,
// when, its id and its rendered text. Sender and Text are shown as they
// are given: a caller that hands the listing to a model neutralizes them
// first (package untrusted).
type Line struct {
	Time time.Time // zero when unknown
	// Chat names the message's chat ("group:<id>", "private:<id>") in a
	// listing of several chats; empty in a listing of one.
	Chat      string
	Sender    string
	UserID    int64
	MessageID int64
	Text      string
	ReplyTo   int64 // the message replied to; 0 when none
	Recalled  bool
	Own       bool // sent by the bot
}

// Indent is how every line of a message's text after its first starts in
// a listing, so that a line break inside one message cannot start a line
// that reads as another message.
const Indent = "    "

// breaks indents what follows each line break, whichever form it takes.
var breaks = strings.NewReplacer("\r\n", "\n"+Indent, "\r", "\n"+Indent, "\n", "\n"+Indent,
	"\u2028", "\n"+Indent, "\u2029", "\n"+Indent, "\u0085", "\n"+Indent)

// AppendLines appends msgs to b as a compact listing, one line a message
// in the order given:
//
//	2026-12-03 +08:00
//	09:40 张三(10001) #12345: 早
//	09:41 李四(10002) #12346 reply #12345: 早安
//
// A line starts with the local time in loc (UTC when nil) to the minute;
// a line holding the date comes before the first message of each day, with
// the zone's offset on the first and whenever it changes. Then the chat,
// when the line names one (09:40 group:20001 张三(10001) …), the sender
// (with [bot] for the bot's own), the user id, the message id, what it
// replies to and whether it was recalled, and after ": " the text, whose
// later lines start with Indent; the [回复 #id] that Render starts a reply's
// text with is left out, since the line names what it replies to. Every
// line ends with '\n'.
//
// It costs a model about a third of the same messages as JSON objects:
// the chat, the field names and the full timestamps are not repeated.
func AppendLines(b []byte, msgs []Line, loc *time.Location) []byte {
	if loc == nil {
		loc = time.UTC
	}
	var day, zone string
	for _, m := range msgs {
		if !m.Time.IsZero() {
			t := m.Time.In(loc)
			if d := t.Format(time.DateOnly); d != day {
				day = d
				b = append(b, d...)
				if z := t.Format("-07:00"); z != zone {
					zone = z
					b = append(b, ' ')
					b = append(b, z...)
				}
				b = append(b, '\n')
			}
			b = t.AppendFormat(b, "15:04")
			b = append(b, ' ')
		}
		if m.Chat != "" {
			b = append(b, m.Chat...)
			b = append(b, ' ')
		}
		sender := strings.TrimSpace(CleanName(m.Sender))
		if sender == "" {
			sender = "?"
		}
		b = append(b, sender...)
		b = append(b, '(')
		b = strconv.AppendInt(b, m.UserID, 10)
		b = append(b, ')')
		if m.Own {
			b = append(b, "[bot]"...)
		}
		b = append(b, " #"...)
		b = strconv.AppendInt(b, m.MessageID, 10)
		if m.ReplyTo != 0 {
			b = append(b, " reply #"...)
			b = strconv.AppendInt(b, m.ReplyTo, 10)
		}
		if m.Recalled {
			b = append(b, " [recalled]"...)
		}
		b = append(b, ": "...)
		text := m.Text
		if m.ReplyTo != 0 {
			text = strings.TrimPrefix(text, "[回复 #"+strconv.FormatInt(m.ReplyTo, 10)+"]")
		}
		b = append(b, breaks.Replace(text)...)
		b = append(b, '\n')
	}
	return b
}
