package seal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects CanonicalHash accepts,
// the same bound encoding/json applies.
const maxDepth = 10000

// CanonicalHash returns the lowercase hex SHA-256 of a canonical JSON
// encoding of v, so that a continuation can be bound to the arguments of
// the call that issued it.
//
// v is either raw JSON text (json.RawMessage) or any value json.Marshal
// accepts; pass raw text, or values decoded with json.Decoder.UseNumber,
// to keep numbers exact. A float64 has already been rounded before it gets
// here, and a []byte marshals as a base64 string, not as JSON text.
//
// The canonical encoding has no insignificant whitespace, sorts object keys
// by their UTF-8 bytes at every depth, and escapes strings one way only: '"'
// and '\' and control characters are escaped (\b \f \n \r \t, else \u00xx),
// everything else is written as UTF-8. Escapes in the input are decoded
// first, so "\u0041" and "A" are the same string. Numbers are kept as the
// text given: 1.0, 1, 1e0 and -0 all differ from one another, and so do
// 12345678901234567890 and 12345678901234567891. Two encodings of one value
// therefore hash equal, and any other difference hashes differently.
//
// Input that could be read two ways is refused rather than hashed: objects
// with a duplicate key, strings with invalid UTF-8 or an unpaired UTF-16
// surrogate escape, and anything that is not exactly one JSON value.
func CanonicalHash(v any) (string, error) {
	var text []byte
	switch v := v.(type) {
	case json.RawMessage:
		text = v
	default:
		var err error
		if text, err = json.Marshal(v); err != nil {
			return "", fmt.Errorf("seal: canonical hash: %w", err)
		}
	}
	canon, err := canonicalize(text)
	if err != nil {
		return "", fmt.Errorf("seal: canonical hash: %w", err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalize returns the canonical encoding of the single JSON value in
// text, as described by CanonicalHash.
func canonicalize(text []byte) ([]byte, error) {
	p := parser{in: text}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.in) {
		return nil, p.errorf("data after the value")
	}
	return v.appendTo(make([]byte, 0, len(text))), nil
}

// A node is one parsed JSON value. The whole value is parsed before any of
// it is written, so every byte is written once however deep the nesting.
type node struct {
	scalar  []byte   // canonical text of a number, string or literal
	array   []node   // elements, in order
	members []member // object members, sorted by key
	kind    byte     // 's' scalar, '[' array, '{' object
}

// member is one key of an object and its value.
type member struct {
	key string
	val node
}

// appendTo appends the canonical encoding of n.
func (n *node) appendTo(out []byte) []byte {
	switch n.kind {
	case '[':
		out = append(out, '[')
		for i := range n.array {
			if i > 0 {
				out = append(out, ',')
			}
			out = n.array[i].appendTo(out)
		}
		return append(out, ']')
	case '{':
		out = append(out, '{')
		for i := range n.members {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendString(out, n.members[i].key)
			out = append(out, ':')
			out = n.members[i].val.appendTo(out)
		}
		return append(out, '}')
	default:
		return append(out, n.scalar...)
	}
}

// A parser reads JSON text into nodes. It works on the text itself rather
// than on decoded Go values so that numbers keep their digits and nothing
// the decoder would silently repair (invalid UTF-8, lone surrogates,
// duplicate keys) goes unnoticed.
type parser struct {
	in  []byte
	pos int
}

// errorf reports a syntax problem at the current offset. Messages name the
// offset, never the content, since arguments are the user's data.
func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses one value at p.pos; depth counts the enclosing containers.
func (p *parser) value(depth int) (node, error) {
	if p.pos >= len(p.in) {
		return node{}, p.errorf("unexpected end of input")
	}
	switch c := p.in[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return node{}, err
		}
		return node{kind: 's', scalar: appendString(nil, s)}, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.in[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				return node{kind: 's', scalar: []byte(lit)}, nil
			}
		}
		return node{}, p.errorf("unexpected character")
	}
}

