package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A frame is one event as SnowLuma sent it, with the fields the filters and
// the account check need. raw is kept exactly as received.
type frame struct {
	raw      []byte
	postType string
	// category is message, notice or request; empty for meta events and
	// post types this server does not know, which no filter selects.
	category string
	selfID   int64
	hasSelf  bool
	groupID  int64
	hasGroup bool
	userID   int64
	hasUser  bool
	// lifecycleDisable marks SnowLuma's goodbye before it closes the socket.
	lifecycleDisable bool
}

// errMalformed is the cause of a frame that is not a JSON object with a
// post_type.
var errMalformed = errors.New("malformed event")

// parseFrame reads one text message. It fails when the message is not a
// JSON object, or has no post_type string. Only the top-level fields used
// for routing are read; the rest is validated and kept only in raw.
func parseFrame(raw []byte) (*frame, error) {
	if !json.Valid(raw) {
		return nil, errMalformed
	}
	fields, ok := topLevel(raw)
	if !ok {
		return nil, errMalformed
	}
	postType, ok := str(fields.postType)
	if !ok || postType == "" {
		return nil, errMalformed
	}
	f := &frame{raw: raw, postType: postType}
	switch postType {
	case "message", "message_sent":
		f.category = TypeMessage
	case "notice":
		f.category = TypeNotice
	case "request":
		f.category = TypeRequest
	case "meta_event":
		f.lifecycleDisable = string(fields.metaEventType) == `"lifecycle"` && string(fields.subType) == `"disable"`
	}
	f.selfID, f.hasSelf = id(fields.selfID)
	f.groupID, f.hasGroup = id(fields.groupID)
	f.userID, f.hasUser = id(fields.userID)
	return f, nil
}

// routing holds the raw values of the top-level fields parseFrame reads.
type routing struct {
	postType, selfID, groupID, userID, metaEventType, subType []byte
}

// topLevel finds the routing fields of raw, which must be valid JSON. It
// reports false when raw is not an object. As with encoding/json, the last
// of duplicate keys wins; a key written with escapes is decoded first.
func topLevel(raw []byte) (routing, bool) {
	var r routing
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return r, false
	}
	i++
	for {
		i = skipSpace(raw, i)
		if raw[i] == '}' {
			return r, true
		}
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		keyEnd := skipString(raw, i)
		key := raw[i+1 : keyEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			json.Unmarshal(raw[i:keyEnd], &k)
			key = []byte(k)
		}
		i = skipSpace(raw, keyEnd) + 1 // the colon
		i = skipSpace(raw, i)
		end := skipValue(raw, i)
		val := raw[i:end]
		switch string(key) {
		case "post_type":
			r.postType = val
		case "self_id":
			r.selfID = val
		case "group_id":
			r.groupID = val
		case "user_id":
			r.userID = val
		case "meta_event_type":
			r.metaEventType = val
		case "sub_type":
			r.subType = val
		}
		i = end
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// skipValue returns the index just past the valid JSON value at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// str reads a JSON string value.
func str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// id reads an integer id sent as a JSON number or a string of digits.
func id(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	s := string(raw)
	if s[0] == '"' {
		unq, err := strconv.Unquote(s)
		if err != nil {
			return 0, false
		}
		s = unq
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}
