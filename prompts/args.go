package prompts

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/completion"
	"github.com/snowluma/snowluma-mcp/events"
	quoted "github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/safety"
)

// Limits of argument values.
const (
	// MaxRules is the most characters of moderation_sweep's rules.
	MaxRules = 2000
	// MaxContent is the most characters of draft_message's content, the
	// longest text preview_message drafts.
	MaxContent = 4500
	// MaxSince is the furthest back since may reach as a duration.
	MaxSince = 365 * 24 * time.Hour
	// maxSafeInteger is the largest id every JSON peer reads exactly.
	maxSafeInteger = 1<<53 - 1
	// maxIDText is the longest id value read (a long one is refused
	// without being parsed).
	maxIDText = 32
	// maxListed is the most allowlisted ids an error names.
	maxListed = 10
)

// since is a read since argument: an event cursor, or a point in time.
type since struct {
	cursor string
	at     time.Time
	ago    time.Duration // how far back from the render time, when given so
}

// target is a read draft_message target.
type target struct {
	group bool
	id    int64
}

// readID reads a positive id as typed (full-width digits included). what
// names the id in problems ("group number", "QQ number").
func readID(v, what, example string) (int64, string) {
	s := completion.Fold(v)
	if len(s) > maxIDText || s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Sprintf("%q is not a %s: give digits only, such as %s", clip(v), what, example)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id > maxSafeInteger {
		return 0, fmt.Sprintf("%s is too large to be a %s", clip(s), what)
	}
	if id == 0 {
		return 0, fmt.Sprintf("0 is not a %s: give a positive one, such as %s", what, example)
	}
	return id, ""
}

// outside says that id is not in allow, naming the variable and what it
// allows; "" when it is.
func outside(id int64, allow safety.IDSet, what, variable string) string {
	if allow.Allows(id) {
		return ""
	}
	ids := allow.Sorted()
	listed := make([]string, 0, min(len(ids), maxListed))
	for _, a := range ids[:min(len(ids), maxListed)] {
		listed = append(listed, strconv.FormatInt(a, 10))
	}
	more := ""
	if len(ids) > maxListed {
		more = ", ..."
	}
	return fmt.Sprintf("%s %d is outside %s (%s%s): choose one of those, or ask the operator to add it", what, id, variable, strings.Join(listed, ", "), more)
}

func checkGroup(v string, env Env) (any, string) {
	id, problem := readID(v, "group number", "20001")
	if problem != "" {
		return nil, problem
	}
	if problem := outside(id, env.Groups, "group", "SNOWLUMA_MCP_ALLOWED_GROUPS"); problem != "" {
		return nil, problem
	}
	return id, ""
}

func checkUser(v string, env Env) (any, string) {
	id, problem := readID(v, "QQ number", "30001")
	if problem != "" {
		return nil, problem
	}
	if problem := outside(id, env.Users, "user", "SNOWLUMA_MCP_ALLOWED_USERS"); problem != "" {
		return nil, problem
	}
	return id, ""
}

// checkTarget reads "group:<id>" or "user:<id>" ("private:<id>" too).
func checkTarget(v string, env Env) (any, string) {
	s := completion.Fold(v)
	kind, rest, ok := strings.Cut(s, ":")
	const form = "give group:<group number> or user:<QQ number>, such as group:20001"
	if !ok {
		return nil, fmt.Sprintf("%q names no kind of target: %s", clip(v), form)
	}
	switch kind {
	case "group":
		id, problem := checkGroup(rest, env)
		if problem != "" {
			return nil, problem
		}
		return target{group: true, id: id.(int64)}, ""
	case "user", "private":
		id, problem := checkUser(rest, env)
		if problem != "" {
			return nil, problem
		}
		return target{id: id.(int64)}, ""
	}
	return nil, fmt.Sprintf("%q is not a kind of target: %s", clip(kind), form)
}

// timeLayouts are the forms of a time since accepts besides RFC 3339, read
// in the operator's zone.
var timeLayouts = []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"}

// checkSince reads an event cursor, a time or a duration back from now.
func checkSince(v string, env Env) (any, string) {
	const forms = "give an event cursor (next_cursor of an event resource), a time such as 2026-12-01 08:00 or 2026-12-01T08:00:00+08:00 or Unix seconds, or a duration back from now such as 2h, 90m or 3d"
	if len(v) > 64 {
		return nil, "too long: " + forms
	}
	// A cursor is case-sensitive: it is read before folding.
	if c := strings.TrimSpace(v); events.IsCursor(c) && strings.TrimLeft(c, "0123456789") != "" {
		if !env.Events {
			return nil, "an event cursor needs live events, which are not configured (SNOWLUMA_MCP_EVENTS_URL): give a time or a duration instead"
		}
		return since{cursor: c}, ""
	}
	s := completion.Fold(v)
	if d, ok := parseAgo(s); ok {
		if d > MaxSince {
			return nil, fmt.Sprintf("%s reaches back more than a year: give a shorter duration", s)
		}
		return since{at: env.Now.Add(-d), ago: d}, ""
	}
	var at time.Time
	if secs, err := strconv.ParseInt(s, 10, 64); err == nil && secs > 0 {
		at = time.Unix(secs, 0)
	} else if t, err := time.Parse(time.RFC3339, strings.ToUpper(s)); err == nil {
		at = t
	} else {
		for _, layout := range timeLayouts {
			if t, err := time.ParseInLocation(layout, strings.ToUpper(s), env.Location); err == nil {
				at = t
				break
			}
		}
	}
	if at.IsZero() {
		return nil, fmt.Sprintf("%q is not a cursor, a time or a duration: %s", clip(v), forms)
	}
	if at.After(env.Now) {
		return nil, fmt.Sprintf("%s is in the future: give a time before now", at.In(env.Location).Format(time.RFC3339))
	}
	return since{at: at}, ""
}

// parseAgo reads a duration of days, hours and minutes ("3d", "1h30m",
// "90m"); a bare number is not one.
func parseAgo(s string) (time.Duration, bool) {
	var total time.Duration
	if s == "" {
		return 0, false
	}
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) || i > 18 {
			return 0, false
		}
		n, _ := strconv.Atoi(s[:i])
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[s[i]]
		if unit == 0 {
			return 0, false
		}
		if time.Duration(n) > MaxSince/unit {
			total = MaxSince + 1 // refused by the caller, without overflowing
		} else {
			total += time.Duration(n) * unit
		}
		s = s[i+1:]
	}
	return total, total > 0
}

// checkText returns a check of free text of at most max characters: valid
// UTF-8, and no control characters but line breaks and tabs.
func checkText(max int) func(string, Env) (any, string) {
	return func(v string, _ Env) (any, string) {
		if !utf8.ValidString(v) {
			return nil, "not valid UTF-8 text"
		}
		if n := utf8.RuneCountInString(v); n > max {
			return nil, fmt.Sprintf("%d characters, more than %d: shorten it", n, max)
		}
		for i, r := range v {
			if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
				return nil, fmt.Sprintf("control character U+%04X at byte %d: remove it", r, i)
			}
		}
		return strings.TrimSpace(v), ""
	}
}

// clip shortens a value quoted in a problem.
func clip(s string) string { return quoted.Clip(s, 40) }
