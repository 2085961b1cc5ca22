package qqmsg

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Outgoing messages: what SnowLuma 1.11.1 makes of a message param before
// it sends anything. The steps follow its source, file by file:
//
//   - packages/onebot/src/action-kit.ts (f.message) and api-handler.ts
//     (asMessage): a string whose trimmed text starts with '[' and ends
//     with ']' and parses as a JSON array is that array; anything else is
//     kept as given. This runs before auto_escape is looked at.
//   - packages/onebot/src/message-parser.ts (parseMessage): a string is
//     plain text under auto_escape, else CQ codes (helper/cq.ts,
//     parseFromCQString); an array counts only when every item is an
//     object with a "type"; one object with a "type" is one segment;
//     anything else sends nothing. A segment's fields are its top-level
//     keys overlaid with its "data" object (segmentPayload), and its type
//     is matched in lower case.
//   - packages/onebot/src/event-converter/element-codecs.ts: where each
//     segment type reads its resource (pickMediaSource for image, record
//     and video; file_id, then file, url, path for file), and
//     packages/protocol/src/highway/utils.ts (loadBinarySource,
//     resolveLocalFilePath): a source starting base64:// is inline data,
//     http:// or https:// is fetched, and anything else is opened as a
//     local path (file:// URLs, absolute and relative paths, bare names).

// An OutgoingSegment is one segment of a message to send, as SnowLuma
// reads it: its type in lower case and its fields (top-level keys
// overlaid with "data").
type OutgoingSegment struct {
	Type string
	Data map[string]json.RawMessage
}

// Str returns field key as SnowLuma's String(x ?? "") reads it: a string
// as is, a number or boolean as its JSON text, and "" when absent or null.
// Objects and arrays come back as their JSON text.
func (s OutgoingSegment) Str(key string) string {
	v, ok := s.Data[key]
	if !ok {
		return ""
	}
	return outJSString(v)
}

// has reports whether key is present and not null (JavaScript's ??).
func (s OutgoingSegment) has(key string) bool {
	v, ok := s.Data[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// outJSString is JavaScript's String(x ?? ""): a string as is, a number or
// boolean as its text, an array as its items' strings joined by commas
// (["https://e.example/"] is that URL), any other object as
// "[object Object]".
func outJSString(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil {
			parts := make([]string, len(items))
			for i, it := range items {
				parts[i] = outJSString(it)
			}
			return strings.Join(parts, ",")
		}
	case '{':
		return "[object Object]"
	}
	return string(v)
}

// ParseOutgoingParam reads a message param (SnowLuma's f.message): a
// string that is a JSON array becomes that array; then the message is
// parsed as parseMessage does. autoEscape is the action's auto_escape.
func ParseOutgoingParam(raw json.RawMessage, autoEscape bool) []OutgoingSegment {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		if arr, ok := OutgoingJSONArray(s); ok {
			return ParseOutgoingMessage(arr, autoEscape)
		}
	}
	return ParseOutgoingMessage(raw, autoEscape)
}

// OutgoingJSONArray reports whether SnowLuma reads the string s as a JSON
// array (its trimmed text starts with '[', ends with ']' and parses as an
// array) and returns the array.
func OutgoingJSONArray(s string) (json.RawMessage, bool) {
	t := strings.TrimFunc(s, outJSSpace)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return nil, false
	}
	var arr []json.RawMessage
	if json.Unmarshal([]byte(t), &arr) != nil {
		return nil, false
	}
	return json.RawMessage(t), true
}

// outJSSpace is what JavaScript's String.prototype.trim removes: the ASCII
// white space, U+00A0, U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000 and U+FEFF (not U+0085, which Go's TrimSpace removes).
func outJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// ParseOutgoingMessage parses a message value that is already past
// f.message: a string (plain text under autoEscape, else CQ codes), an
// array of segments, or one segment object.
func ParseOutgoingMessage(raw json.RawMessage, autoEscape bool) []OutgoingSegment {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil || s == "" {
			return nil
		}
		if autoEscape {
			return []OutgoingSegment{outTextSegment(s)}
		}
		return ParseOutgoingCQ(s)
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return nil
		}
		segs := make([]OutgoingSegment, 0, len(items))
		for _, it := range items {
			s, ok := outgoingSegment(it)
			if !ok {
				return nil // SnowLuma sends nothing unless every item is a segment
			}
			segs = append(segs, s)
		}
		return segs
	case '{':
		if s, ok := outgoingSegment(raw); ok {
			return []OutgoingSegment{s}
		}
	}
	return nil
}

