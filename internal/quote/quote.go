// Package quote shortens, cleans and quotes text: what a message repeats of
// input it did not choose (a value a client sent, a redirect's target),
// which it returns as valid UTF-8, never cut inside a character and
// without credentials; the first characters of a string (Prefix); and a
// string quoted as JSON straight into a buffer (AppendJSON).
package quote

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Clip returns s whole when it has at most max characters (runes), else its
// first max characters followed by "…". Invalid UTF-8 becomes U+FFFD.
func Clip(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if p := Prefix(s, max); len(p) < len(s) {
		return p + "…"
	}
	return s
}

// Prefix returns the first n characters (runes) of s, or s when it has no
// more; it never cuts inside a character. A byte of invalid UTF-8 counts
// as one character.
func Prefix(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// locationMax is how many characters of a redirect's target a message
// repeats.
const locationMax = 200

// Location names where a redirect pointed, for an error message: the
// scheme, host and path of its Location header resolved against the
// request, without user info, query or fragment (any of which may carry a
// token), clipped; or what is wrong with the header.
func Location(resp *http.Response) string {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "no location"
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "an unreadable location"
	}
	if resp.Request != nil && resp.Request.URL != nil {
		u = resp.Request.URL.ResolveReference(u)
	}
	return Clip((&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String(), locationMax)
}

// AppendJSON appends s to b as a JSON string, byte for byte as
// encoding/json writes a string with HTML escaping off: '"' and '\\' and
// the control characters escaped (\b, \f, \n, \r, \t by name, the rest as
// \u00XX), invalid UTF-8 as \ufffd, U+2028 and U+2029 as escapes, and
// everything else as it is. The text block of a tool result is its JSON
// again, so quoting it straight into the answer (mcpseam.PlainToolResult)
// saves a pass through the encoder and a copy of the result (TestAppendJSONMatchesEncoder).
func AppendJSON(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
