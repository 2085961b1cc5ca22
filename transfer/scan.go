package transfer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// A download moves hundreds of megabytes of base64 inside JSON frames, and
// encoding/json scans a long string several times per frame (about 150 MB/s
// each time on a small machine). members is a strict JSON object walker with
// one fast pass over each string, used on the download path only; ordinary
// answers keep encoding/json.

// maxScanDepth bounds the nesting of values inside a frame.
const maxScanDepth = 64

// errScan is a JSON syntax error at a byte offset.
type errScan struct{ at int }

func (e *errScan) Error() string { return fmt.Sprintf("invalid JSON at byte %d", e.at) }

// A visitor sees each member of an object: its raw key token (quotes
// included) and its raw value.
type visitor func(key, value []byte) error

// members checks that b is exactly one JSON object (whitespace around it
// allowed) whose values are all valid JSON, and calls visit with each
// member, in order. When nested is not nil it is asked, for each member
// whose value is an object, for a visitor of that object's members, so
// that one pass reads two levels.
func members(b []byte, visit visitor, nested func(key []byte) visitor) error {
	s := scanner{b: b, nested: nested}
	s.space()
	if s.i >= len(b) || b[s.i] != '{' {
		return &errScan{s.i}
	}
	if err := s.object(0, visit); err != nil {
		return err
	}
	s.space()
	if s.i != len(b) {
		return &errScan{s.i}
	}
	return nil
}

type scanner struct {
	b      []byte
	i      int
	nested func(key []byte) visitor // top level only
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
func (s *scanner) object(depth int, visit visitor) error {
	if depth > maxScanDepth {
		return &errScan{s.i}
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
			return &errScan{s.i}
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
			return &errScan{s.i}
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return &errScan{s.i}
		}
	}
}

// inner returns the visitor of the object value of key, a member of the
// top-level object, when the caller asked for one.
func (s *scanner) inner(depth int, key []byte) visitor {
	if depth != 0 || s.nested == nil || s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil
	}
	return s.nested(key)
}

func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return &errScan{s.i}
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
	return &errScan{s.i}
}

func (s *scanner) array(depth int) error {
	if depth > maxScanDepth {
		return &errScan{s.i}
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
			return &errScan{s.i}
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return &errScan{s.i}
		}
	}
}

func (s *scanner) literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return &errScan{s.i}
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
		return &errScan{s.i}
	}
	s.i++
	for {
		rest := s.b[s.i:]
		q := bytes.IndexByte(rest, '"')
		if q < 0 {
			return &errScan{len(s.b)}
		}
		span := rest[:q]
		k := bytes.IndexByte(span, '\\')
		if k < 0 {
			if c := firstControl(span); c >= 0 {
				return &errScan{s.i + c}
			}
			s.i += q + 1
			return nil
		}
		if c := firstControl(span[:k]); c >= 0 {
			return &errScan{s.i + c}
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
		return &errScan{s.i}
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
	case 'u':
		if len(s.b)-s.i < 6 {
			return &errScan{s.i}
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return &errScan{s.i}
			}
		}
		s.i += 6
	default:
		return &errScan{s.i}
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
		return &errScan{s.i}
	}
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if s.i >= len(b) || !isDigit(b[s.i]) {
			return &errScan{s.i}
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
			return &errScan{s.i}
		}
		for s.i < len(b) && isDigit(b[s.i]) {
			s.i++
		}
	}
	return nil
}

// isNumber reports whether b is exactly one JSON number.
func isNumber(b []byte) bool {
	if len(b) == 0 || (b[0] != '-' && !isDigit(b[0])) {
		return false
	}
	s := scanner{b: b}
	return s.number() == nil && s.i == len(b)
}

// stringValue decodes a raw string token already checked by the scanner.
// Plain tokens are sliced, the rest go through encoding/json.
func stringValue(raw []byte) (string, bool) {
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

// intValue reads a whole number sent as a JSON number or, as SnowLuma
// sometimes does, as a decimal string.
func intValue(raw []byte) (int64, error) {
	if len(raw) > 0 && raw[0] == '"' {
		v, ok := stringValue(raw)
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
