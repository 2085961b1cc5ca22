package quote

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 16, "short"},
		{"exactly16bytes!!", 16, "exactly16bytes!!"},
		{"seventeen bytes!!", 16, "seventeen bytes!…"},
		{"禁言群成员禁言群成员", 4, "禁言群成…"},
		{"禁言", 2, "禁言"},
		{"a\xffb", 5, "a\uFFFDb"},
		{"", 3, ""},
	} {
		got := Clip(tc.in, tc.max)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestLocation(t *testing.T) {
	t.Parallel()
	req := &http.Request{URL: &url.URL{Scheme: "http", Host: "127.0.0.1:3000", Path: "/send_msg"}}
	for _, tc := range []struct{ loc, want string }{
		{"", "no location"},
		{"http://user:secret@evil.example/x?access_token=secret#frag", "http://evil.example/x"},
		{"/login?token=secret", "http://127.0.0.1:3000/login"},
		{"ws://[::1", "an unreadable location"},
		{"http://h/" + strings.Repeat("a", 300), "http://h/" + strings.Repeat("a", 200-len("http://h/")) + "…"},
	} {
		resp := &http.Response{Header: http.Header{}, Request: req}
		if tc.loc != "" {
			resp.Header.Set("Location", tc.loc)
		}
		got := Location(resp)
		if got != tc.want {
			t.Errorf("Location(%q) = %q, want %q", tc.loc, got, tc.want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("Location(%q) repeats a secret: %q", tc.loc, got)
		}
	}
}

// TestPrefix: the first n characters, never cut inside one, and Clip is
// Prefix with an ellipsis when it cut.
func TestPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 16, "short"},
		{"禁言群成员", 2, "禁言"},
		{"a\xffb", 2, "a\xff"},
		{"abc", 0, ""},
		{"", 3, ""},
	} {
		if got := Prefix(tc.in, tc.n); got != tc.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
