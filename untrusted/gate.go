package untrusted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// A Write is one write call as the gate reads it: what SnowLuma will do
// with it, from the action's effect (catalog.EffectOf) and its message
// params parsed as SnowLuma parses them (qqmsg).
type Write struct {
	Action string
	// Send: the catalog says the action posts something others see.
	// Forward: it carries existing messages (a forward of message ids,
	// forward nodes, a reply).
	Send, Forward bool
	// Public: it publishes outside any chat (QZone, the profile, the
	// status, the avatar, a share link, a raw packet).
	Public bool
	// Chats are the chats SnowLuma will write to, resolved as its handler
	// does: send_private_msg's user_id alone, send_msg's by message_type
	// then the ids, a group for a member's action. A param SnowLuma does
	// not read names nothing.
	Chats []Chat
	// Unreadable lists destination values that are not ids SnowLuma
	// reads.
	Unreadable []string
	// Text: it carries words or data to others: a text param, a message's
	// text or card, inline base64 data.
	Text bool
	// URL is the first URL SnowLuma fetches or sends on (clipped); ""
	// when none.
	URL string
	// LocalFile is the first local file SnowLuma would open and send: an
	// automatic upload's path, or a source that is neither base64:// nor
	// http(s):// (relative paths and bare names included).
	LocalFile string
	// Carried are the existing messages it copies to its destination:
	// message ids as text, or "forward:<id>" for an uploaded forward.
	Carried []string
}

// ReadWrite reads a call of a with params for the gate. upload is the
// local path of an automatic upload (execution.input_file), "" when none.
// An action without an effect (none should be: a test checks) is read as
// one that publishes whatever it holds.
func ReadWrite(a *catalog.Action, params json.RawMessage, upload string) (Write, error) {
	w := Write{Action: a.Name, Send: a.Send, LocalFile: upload}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return Write{}, fmt.Errorf("params are not a JSON object: %w", err)
	}
	e, ok := catalog.EffectOf(a.Name)
	if !ok {
		w.Public = true
		for _, name := range slices.Sorted(maps.Keys(fields)) {
			walkStrings(name, fields[name], func(_, s string) { w.text(s) })
		}
		return w, nil
	}
	w.destinations(e, fields)
	for _, name := range e.Text {
		walkStrings(name, fields[name], func(_, s string) { w.text(s) })
	}
	autoEscape := jsBool(fields["auto_escape"])
	for _, name := range e.Message {
		if v, ok := fields[name]; ok {
			w.message(qqmsg.ParseOutgoingParam(v, autoEscape), 0)
		}
	}
	for _, name := range e.Media {
		walkStrings(name, fields[name], func(_, s string) { w.source(s) })
	}
	for _, name := range e.Fetch {
		walkStrings(name, fields[name], func(_, s string) {
			if k, _ := qqmsg.ResourceKindOf(s); k == qqmsg.ResourceURL && w.URL == "" {
				w.URL = clipText(s, 80)
			}
		})
	}
	for _, name := range e.Carries {
		if v, ok := fields[name]; ok {
			w.Carried = append(w.Carried, jsText(v))
		}
	}
	w.Forward = w.Forward || len(w.Carried) > 0 && len(e.Carries) > 0
	return w, nil
}

// destinations sets w.Chats (and w.Public) as SnowLuma's handler picks
// the destination (catalog.Effect.To).
func (w *Write) destinations(e catalog.Effect, fields map[string]json.RawMessage) {
	group := func() { w.chat(fields, "group_id", GroupChat) }
	user := func() { w.chat(fields, "user_id", PrivateChat) }
	has := func(k string) bool { _, ok := fields[k]; return ok }
	switch e.To {
	case catalog.DestGroup:
		group()
	case catalog.DestUser:
		user()
	case catalog.DestMember:
		if has("group_id") || !has("user_id") {
			group()
		} else {
			user() // SnowLuma refuses it without a group; judged as the person
		}
	case catalog.DestSendMsg: // actions/message.ts, send_msg
		if jsText(fields["message_type"]) == "group" || has("group_id") {
			group()
		} else {
			user()
		}
	case catalog.DestSendForward: // actions/extended.ts, send_forward_msg
		mt := jsText(fields["message_type"])
		g, _ := qqmsg.ParseOutgoingID(fields["group_id"])
		u, _ := qqmsg.ParseOutgoingID(fields["user_id"])
		switch {
		case mt == "group" || g > 0:
			group()
		case mt == "private" || u > 0:
			user()
		}
	case catalog.DestPoke: // actions/extended.ts, send_poke
		if g, _ := qqmsg.ParseOutgoingID(fields["group_id"]); g != 0 || has("group_id") && !jsFalsy(fields["group_id"]) {
			group()
		} else {
			user()
		}
	case catalog.DestEach:
		group()
		user()
	case catalog.DestPublic:
		w.Public = true
	}
}

