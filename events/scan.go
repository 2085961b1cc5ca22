package events

import (
	"errors"

	"github.com/snowluma/snowluma-mcp/internal/jsonscan"
)

// routing holds the raw values of the top-level fields parseFrame reads.
type routing struct {
	postType, selfID, groupID, userID, metaEventType, subType, interval []byte
}

// errBadKey ends a scan at a key whose escapes do not decode.
var errBadKey = errors.New("a key that does not decode")

// scanObject reports whether raw is one valid JSON object (with optional
// surrounding white space), in the one pass of jsonscan that replaced
// json.Valid followed by a decode (three quarters of the ingest time), and
// returns its routing fields. As with encoding/json, the last of duplicate
// keys wins, and a key written with escapes is decoded before it is
// compared.
func scanObject(raw []byte) (routing, bool) {
	var r routing
	err := jsonscan.Object(raw, func(k, v []byte) error {
		key, ok := jsonscan.Key(k)
		if !ok {
			return errBadKey
		}
		switch string(key) {
		case "post_type":
			r.postType = v
		case "self_id":
			r.selfID = v
		case "group_id":
			r.groupID = v
		case "user_id":
			r.userID = v
		case "meta_event_type":
			r.metaEventType = v
		case "sub_type":
			r.subType = v
		case "interval":
			r.interval = v
		}
		return nil
	}, nil)
	return r, err == nil
}
