package events

import (
	"bytes"
	"encoding/json"
)

// A JSON scanner for event frames: one pass that checks the whole frame is
// valid JSON (the grammar encoding/json.Valid accepts, nesting included) and
// notes the raw values of the top-level fields routing needs. It replaces
// json.Valid followed by a decode, which cost three quarters of the ingest
// time; FuzzParseFrame holds it to encoding/json's verdicts.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// routing holds the raw values of the top-level fields parseFrame reads.
type routing struct {
	postType, selfID, groupID, userID, metaEventType, subType, interval []byte
}

type scanner struct {
	b     []byte
	i     int
	depth int
}

// scanObject reports whether raw is one valid JSON object (with optional
// surrounding white space) and returns its routing fields. As with
// encoding/json, the last of duplicate keys wins, and a key written with
// escapes is decoded before it is compared.
func scanObject(raw []byte) (routing, bool) {
	var r routing
	s := scanner{b: raw, depth: 1} // the object itself is one level
	s.space()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return r, false
	}
	s.i++
	s.space()
	if s.peek() == '}' {
		s.i++
		return r, s.end()
	}
	for {
		s.space()
		kStart := s.i
		if s.peek() != '"' || !s.str() {
			return r, false
		}
		key := raw[kStart+1 : s.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(raw[kStart:s.i], &k) != nil {
				return r, false
			}
			key = []byte(k)
		}
		s.space()
		if s.peek() != ':' {
			return r, false
		}
		s.i++
		s.space()
		vStart := s.i
		if !s.value() {
			return r, false
		}
		val := raw[vStart:s.i]
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
		case "interval":
			r.interval = val
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return r, s.end()
		default:
			return r, false
		}
	}
}

// peek returns the byte at the cursor, or 0 at the end.
func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

// value checks one JSON value at the cursor and moves past it.
func (s *scanner) value() bool {
	switch c := s.peek(); {
	case c == '"':
		return s.str()
	case c == '{' || c == '[':
		return s.container(c)
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// container checks an object or array.
func (s *scanner) container(open byte) bool {
	s.depth++
	if s.depth > maxDepth {
		return false
	}
	defer func() { s.depth-- }()
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	s.i++
	s.space()
	if s.peek() == closer {
		s.i++
		return true
	}
	for {
		s.space()
		if open == '{' {
			if s.peek() != '"' || !s.str() {
				return false
			}
			s.space()
			if s.peek() != ':' {
				return false
			}
			s.i++
			s.space()
		}
		if !s.value() {
			return false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
		case closer:
			s.i++
			return true
		default:
			return false
		}
	}
}

// str checks a string starting at the opening quote.
func (s *scanner) str() bool {
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			s.i++
			switch s.peek() {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if s.i+5 > len(s.b) {
					return false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				s.i += 5
			default:
				return false
			}
		default:
			s.i++
		}
	}
	return false
}

// number checks a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.peek() == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits moves past one or more digits, reporting whether there was one.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}
