package untrusted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/safety"
)

// A Write is one write call as the gate reads it.
type Write struct {
	Action string
	// Send: the catalog says the action posts something others see.
	// Forward: a send that carries existing messages (a param whose role
	// is message_id, or forward nodes in messages).
	Send, Forward bool
	// Chats are the chats the params name: each group, or without a group
	// each user's private chat (a user beside a group is its member).
	Chats []Chat
	// Unreadable lists target values that are not ids.
	Unreadable []string
	// Text: a param that is not an id, a request's flag or a fixed choice
	// holds a string, so the call can carry text somewhere.
	Text bool
	// URL is the first URL found in the params (clipped); "" when none.
	URL string
	// LocalFile is a local file the call would upload: an automatic
	// upload's path, or a path (or file:// URL) in a file-like param.
	LocalFile string
}

// ReadWrite reads a call of a with params for the gate. upload is the
// local path of an automatic upload (execution.input_file), "" when none.
func ReadWrite(a *catalog.Action, params json.RawMessage, upload string) (Write, error) {
	w := Write{Action: a.Name, Send: a.Send, LocalFile: upload}
	var extra []safety.TargetParam
	// notText are the params whose strings carry no text: ids (a catalog
	// role), a request's opaque flag, and words from a fixed list.
	notText := map[string]bool{}
	for _, p := range a.Params {
		if p.Role != "" || p.Name == "flag" || p.Name == "type" || p.Name == "sub_type" || fixedWords(p.Schema) {
			notText[p.Name] = true
		}
		if p.Target() {
			extra = append(extra, safety.TargetParam{Name: p.Name, Group: p.Role == catalog.RoleGroup})
		}
		if a.Send && (p.Role == "message_id" || p.Name == "messages") {
			w.Forward = true
		}
	}
	// A stream that is not a send moves a file between SnowLuma and this
	// host (a download, or chunks into SnowLuma's own store), not to a
	// chat: its strings are neither text for a chat nor a file to upload;
	// an automatic upload of a local file is judged by upload.
	stream := a.Stream && !a.Send
	t, err := safety.ExtractTargets(params, extra...)
	if err != nil {
		return Write{}, err
	}
	w.Unreadable = t.Unreadable
	if len(t.Groups) > 0 {
		for _, g := range t.Groups {
			w.Chats = append(w.Chats, GroupChat(g))
		}
	} else {
		for _, u := range t.Users {
			w.Chats = append(w.Chats, PrivateChat(u))
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(params, &fields); err != nil {
		return Write{}, fmt.Errorf("params are not a JSON object: %w", err)
	}
	for name, v := range fields {
		walkStrings(name, v, func(key, s string) {
			if !stream && !notText[name] && !w.Text && strings.TrimSpace(s) != "" {
				w.Text = true
			}
			if w.LocalFile == "" && !stream {
				if p, ok := localPath(s); ok && fileKey(key) {
					w.LocalFile = p
					return
				}
				if p, ok := cqLocalFile(s); ok {
					w.LocalFile = p
				}
			}
			if w.URL == "" {
				w.URL = findURL(s)
			}
		})
	}
	return w, nil
}

// fixedWords reports a param schema that admits only listed values (enum
// or const): a choice, not text.
func fixedWords(schema json.RawMessage) bool {
	var s struct {
		Enum  []json.RawMessage `json:"enum"`
		Const json.RawMessage   `json:"const"`
	}
	return json.Unmarshal(schema, &s) == nil && (len(s.Enum) > 0 || len(s.Const) > 0)
}

// walkStrings calls f with every string inside v and the name of the
// object key it sits under (name for v itself and the items of arrays).
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
			for k, it := range obj {
				walkStrings(k, it, f)
			}
		}
	}
}

// fileKey reports a key whose value SnowLuma may read as a file to send:
// file, files, path, image, images, thumb_path, db_path and the like, but
// not an id or a name (file_id, file_name).
func fileKey(k string) bool {
	k = strings.ToLower(k)
	if strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_name") || strings.HasSuffix(k, "_hash") {
		return false // file_id "/0806…" names a group file, not a path
	}
	for _, s := range []string{"file", "path", "image", "thumb", "record", "video", "audio"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// cqLocalFile finds a local file in the CQ codes of a string message:
// [CQ:image,file=/etc/passwd] or file=file:///….
func cqLocalFile(s string) (string, bool) {
	for {
		i := strings.Index(s, "[CQ:")
		if i < 0 {
			return "", false
		}
		s = s[i+4:]
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", false
		}
		_, params, _ := strings.Cut(s[:end], ",")
		for kv := range strings.SplitSeq(params, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if p, ok := localPath(v); ok && fileKey(k) {
				return p, true
			}
		}
		s = s[end:]
	}
}

// localPath recognises a local file: an absolute POSIX or Windows path
// (C:\…, C:/…, \\server\share) or a file:// URL.
func localPath(s string) (string, bool) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) > 7 && strings.EqualFold(s[:7], "file://"):
		return clipText(s, 80), true
	case strings.HasPrefix(s, "/") && len(s) > 1,
		strings.HasPrefix(s, `\\`),
		len(s) > 2 && (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z') && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		return clipText(s, 80), true
	}
	return "", false
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
	if len(w.Chats) == 0 && len(w.Unreadable) == 0 && (w.Send || w.Text) {
		d.Reasons = append(d.Reasons, Reason{Kind: NoChat})
	}
	d.Free = len(d.Reasons) == 0
	return d
}

// Target names the chats a write names, for a refusal: "group:2", or
// "no chat".
func (w Write) Target() string {
	if len(w.Chats) == 0 {
		return "no chat"
	}
	return Names(w.Chats)
}