func (p *parser) object(depth int) (node, error) {
	if depth > maxDepth {
		return node{}, p.errorf("nested more than %d deep", maxDepth)
	}
	p.pos++ // '{'
	p.skipSpace()
	n := node{kind: '{'}
	if p.pos < len(p.in) && p.in[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.in) || p.in[p.pos] != '"' {
			return node{}, p.errorf("expected an object key")
		}
		key, err := p.string()
		if err != nil {
			return node{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.in) || p.in[p.pos] != ':' {
			return node{}, p.errorf("expected ':'")
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return node{}, err
		}
		n.members = append(n.members, member{key: key, val: val})
		p.skipSpace()
		if p.pos >= len(p.in) {
			return node{}, p.errorf("unexpected end of input")
		}
		if p.in[p.pos] == '}' {
			p.pos++
			break
		}
		if p.in[p.pos] != ',' {
			return node{}, p.errorf("expected ',' or '}'")
		}
		p.pos++
	}
	slices.SortFunc(n.members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(n.members); i++ {
		if n.members[i].key == n.members[i-1].key {
			return node{}, errors.New("invalid JSON: an object has a duplicate key")
		}
	}
	return n, nil
}

func (p *parser) array(depth int) (node, error) {
	if depth > maxDepth {
		return node{}, p.errorf("nested more than %d deep", maxDepth)
	}
	p.pos++ // '['
	p.skipSpace()
	n := node{kind: '['}
	if p.pos < len(p.in) && p.in[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return node{}, err
		}
		n.array = append(n.array, val)
		p.skipSpace()
		if p.pos >= len(p.in) {
			return node{}, p.errorf("unexpected end of input")
		}
		switch p.in[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return n, nil
		default:
			return node{}, p.errorf("expected ',' or ']'")
		}
	}
}

// number copies a number that follows the JSON grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? exactly as written.
func (p *parser) number() (node, error) {
	start := p.pos
	if p.in[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.in) && p.in[p.pos] == '0':
		p.pos++
	case p.pos < len(p.in) && '1' <= p.in[p.pos] && p.in[p.pos] <= '9':
		p.digits()
	default:
		return node{}, p.errorf("malformed number")
	}
	if p.pos < len(p.in) && p.in[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return node{}, p.errorf("malformed number")
		}
	}
	if p.pos < len(p.in) && (p.in[p.pos] == 'e' || p.in[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.in) && (p.in[p.pos] == '+' || p.in[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return node{}, p.errorf("malformed number")
		}
	}
	return node{kind: 's', scalar: p.in[start:p.pos:p.pos]}, nil
}

// digits skips a run of decimal digits and reports its length.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.in) && '0' <= p.in[p.pos] && p.in[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

// string decodes the string starting at the '"' at p.pos.
func (p *parser) string() (string, error) {
	p.pos++ // '"'
	var b []byte
	for {
		if p.pos >= len(p.in) {
			return "", p.errorf("unterminated string")
		}
		c := p.in[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(b), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.errorf("control character in string")
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.in[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errorf("invalid UTF-8 in string")
			}
			b = append(b, p.in[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// escape decodes the escape sequence at p.pos, which starts with '\', and
// appends what it stands for to b.
func (p *parser) escape(b *[]byte) error {
	if p.pos+1 >= len(p.in) {
		return p.errorf("unterminated string")
	}
	switch e := p.in[p.pos+1]; e {
	case '"', '\\', '/':
		*b = append(*b, e)
		p.pos += 2
		return nil
	case 'b', 'f', 'n', 'r', 't':
		*b = append(*b, "\b\f\n\r\t"[strings.IndexByte("bfnrt", e)])
		p.pos += 2
		return nil
	case 'u':
	default:
		return p.errorf("invalid escape in string")
	}
	r, ok := p.hex4(p.pos + 2)
	if !ok {
		return p.errorf("invalid \\u escape in string")
	}
	p.pos += 6
	if utf16.IsSurrogate(r) {
		// Only a high surrogate followed by a low one is a character.
		var r2 rune = -1
		if r < 0xdc00 && p.pos+1 < len(p.in) && p.in[p.pos] == '\\' && p.in[p.pos+1] == 'u' {
			r2, ok = p.hex4(p.pos + 2)
			if !ok {
				return p.errorf("invalid \\u escape in string")
			}
		}
		r = utf16.DecodeRune(r, r2)
		if r == utf8.RuneError {
			return p.errorf("unpaired surrogate escape in string")
		}
		p.pos += 6
	}
	*b = utf8.AppendRune(*b, r)
	return nil
}

// hex4 reads the four hex digits of a \u escape starting at i.
func (p *parser) hex4(i int) (rune, bool) {
	if i+4 > len(p.in) {
		return 0, false
	}
	var r rune
	for _, c := range p.in[i : i+4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// appendString appends the canonical encoding of the valid UTF-8 string s.
func appendString(out []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\r':
			out = append(out, '\\', 'r')
		case c == '\t':
			out = append(out, '\\', 't')
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}
