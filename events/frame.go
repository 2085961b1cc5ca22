package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"time"
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
	// heartbeat is the interval a heartbeat meta event announced; zero for
	// other frames and for a heartbeat without a positive interval.
	heartbeat time.Duration
}

// errMalformed is the cause of a frame that is not a JSON object with a
// post_type.
var errMalformed = errors.New("malformed event")

// parseFrame reads one text message. It fails when the message is not a
// JSON object, or has no post_type string. Only the top-level fields used
// for routing are read; the rest is validated and kept only in raw.
func parseFrame(raw []byte) (*frame, error) {
	fields, ok := scanObject(raw)
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
		if string(fields.metaEventType) == `"heartbeat"` {
			// interval is in milliseconds; anything but a positive whole
			// number announces nothing.
			if ms, ok := id(fields.interval); ok && ms > 0 && ms <= int64(MaxHeartbeatInterval/time.Millisecond) {
				f.heartbeat = time.Duration(ms) * time.Millisecond
			} else if ok && ms > 0 {
				f.heartbeat = MaxHeartbeatInterval
			}
		}
	}
	f.selfID, f.hasSelf = id(fields.selfID)
	f.groupID, f.hasGroup = id(fields.groupID)
	f.userID, f.hasUser = id(fields.userID)
	return f, nil
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