// outgoingSegment reads one object with a "type" as segmentPayload does.
func outgoingSegment(raw json.RawMessage) (OutgoingSegment, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return OutgoingSegment{}, false
	}
	t, ok := obj["type"]
	if !ok {
		return OutgoingSegment{}, false
	}
	seg := OutgoingSegment{Type: strings.ToLower(outJSString(t)), Data: map[string]json.RawMessage{}}
	for k, v := range obj {
		if k != "type" && k != "data" {
			seg.Data[k] = v
		}
	}
	var nested map[string]json.RawMessage
	if d, ok := obj["data"]; ok && json.Unmarshal(d, &nested) == nil {
		for k, v := range nested {
			seg.Data[k] = v
		}
	}
	return seg, true
}

func outTextSegment(s string) OutgoingSegment {
	b, _ := json.Marshal(s)
	return OutgoingSegment{Type: "text", Data: map[string]json.RawMessage{"text": b}}
}

// outgoingCQ is SnowLuma's CQ_REGEX (message-parser.ts).
var outgoingCQ = regexp.MustCompile(`\[CQ:([A-Za-z]+)(?:,([^\]]*))?\]`)

// ParseOutgoingCQ parses a string of CQ codes as parseFromCQString does:
// the text between codes unescaped, each code's params split on ',' at
// the first '=' and unescaped.
func ParseOutgoingCQ(s string) []OutgoingSegment {
	var segs []OutgoingSegment
	last := 0
	for _, m := range outgoingCQ.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > last {
			if t := outCQUnescape(s[last:m[0]]); t != "" {
				segs = append(segs, outTextSegment(t))
			}
		}
		last = m[1]
		seg := OutgoingSegment{Type: strings.ToLower(s[m[2]:m[3]]), Data: map[string]json.RawMessage{}}
		if m[4] >= 0 {
			for pair := range strings.SplitSeq(s[m[4]:m[5]], ",") {
				eq := strings.IndexByte(pair, '=')
				if eq <= 0 {
					continue
				}
				v, _ := json.Marshal(outCQUnescape(pair[eq+1:]))
				seg.Data[pair[:eq]] = v
			}
		}
		segs = append(segs, seg)
	}
	if last < len(s) {
		if t := outCQUnescape(s[last:]); t != "" {
			segs = append(segs, outTextSegment(t))
		}
	}
	return segs
}

// outCQUnescape is helper/cq.ts's cqUnescape and parseCQParams's value
// unescaping: the same four replacements, &amp; last.
func outCQUnescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	s = strings.ReplaceAll(s, "&#91;", "[")
	s = strings.ReplaceAll(s, "&#93;", "]")
	s = strings.ReplaceAll(s, "&#44;", ",")
	return strings.ReplaceAll(s, "&amp;", "&")
}

// A ResourceKind is how SnowLuma gets the bytes of a source.
type ResourceKind uint8

const (
	// ResourceInline is base64:// data carried in the params.
	ResourceInline ResourceKind = iota + 1
	// ResourceURL is an http(s) URL SnowLuma fetches.
	ResourceURL
	// ResourceLocal is a path SnowLuma opens on its own disk: file://
	// URLs, absolute and relative paths, and bare names.
	ResourceLocal
)

// ResourceKindOf classifies a source string as loadBinarySource does;
// ok is false for the empty string, which loads nothing.
func ResourceKindOf(source string) (ResourceKind, bool) {
	switch {
	case source == "":
		return 0, false
	case outHasPrefixFold(source, "base64://"):
		return ResourceInline, true
	case outHasPrefixFold(source, "http://"), outHasPrefixFold(source, "https://"):
		return ResourceURL, true
	}
	return ResourceLocal, true
}

func outHasPrefixFold(s, p string) bool { return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) }

// An OutgoingResource is one source SnowLuma would load for a segment.
type OutgoingResource struct {
	Key    string // the field it came from: file, url, path, media, thumb
	Source string
	Kind   ResourceKind
}

// ResourcesOf lists the sources SnowLuma would load for seg: the one
// pickMediaSource chooses for image, record and video (and a video's
// thumb), file's file, url or path when it has no file_id; the url,
// audio and image of a music segment, which SnowLuma posts to its music
// signing service. An image with an emoji_id is a market face and loads
// nothing.
func ResourcesOf(seg OutgoingSegment) []OutgoingResource {
	var out []OutgoingResource
	add := func(key, src string) {
		if k, ok := ResourceKindOf(src); ok {
			out = append(out, OutgoingResource{Key: key, Source: src, Kind: k})
		}
	}
	switch seg.Type {
	case "image", "record", "video":
		if seg.Type == "image" && strings.TrimSpace(seg.Str("emoji_id")) != "" {
			return nil
		}
		key, src := outPickMediaSource(seg)
		add(key, src)
		if seg.Type == "video" {
			if th := seg.Str("thumb"); th != "" {
				add("thumb", th)
			}
		}
	case "file":
		if strings.TrimSpace(outFirstOf(seg, "file_id", "fileId")) != "" {
			return nil
		}
		for _, k := range []string{"file", "url", "path"} {
			if seg.has(k) {
				add(k, strings.TrimSpace(seg.Str(k)))
				break
			}
		}
	case "music":
		if seg.Str("type") == "custom" {
			for _, k := range []string{"url", "audio", "image"} {
				add(k, seg.Str(k))
			}
		}
	}
	return out
}

