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
	"github.com/snowluma/snowluma-mcp/internal/lang"
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
func readID(v string, what Text, example string, env Env) (int64, string) {
	s := completion.Fold(v)
	w := what.In(env.Lang)
	if len(s) > maxIDText || s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Sprintf(pick(env, "%q is not a %s: give digits only, such as %s", "%q 不是%s：请只写数字，例如 %s"), clip(v), w, example)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id > maxSafeInteger {
		return 0, fmt.Sprintf(pick(env, "%s is too large to be a %s", "%s 太大，不可能是%s"), clip(s), w)
	}
	if id == 0 {
		return 0, fmt.Sprintf(pick(env, "0 is not a %s: give a positive one, such as %s", "0 不是%s：请给正数，例如 %s"), w, example)
	}
	return id, ""
}

// outside says that id is not in allow, naming the variable and what it
// allows; "" when it is.
func outside(id int64, allow safety.IDSet, what Text, variable string, env Env) string {
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
	return fmt.Sprintf(pick(env, "%s %d is outside %s (%s%s): choose one of those, or ask the operator to add it", "%s %d 不在 %s（%s%s）之内：请从中选一个，或请运维者把它加进去"), what.In(env.Lang), id, variable, strings.Join(listed, ", "), more)
}

func checkGroup(v string, env Env) (any, string) {
	id, problem := readID(v, Text{"group number", "群号"}, "20001", env)
	if problem != "" {
		return nil, problem
	}
	if problem := outside(id, env.Groups, Text{"group", "群"}, "SNOWLUMA_MCP_ALLOWED_GROUPS", env); problem != "" {
		return nil, problem
	}
	return id, ""
}

func checkUser(v string, env Env) (any, string) {
	id, problem := readID(v, Text{"QQ number", "QQ 号"}, "30001", env)
	if problem != "" {
		return nil, problem
	}
	if problem := outside(id, env.Users, Text{"user", "用户"}, "SNOWLUMA_MCP_ALLOWED_USERS", env); problem != "" {
		return nil, problem
	}
	return id, ""
}

