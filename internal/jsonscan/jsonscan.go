// Package jsonscan checks and reads JSON objects in one pass, for the two
// hot paths that meet SnowLuma's JSON by the megabyte: stream download
// frames, hundreds of megabytes of base64 in strings that encoding/json
// would scan several times each, and event frames, read at a hundred
// thousand a second. It accepts exactly the grammar encoding/json.Valid
// accepts, its nesting limit included, and hands back raw member values;
// ordinary answers keep encoding/json.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is encoding/json's nesting limit: the top-level object is one
// level, and a value nested deeper than MaxDepth levels is refused.
const MaxDepth = 10000

// A SyntaxError is invalid JSON at a byte offset.
type SyntaxError struct{ Offset int }

func (e *SyntaxError) Error() string { return fmt.Sprintf("invalid JSON at byte %d", e.Offset) }

// A Visitor sees each member of an object: its raw key token (quotes
// included) and its raw value. An error it returns ends the scan.
type Visitor func(key, value []byte) error

// Object checks that b is exactly one JSON object (white space around it
// allowed) whose values are all valid JSON, and calls visit, when not
// nil, with each member in order; as with encoding/json, the caller sees
// duplicate keys in order and decides (the last usually wins). When nested
// is not nil it is asked, for each top-level member whose value is an
// object, for a visitor of that object's members, so that one pass reads
// two levels.
func Object(b []byte, visit Visitor, nested func(key []byte) Visitor) error {
	s := scanner{b: b, nested: nested}
	s.space()
	if s.i >= len(b) || b[s.i] != '{' {
		return &SyntaxError{s.i}
	}
	if err := s.object(1, visit); err != nil {
		return err
	}
	s.space()
	if s.i != len(b) {
		return &SyntaxError{s.i}
	}
	return nil
}

// Key decodes a raw key token as encoding/json compares keys: a plain one
// is sliced, one with escapes is decoded.
func Key(token []byte) ([]byte, bool) {
	if len(token) < 2 || token[0] != '"' {
		return nil, false
	}
	inner := token[1 : len(token)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, true
	}
	var k string
	if json.Unmarshal(token, &k) != nil {
		return nil, false
	}
	return []byte(k), true
}

type scanner struct {
	b      []byte
	i      int
	nested func(key []byte) Visitor // top level only
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// object scans an object starting at '{'; visit, when not nil, sees each
// member.
func (s *scanner) object(depth int, visit Visitor) error {
	if depth > MaxDepth {
		return &SyntaxError{s.i}
	}
	s.i++ // {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.space()
		k := s.i
		if err := s.str(); err != nil {
			return err
		}
		key := s.b[k:s.i]
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return &SyntaxError{s.i}
		}
		s.i++
		s.space()
		v := s.i
		var err error
		if inner := s.inner(depth, key); inner != nil {
			err = s.object(depth+1, inner)
		} else {
			err = s.value(depth + 1)
		}
		if err != nil {
			return err
		}
		if visit != nil {
			if err := visit(key, s.b[v:s.i]); err != nil {
				return err
			}
		}
		s.space()
		if s.i >= len(s.b) {
			return &SyntaxError{s.i}
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return &SyntaxError{s.i}
		}
	}
}

// inner returns the visitor of the object value of key, a member of the
// top-level object, when the caller asked for one.
func (s *scanner) inner(depth int, key []byte) Visitor {
	if depth != 1 || s.nested == nil || s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil
	}
	return s.nested(key)
}

func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return &SyntaxError{s.i}
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object(depth, nil)
	case c == '[':
		return s.array(depth)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return &SyntaxError{s.i}
}

func (s *scanner) array(depth int) error {
	if depth > MaxDepth {
		return &SyntaxError{s.i}
	}
	s.i++ // [
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		s.space()
		if err := s.value(depth + 1); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.b) {
			return &SyntaxError{s.i}
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return &SyntaxError{s.i}
		}
	}
}