// chat adds the chat the id param name holds, or an unreadable value.
// An array (set_group_kick_members' users) adds each.
func (w *Write) chat(fields map[string]json.RawMessage, name string, of func(int64) Chat) {
	v, ok := fields[name]
	if !ok {
		return
	}
	var items []json.RawMessage
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '[' && json.Unmarshal(t, &items) == nil {
	} else {
		items = []json.RawMessage{v}
	}
	for _, it := range items {
		id, ok := qqmsg.ParseOutgoingID(it)
		if !ok || id <= 0 {
			w.Unreadable = append(w.Unreadable, name+"="+quote.Clip(strings.TrimSpace(string(it)), 40))
			continue
		}
		if c := of(id); !slices.Contains(w.Chats, c) {
			w.Chats = append(w.Chats, c)
		}
	}
}

// text notes a string that reaches others as words.
func (w *Write) text(s string) {
	if strings.TrimSpace(s) != "" {
		w.Text = true
	}
	if w.URL == "" {
		w.URL = findURL(s)
	}
}

// source notes a source SnowLuma loads and sends on.
func (w *Write) source(s string) {
	switch k, _ := qqmsg.ResourceKindOf(s); k {
	case qqmsg.ResourceInline:
		w.Text = true
	case qqmsg.ResourceURL:
		if w.URL == "" {
			w.URL = clipText(s, 80)
		}
	case qqmsg.ResourceLocal:
		if w.LocalFile == "" {
			w.LocalFile = clipText(s, 80)
		}
	}
}

// maxNodeDepth is how deep forward nodes are read; SnowLuma stops at
// its own limit (MAX_FORWARD_DEPTH), and deeper content is judged as text.
const maxNodeDepth = 8

// message notes what parsed segments carry: their text, each source they
// load, the messages they copy, and any URL in any of their fields; a
// node's content is a message of its own.
func (w *Write) message(segs []qqmsg.OutgoingSegment, depth int) {
	for _, seg := range segs {
		for _, s := range qqmsg.OutgoingText(seg) {
			w.text(s)
		}
		for _, r := range qqmsg.ResourcesOf(seg) {
			w.source(r.Source)
		}
		if c := qqmsg.OutgoingCarried(seg); len(c) > 0 {
			w.Carried = append(w.Carried, c...)
			if seg.Type != "reply" {
				w.Forward = true
			}
		}
		if seg.Type == "node" || seg.Type == "forward" {
			w.Forward = true
		}
		for _, k := range slices.Sorted(maps.Keys(seg.Data)) {
			if w.URL != "" {
				break
			}
			walkStrings(k, seg.Data[k], func(_, s string) {
				if w.URL == "" {
					w.URL = findURL(s)
				}
			})
		}
		if content, ok := qqmsg.OutgoingNodeContent(seg); ok {
			if depth >= maxNodeDepth {
				walkStrings("content", content, func(_, s string) { w.text(s) })
				continue
			}
			// A node's content is a list of nodes (nested), or a message
			// parsed without the JSON-array step (parseForwardNodes).
			w.message(qqmsg.ParseOutgoingMessage(content, false), depth+1)
		}
	}
}

// jsText is String(x) of a JSON value: a string as is, else its JSON
// text; "" when absent or null.
func jsText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return ""
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// jsFalsy reports a JSON value JavaScript reads as false: absent, null,
// false, 0, "".
func jsFalsy(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "", "null", "false", "0", `""`:
		return true
	}
	return false
}

// jsBool is SnowLuma's f.bool for auto_escape: true, 1, or the words
// true, 1, yes, on.
func jsBool(v json.RawMessage) bool {
	switch strings.ToLower(strings.TrimSpace(jsText(v))) {
	case "true", "1", "yes", "on":
		return true
	}
	if n, ok := qqmsg.ParseOutgoingID(v); ok && n != 0 && bytes.TrimSpace(v)[0] != '"' {
		return true
	}
	return false
}

// walkStrings calls f with every string inside v and the name of the
// object key it sits under (name for v itself and the items of arrays),
// object keys in sorted order.
func walkStrings(name string, v json.RawMessage, f func(key, s string)) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			f(name, s)
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			for _, it := range items {
				walkStrings(name, it, f)
			}
		}
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) == nil {
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				walkStrings(k, obj[k], f)
			}
		}
	}
}

// findURL returns the first URL in s: a scheme (letters, digits, + . -,
// starting with a letter) followed by ://, clipped; base64:// (data
// inline, not an address) is not one.
func findURL(s string) string {
	for off := 0; ; {
		i := strings.Index(s[off:], "://")
		if i < 0 {
			return ""
		}
		i += off
		start := i
		for start > 0 && schemeByte(s[start-1]) {
			start--
		}
		// The scheme must start with a letter.
		for start < i && !isLetter(s[start]) {
			start++
		}
		if start < i && !strings.EqualFold(s[start:i], "base64") {
			end := i + 3
			for end < len(s) && s[end] > ' ' && s[end] != '"' && s[end] != '\'' && s[end] != '<' && s[end] != '>' {
				end++
			}
			if end > i+3 {
				return clipText(s[start:end], 80)
			}
		}
		off = i + 3
	}
}

func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

func schemeByte(b byte) bool {
	return isLetter(b) || b >= '0' && b <= '9' || b == '+' || b == '.' || b == '-'
}