// checkTarget reads "group:<id>" or "user:<id>" ("private:<id>" too).
func checkTarget(v string, env Env) (any, string) {
	s := completion.Fold(v)
	kind, rest, ok := strings.Cut(s, ":")
	form := pick(env, "give group:<group number> or user:<QQ number>, such as group:20001", "请写 group:<群号> 或 user:<QQ 号>，例如 group:20001")
	if !ok {
		return nil, fmt.Sprintf(pick(env, "%q names no kind of target: %s", "%q 没有写明目标的种类：%s"), clip(v), form)
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
	return nil, fmt.Sprintf(pick(env, "%q is not a kind of target: %s", "%q 不是目标的种类：%s"), clip(kind), form)
}

// timeLayouts are the forms of a time since accepts besides RFC 3339, read
// in the operator's zone, once dateForm has made a date's separators
// dashes (single-digit months, days and hours are read too).
var timeLayouts = []string{"2006-1-2 15:04:05", "2006-1-2 15:04", "2006-1-2T15:04:05", "2006-1-2T15:04", "2006-1-2"}

// A bilingual problem: what since says when it refuses a value, in the
// operator's language (prompts/get's error is shown to the person who
// typed it).
func pick(env Env, en, zh string) string {
	if env.Lang == lang.Zh {
		return zh
	}
	return en
}

// checkSince reads an event cursor, a time or a duration back from now, as
// people type them: 2h, 2 hours, 2小时, 2 小时前, 今天, 昨天, 2026-12-01 08:00,
// 2026/12/01, 2026年12月1日, 12月1日, Unix seconds or RFC 3339.
func checkSince(v string, env Env) (any, string) {
	forms := pick(env, "give an event cursor (next_cursor of an event resource), a time such as 2026-12-01 08:00, 2026/12/01, 12月1日 or Unix seconds, a day such as today or yesterday (今天, 昨天), or a duration back from now such as 2h, 2 hours, 2小时 or 3d",
		"请给出事件游标（事件资源的 next_cursor）、时间（如 2026-12-01 08:00、2026/12/01、12月1日 或 Unix 秒）、日子（今天、昨天）或往前的时长（如 2小时、2h、3天）")
	if len(v) > 64 {
		return nil, pick(env, "too long: ", "太长了：") + forms
	}
	// A cursor is case-sensitive: it is read before folding.
	if c := strings.TrimSpace(v); events.IsCursor(c) && strings.TrimLeft(c, "0123456789") != "" {
		if !env.Events {
			return nil, pick(env, "an event cursor needs live events, which are not configured (SNOWLUMA_MCP_EVENTS_URL): give a time or a duration instead",
				"事件游标需要实时事件，而这里没有配置（SNOWLUMA_MCP_EVENTS_URL）：请改给时间或时长")
		}
		return since{cursor: c}, ""
	}
	s := completion.Fold(v)
	if d, ok := parseAgo(s); ok {
		if d > MaxSince {
			return nil, fmt.Sprintf(pick(env, "%s reaches back more than a year: give a shorter duration", "%s 往前超过一年：请给短一些的时长"), strings.TrimSpace(v))
		}
		return since{at: env.Now.Add(-d), ago: d}, ""
	}
	var at time.Time
	if back, ok := dayWords[s]; ok {
		y, m, d := env.Now.In(env.Location).Date()
		at = time.Date(y, m, d-back, 0, 0, 0, 0, env.Location)
	} else if secs, err := strconv.ParseInt(s, 10, 64); err == nil && secs > 0 {
		at = time.Unix(secs, 0)
	} else if t, err := time.Parse(time.RFC3339, strings.ToUpper(s)); err == nil {
		at = t
	} else {
		at = parseDate(s, env)
	}
	if at.IsZero() {
		return nil, fmt.Sprintf(pick(env, "%q is not a cursor, a time or a duration: %s", "%q 不是游标、时间或时长：%s"), clip(v), forms)
	}
	if at.After(env.Now) {
		return nil, fmt.Sprintf(pick(env, "%s is in the future: give a time before now", "%s 在将来：请给现在之前的时间"), at.In(env.Location).Format(time.RFC3339))
	}
	return since{at: at}, ""
}

// dayWords are the days named by a word, as days back from today: since
// one of them is its midnight in the operator's zone.
var dayWords = map[string]int{"today": 0, "今天": 0, "今日": 0, "yesterday": 1, "昨天": 1, "昨日": 1, "前天": 2}

// parseDate reads a date, with a time of day or not, in the operator's
// zone: 2026-12-01, 2026/12/01, 2026.12.01, 2026年12月1日 and, without a
// year, 12月1日 or 12/01 (the last such date that is not in the future).
// The zero time when s is none of these.
func parseDate(s string, env Env) time.Time {
	date, clock, _ := strings.Cut(strings.TrimSpace(s), " ")
	if t, c, ok := strings.Cut(date, "t"); ok && clock == "" {
		date, clock = t, c
	}
	r := strings.NewReplacer("年", "-", "月", "-", "日", "", "号", "", "/", "-", ".", "-")
	date = strings.TrimSuffix(r.Replace(date), "-")
	clock = strings.NewReplacer("点", ":", "时", ":", "分", "").Replace(strings.TrimSpace(clock))
	if strings.HasSuffix(clock, ":") {
		clock += "00"
	}
	yearless := strings.Count(date, "-") == 1
	if yearless {
		date = strconv.Itoa(env.Now.In(env.Location).Year()) + "-" + date
	}
	full := date
	if clock != "" {
		full += " " + clock
	}
	for _, layout := range timeLayouts {
		t, err := time.ParseInLocation(layout, full, env.Location)
		if err != nil {
			continue
		}
		if yearless && t.After(env.Now) {
			t = t.AddDate(-1, 0, 0)
		}
		return t
	}
	return time.Time{}
}

// agoUnits are the words of a duration's units, in English and Chinese.
var agoUnits = map[string]time.Duration{
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour, "天": 24 * time.Hour, "日": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour, "周": 7 * 24 * time.Hour, "星期": 7 * 24 * time.Hour, "个星期": 7 * 24 * time.Hour,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour, "小时": time.Hour, "个小时": time.Hour, "钟头": time.Hour, "个钟头": time.Hour,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute, "分钟": time.Minute, "分": time.Minute,
}

// parseAgo reads a duration back from now in days, weeks, hours and
// minutes, as a number and a unit, repeated: 3d, 1h30m, 90m, 2 hours,
// 2小时, 1天2小时, with "last"/"past"/最近/过去 before it or "ago"/前/以前/之前/以来
// after it. A bare number is not one.
func parseAgo(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{"last ", "past ", "最近", "过去"} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	for _, p := range []string{" ago", "以前", "之前", "以来", "前"} {
		s = strings.TrimSpace(strings.TrimSuffix(s, p))
	}
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
		rest := strings.TrimLeft(s[i:], " ")
		j := 0
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != ' ' {
			j++
		}
		unit := agoUnits[rest[:j]]
		if unit == 0 {
			return 0, false
		}
		if time.Duration(n) > MaxSince/unit {
			total = MaxSince + 1 // refused by the caller, without overflowing
		} else {
			total += time.Duration(n) * unit
		}
		s = strings.TrimLeft(rest[j:], " ")
	}
	return total, total > 0
}

// checkText returns a check of free text of at most max characters: valid
// UTF-8, and no control characters but line breaks and tabs.
func checkText(max int) func(string, Env) (any, string) {
	return func(v string, env Env) (any, string) {
		if !utf8.ValidString(v) {
			return nil, pick(env, "not valid UTF-8 text", "不是有效的 UTF-8 文本")
		}
		if n := utf8.RuneCountInString(v); n > max {
			return nil, fmt.Sprintf(pick(env, "%d characters, more than %d: shorten it", "%d 个字符，超过 %d 个：请缩短"), n, max)
		}
		for i, r := range v {
			if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
				return nil, fmt.Sprintf(pick(env, "control character U+%04X at byte %d: remove it", "第 %[2]d 字节处有控制字符 U+%04[1]X：请删去"), r, i)
			}
		}
		return strings.TrimSpace(v), ""
	}
}

// clip shortens a value quoted in a problem.
func clip(s string) string { return quoted.Clip(s, 40) }
