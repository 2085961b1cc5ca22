package prompts

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// TestSinceAsTyped: since reads what people type, in English and Chinese,
// in the operator's zone: durations with words and Chinese units, days by
// name, dates with slashes, dots or 年月日 and without a year.
func TestSinceAsTyped(t *testing.T) {
	shanghai := time.FixedZone("CST", 8*3600)
	at := time.Date(2026, 12, 1, 15, 30, 0, 0, shanghai) // Tuesday afternoon in Shanghai
	midnight := time.Date(2026, 12, 1, 0, 0, 0, 0, shanghai).Unix()
	day := int64(86400)
	for in, unix := range map[string]int64{
		"2h":               at.Add(-2 * time.Hour).Unix(),
		"2 hours":          at.Add(-2 * time.Hour).Unix(),
		"2 hours ago":      at.Add(-2 * time.Hour).Unix(),
		"last 2 hours":     at.Add(-2 * time.Hour).Unix(),
		"2小时":              at.Add(-2 * time.Hour).Unix(),
		"２小时":              at.Add(-2 * time.Hour).Unix(),
		"2 小时前":            at.Add(-2 * time.Hour).Unix(),
		"2个小时":             at.Add(-2 * time.Hour).Unix(),
		"最近2小时":            at.Add(-2 * time.Hour).Unix(),
		"30分钟":             at.Add(-30 * time.Minute).Unix(),
		"90 min":           at.Add(-90 * time.Minute).Unix(),
		"1天2小时":            at.Add(-26 * time.Hour).Unix(),
		"3天":               at.Add(-72 * time.Hour).Unix(),
		"1 week":           at.Add(-7 * 24 * time.Hour).Unix(),
		"今天":               midnight,
		"today":            midnight,
		"Today":            midnight,
		"昨天":               midnight - day,
		"yesterday":        midnight - day,
		"前天":               midnight - 2*day,
		"2026/12/01":       midnight,
		"2026/12/1":        midnight,
		"2026.12.01":       midnight,
		"2026年12月1日":       midnight,
		"12月1日":            midnight,
		"11月30日":           midnight - day,
		"12/01":            midnight,
		"2026/12/01 8:00":  midnight + 8*3600,
		"12月1日 8:30":       midnight + 8*3600 + 1800,
		"12月1日 8点":         midnight + 8*3600,
		"2026-12-01 08:00": midnight + 8*3600,
		// A date without a year that would be in the future is last year's.
		"12月25日": time.Date(2025, 12, 25, 0, 0, 0, 0, shanghai).Unix(),
	} {
		m, err := prompt(t, "group_digest").Render(map[string]string{"group_id": "20001", "since": in}, Env{Live: true, Now: at, Location: shanghai})
		if err != nil {
			t.Errorf("since %q: %v", in, err)
			continue
		}
		if !strings.Contains(m.Text, "Unix time "+strconv.FormatInt(unix, 10)) {
			t.Errorf("since %q: want Unix time %d in:\n%s", in, unix, m.Text)
		}
	}
}

// TestSinceRefusedInChinese: since's refusals, and the sentence around
// them, are in the operator's language.
func TestSinceRefusedInChinese(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in     string
		zh, en string
	}{
		{"明天", "提示 group_digest 的参数 since：\"明天\" 不是游标、时间或时长：请给出事件游标", "prompt group_digest, argument since: \"明天\" is not a cursor, a time or a duration"},
		{"2027/01/01", "在将来：请给现在之前的时间", "is in the future: give a time before now"},
		{"400天", "400天 往前超过一年：请给短一些的时长", "400天 reaches back more than a year"},
		{"2 fortnights", "不是游标、时间或时长", "is not a cursor, a time or a duration"},
	} {
		for _, l := range []lang.Lang{lang.Zh, lang.En} {
			_, err := prompt(t, "group_digest").Render(map[string]string{"group_id": "20001", "since": tc.in}, Env{Live: true, Now: now, Lang: l})
			want := tc.en
			if l == lang.Zh {
				want = tc.zh
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("since %q in %s: %v, want %q", tc.in, l, err, want)
			}
		}
	}
	_, err := prompt(t, "group_digest").Render(map[string]string{}, Env{Live: true, Now: now, Lang: lang.Zh})
	if err == nil || !strings.HasPrefix(err.Error(), "提示 group_digest 的参数 group_id：必填：群号") {
		t.Errorf("missing group in Chinese: %v", err)
	}
}