// clipText cuts s to n characters, marking the cut.
func clipText(s string, n int) string { return quote.Clip(s, n) }

// A Decision is the gate's answer for one write.
type Decision struct {
	// Free says the write may run without a person: nothing untrusted was
	// read, or it stays in the chats that were read and carries no URL
	// and no local file.
	Free bool
	// Armed says untrusted text was read on the connection; Read lists
	// its chats (oldest first).
	Armed bool
	Read  []Chat
	// Reasons say why the write is not free.
	Reasons []Reason
}

// A Reason is one way a write could carry untrusted text elsewhere.
type Reason struct {
	Kind ReasonKind
	// Detail is the local file, the URL or the values that are not ids.
	Detail string
	// Chats are the chats not read that the write names (Elsewhere), and
	// Verb how it reaches them: "sends to", "forwards to", "writes to".
	Chats []Chat
	Verb  string
}

// A ReasonKind is what makes a write not free.
type ReasonKind uint8

const (
	LocalFile ReasonKind = iota + 1 // it uploads a local file
	HasURL                          // a URL is in its params
	Elsewhere                       // it names a chat whose messages were not read
	NotAnID                         // a target param holds something other than an id
	NoChat                          // it carries text and names no chat
	Public                          // it publishes what it carries outside any chat
	Carries                         // it copies a message of another chat, or of one not known
)

// String says the reason as a clause: "it sends to group:2, whose
// messages were not read here".
func (r Reason) String() string {
	switch r.Kind {
	case LocalFile:
		return "it uploads the local file " + r.Detail
	case HasURL:
		return "its params hold the URL " + r.Detail
	case Elsewhere:
		return fmt.Sprintf("it %s %s, whose messages were not read here", r.Verb, Names(r.Chats))
	case NotAnID:
		return "it names " + r.Detail + ", which is not an id"
	case NoChat:
		return "it names no chat, so what it carries goes outside the chats read"
	case Public:
		return "it publishes what it carries outside any chat"
	case Carries:
		if len(r.Chats) == 0 {
			return "it carries message " + r.Detail + ", whose chat is not known here"
		}
		return fmt.Sprintf("it carries message %s of %s into another chat", r.Detail, Names(r.Chats))
	}
	return "unknown"
}

// Because joins the reasons as clauses for a refusal.
func (d Decision) Because() string {
	s := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		s[i] = r.String()
	}
	return strings.Join(s, "; ")
}

// Judge decides whether w may run freely after what l records. It does
// not apply the mode: the caller asks a person, refuses, or (ModeOff)
// does not call it.
func Judge(l *Ledger, w Write) Decision {
	d := Decision{Armed: l.Armed(), Read: l.Chats()}
	if !d.Armed {
		d.Free = true
		return d
	}
	if w.LocalFile != "" {
		d.Reasons = append(d.Reasons, Reason{Kind: LocalFile, Detail: w.LocalFile})
	}
	if w.URL != "" {
		d.Reasons = append(d.Reasons, Reason{Kind: HasURL, Detail: w.URL})
	}
	verb := "writes to"
	switch {
	case w.Forward:
		verb = "forwards to"
	case w.Send:
		verb = "sends to"
	}
	var unread []Chat
	for _, c := range w.Chats {
		if !l.Read(c) {
			unread = append(unread, c)
		}
	}
	if len(unread) > 0 {
		d.Reasons = append(d.Reasons, Reason{Kind: Elsewhere, Chats: unread, Verb: verb})
	}
	if len(w.Unreadable) > 0 {
		d.Reasons = append(d.Reasons, Reason{Kind: NotAnID, Detail: strings.Join(w.Unreadable, ", ")})
	}
	switch {
	case w.Public && (w.Text || w.URL != "" || w.LocalFile != "" || len(w.Carried) > 0):
		d.Reasons = append(d.Reasons, Reason{Kind: Public})
	case !w.Public && len(w.Chats) == 0 && len(w.Unreadable) == 0 && (w.Text || len(w.Carried) > 0):
		d.Reasons = append(d.Reasons, Reason{Kind: NoChat})
	}
	d.Reasons = append(d.Reasons, carried(l, w)...)
	d.Free = len(d.Reasons) == 0
	return d
}

// carried judges the messages w copies: one of a chat other than w's
// destination is a reason, and so is one whose chat the ledger does not
// know, since it may be of any chat, read or not (a message id is learnt
// from a read, which records its chat, or from the text of a chat that
// names it).
func carried(l *Ledger, w Write) []Reason {
	var out []Reason
	for _, id := range w.Carried {
		n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
		c, known := l.MessageChat(n)
		switch {
		case err != nil || !known:
			out = append(out, Reason{Kind: Carries, Detail: quote.Clip(id, 40)})
		case !slices.Contains(w.Chats, c):
			out = append(out, Reason{Kind: Carries, Detail: quote.Clip(id, 40), Chats: []Chat{c}})
		}
	}
	return out
}

// Target names the chats a write names, for a refusal: "group:2", or
// "no chat".
func (w Write) Target() string {
	if len(w.Chats) == 0 {
		return "no chat"
	}
	return Names(w.Chats)
}