func (s *scanner) literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return &SyntaxError{s.i}
	}
	s.i += len(word)
	return nil
}

// str scans a string starting at '"'. This is the hot path of a download:
// the closing quote and any backslash are found with bytes.IndexByte, and
// control characters, which JSON forbids inside strings, eight bytes at a
// time.
func (s *scanner) str() error {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return &SyntaxError{s.i}
	}
	s.i++
	for {
		rest := s.b[s.i:]
		q := bytes.IndexByte(rest, '"')
		if q < 0 {
			return &SyntaxError{len(s.b)}
		}
		span := rest[:q]
		k := bytes.IndexByte(span, '\\')
		if k < 0 {
			if c := firstControl(span); c >= 0 {
				return &SyntaxError{s.i + c}
			}
			s.i += q + 1
			return nil
		}
		if c := firstControl(span[:k]); c >= 0 {
			return &SyntaxError{s.i + c}
		}
		s.i += k
		if err := s.escape(); err != nil {
			return err
		}
	}
}

// escape scans one escape sequence starting at its backslash.
func (s *scanner) escape() error {
	if s.i+1 >= len(s.b) {
		return &SyntaxError{s.i}
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
	case 'u':
		if len(s.b)-s.i < 6 {
			return &SyntaxError{s.i}
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return &SyntaxError{s.i}
			}
		}
		s.i += 6
	default:
		return &SyntaxError{s.i}
	}
	return nil
}

// firstControl returns the index of the first byte below 0x20 in b, or -1.
func firstControl(b []byte) int {
	const highs, space = 0x8080808080808080, 0x2020202020202020
	i := 0
	for ; i+8 <= len(b); i += 8 {
		// Nonzero exactly when some byte of w is below 0x20.
		if w := binary.LittleEndian.Uint64(b[i:]); (w-space)&^w&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a JSON number.
func (s *scanner) number() error {
	b := s.b
	if b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(b) && b[s.i] == '0':
		s.i++
	case s.i < len(b) && isDigit(b[s.i]):
		for s.i < len(b) && isDigit(b[s.i]) {
			s.i++
		}
	default:
		return &SyntaxError{s.i}
	}
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if s.i >= len(b) || !isDigit(b[s.i]) {
			return &SyntaxError{s.i}
		}
		for s.i < len(b) && isDigit(b[s.i]) {
			s.i++
		}
	}
	if s.i < len(b) && (b[s.i] == 'e' || b[s.i] == 'E') {
		s.i++
		if s.i < len(b) && (b[s.i] == '+' || b[s.i] == '-') {
			s.i++
		}
		if s.i >= len(b) || !isDigit(b[s.i]) {
			return &SyntaxError{s.i}
		}
		for s.i < len(b) && isDigit(b[s.i]) {
			s.i++
		}
	}
	return nil
}

// IsNumber reports whether b is exactly one JSON number.
func IsNumber(b []byte) bool {
	if len(b) == 0 || (b[0] != '-' && !isDigit(b[0])) {
		return false
	}
	s := scanner{b: b}
	return s.number() == nil && s.i == len(b)
}

// String decodes a raw string token that Object has checked: a plain
// token is sliced, one with escapes or invalid UTF-8 (which encoding/json
// replaces with U+FFFD) goes through encoding/json.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	// Escapes, and invalid UTF-8 (which encoding/json replaces with
	// U+FFFD), take the slow path.
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return "", false
		}
		return v, true
	}
	return string(inner), true
}

// errNotInteger reports a field that should hold a whole number.
var errNotInteger = errors.New("not a whole number")

// Int reads a whole number sent as a JSON number or, as SnowLuma
// sometimes does, as a decimal string.
func Int(raw []byte) (int64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		v, ok := String(raw)
		if !ok {
			return 0, errNotInteger
		}
		raw = []byte(v)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, errNotInteger
	}
	return n, nil
}
