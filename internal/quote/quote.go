// Package quote shortens and cleans what a message repeats of input it did
// not choose: a value a client sent, a redirect's target. What it returns
// is valid UTF-8, never cut inside a character, and holds no credentials.
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
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
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