// outFirstOf is JavaScript's a ?? b for string fields.
func outFirstOf(seg OutgoingSegment, keys ...string) string {
	for _, k := range keys {
		if seg.has(k) {
			return seg.Str(k)
		}
	}
	return ""
}

// outPickMediaSource is element-codecs.ts's choice among file, url, path and
// media: file when it is loadable by its look (base64://, data:, http(s)://,
// file://, or any '/' or '\'), else an http(s) url, else the first
// non-empty of file, url, path, media.
func outPickMediaSource(seg OutgoingSegment) (key, src string) {
	file := strings.TrimSpace(seg.Str("file"))
	url := strings.TrimSpace(seg.Str("url"))
	fallback := func() (string, string) {
		for _, k := range []string{"file", "url", "path", "media"} {
			if v := strings.TrimSpace(seg.Str(k)); v != "" {
				return k, v
			}
		}
		return "", ""
	}
	if file == "" {
		return fallback()
	}
	for _, p := range []string{"base64://", "data:", "http://", "https://", "file://"} {
		if outHasPrefixFold(file, p) {
			return "file", file
		}
	}
	if strings.ContainsAny(file, `/\`) {
		return "file", file
	}
	if outHasPrefixFold(url, "http://") || outHasPrefixFold(url, "https://") {
		return "url", url
	}
	return fallback()
}

// OutgoingText lists the strings of seg that reach the chat as text or as
// a card's words: a text segment's text, a json or xml card's data, a
// share's or music's title and content, a node's name. Resources and ids
// are not in it.
func OutgoingText(seg OutgoingSegment) []string {
	var keys []string
	switch seg.Type {
	case "text":
		keys = []string{"text"}
	case "json", "xml":
		keys = []string{"data"}
	case "share", "music", "location":
		keys = []string{"title", "content", "url", "image", "audio"}
	case "node":
		keys = []string{"nickname", "name"}
	case "at":
		keys = []string{"name", "nickname", "card"}
	case "mface":
		keys = []string{"summary", "name"}
	case "markdown":
		keys = []string{"content"}
	default:
		return nil
	}
	var out []string
	for _, k := range keys {
		if s := seg.Str(k); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// OutgoingCarried lists the existing messages seg carries into the chat
// it is sent to: a reply's id, a node's id or message_id (SnowLuma copies
// that stored message into the forward), and a forward segment's id (an
// uploaded forward, whose chat cannot be told). Ids are their text.
func OutgoingCarried(seg OutgoingSegment) []string {
	var out []string
	switch seg.Type {
	case "reply":
		if id := seg.Str("id"); id != "" {
			out = append(out, id)
		}
	case "node":
		if id := outFirstOf(seg, "id", "message_id"); id != "" {
			out = append(out, id)
		}
	case "forward":
		if id := seg.Str("id"); id != "" {
			out = append(out, "forward:"+id)
		}
	}
	return out
}

// OutgoingNodeContent returns the content of a node segment (content,
// else message), which SnowLuma parses as a message of its own
// (message-actions.ts, parseForwardNodes), and whether there is one.
func OutgoingNodeContent(seg OutgoingSegment) (json.RawMessage, bool) {
	if seg.Type != "node" {
		return nil, false
	}
	for _, k := range []string{"content", "message"} {
		if seg.has(k) {
			return seg.Data[k], true
		}
	}
	return nil, false
}

// ParseOutgoingID reads an id as SnowLuma's coercers do (action-kit.ts
// intCore, api-handler.ts asNumber): a JSON number, or a string that
// JavaScript's Number reads (spaces trimmed, decimal, exponent, 0x, 0o,
// 0b), truncated to an integer. ok is false for anything else, which
// SnowLuma rejects or reads as 0.
func ParseOutgoingID(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return 0, false
	}
	s := string(raw)
	if raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		s = strings.TrimFunc(s, outJSSpace)
		if s == "" {
			return 0, false
		}
	} else if raw[0] == '[' || raw[0] == '{' || raw[0] == 't' || raw[0] == 'f' {
		return 0, false
	}
	return outJSNumber(s)
}

// outJSNumber is JavaScript's Number for an integer-valued string, truncated.
func outJSNumber(s string) (int64, bool) {
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 0 {
			n, err := strconv.ParseInt(s[2:], base, 64)
			return n, err == nil
		}
	}
	if strings.ContainsAny(s, "_xXpP") || strings.EqualFold(strings.TrimLeft(s, "+-"), "infinity") {
		return 0, false // Go accepts what JavaScript does not; Infinity is not finite
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > 9.2e18 || f < -9.2e18 {
		return 0, false
	}
	return int64(f), true
}
