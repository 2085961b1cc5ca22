package archive

import (
	"net/url"
	"regexp"
	"strings"
)

// Redact returns path as it may be shown: a database URL with its
// password replaced by "xxxxx" (and a password query parameter likewise);
// a file path unchanged.
func Redact(path string) string {
	if !IsURL(path) {
		return path
	}
	u, err := url.Parse(strings.TrimSpace(path))
	if err != nil {
		// Unparsable: keep only the scheme and host-ish part before any @.
		return redactLoose(path)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

var looseUserinfo = regexp.MustCompile(`^([a-zA-Z]+://)[^/?#]*@`)

func redactLoose(path string) string {
	if m := looseUserinfo.FindStringSubmatch(path); m != nil {
		return m[1] + "xxxxx@" + path[len(m[0]):]
	}
	if i := strings.Index(path, "://"); i >= 0 {
		return path[:i+3] + "…"
	}
	return "postgres://…"
}

// redactIn removes secret, when not empty, from s.
func redactIn(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "xxxxx")
}
