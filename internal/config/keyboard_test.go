package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// TestFullWidthNormalized: numbers, lists and keywords typed with a
// Chinese input method (full-width digits, commas and letters, the
// ideographic space, the enumeration comma) read as their ASCII forms.
func TestFullWidthNormalized(t *testing.T) {
	c, err := Load(base(t,
		"SNOWLUMA_MCP_ALLOWED_GROUPS=２０００１，２０００２、20003",
		"SNOWLUMA_MCP_ALLOWED_USERS=30001，　30002",
		"SNOWLUMA_MCP_TIMEOUT_MS=５０００",
		"SNOWLUMA_MCP_MODE=ｗｒｉｔｅ",
		"SNOWLUMA_MCP_DRY_RUN=ｙｅｓ",
		"SNOWLUMA_MCP_CONFIRM=ｄｅｓｔｒｕｃｔｉｖｅ",
		"SNOWLUMA_MCP_MAX_STREAMS=８",
		"SNOWLUMA_MCP_LANG=ｚｈ－ＣＮ",
	))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{20001, 20002, 20003} {
		if !c.Safety.Groups.Allows(id) {
			t.Errorf("group %d not read from the full-width list", id)
		}
	}
	if c.Safety.Groups.Allows(20004) || !c.Safety.Users.Allows(30002) || len(c.Safety.Users) != 2 {
		t.Errorf("lists: groups %v, users %v", c.Safety.Groups.Sorted(), c.Safety.Users.Sorted())
	}
	if c.TimeoutMS != 5000 || c.Mode != ModeWrite || !c.DryRun || c.Streams.MaxStreams != 8 || c.Lang != lang.Zh || string(c.Safety.Confirm) != "destructive" {
		t.Errorf("timeout %d, mode %s, dry run %v, streams %d, lang %s, confirm %s", c.TimeoutMS, c.Mode, c.DryRun, c.Streams.MaxStreams, c.Lang, c.Safety.Confirm)
	}
}

// TestURLCharacters: a URL with a character a Chinese keyboard types, or
// with the quotes cmd's set keeps, is refused naming the character and
// its position, in both languages.
func TestURLCharacters(t *testing.T) {
	for _, tc := range []struct {
		env      string
		variable string
		en, zh   string
	}{
		{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1：3000/", "SNOWLUMA_MCP_ENDPOINT", `'：' (U+FF1A) at character 17, which a Chinese input method types: type ":" instead`, `第 17 个字符是 '：'（U+FF1A），这是中文输入法打出的字符：请改为 ":"`},
		{"SNOWLUMA_MCP_ENDPOINT=http://127。0.0.1:3000/", "SNOWLUMA_MCP_ENDPOINT", `'。' (U+3002) at character 11`, `请改为 "."`},
		{"SNOWLUMA_MCP_ENDPOINT=ｈttp://127.0.0.1:3000/", "SNOWLUMA_MCP_ENDPOINT", `'ｈ' (U+FF48) at character 1`, `请改为 "h"`},
		{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:　3000/", "SNOWLUMA_MCP_ENDPOINT", `(U+3000) at character 18, which a Chinese input method types: remove it`, "请删去"},
		{`SNOWLUMA_MCP_ENDPOINT="http://127.0.0.1:3000/"`, "SNOWLUMA_MCP_ENDPOINT", `the quote '"' at character 1`, "第 1 个字符是引号"},
		{"SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1：3001/", "SNOWLUMA_MCP_EVENTS_URL", `at character 15`, "第 15 个字符"},
	} {
		for _, l := range []struct {
			lang lang.Lang
			want string
		}{{lang.En, tc.en}, {lang.Zh, tc.zh}} {
			_, err := Load(base(t, tc.env, "SNOWLUMA_MCP_LANG="+string(l.lang)))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%s: %v", tc.env, err)
			}
			if msg := ce.In(l.lang); !strings.HasPrefix(msg, tc.variable) || !strings.Contains(msg, l.want) {
				t.Errorf("%s in %s: %q, want %q", tc.env, l.lang, msg, l.want)
			}
		}
	}
}

// TestTokenPlaceholders: a placeholder from an example, a pasted header, a
// quoted token and a full-width or Chinese one stop the start with the
// reason, and the message never repeats the token.
func TestTokenPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		token  string
		en, zh string
	}{
		{"<your access token>", "wrapped in <…>, as an example's placeholder is", "令牌被 <…> 包着"},
		{"<你的访问令牌>", "wrapped in <…>", "这里要填 SnowLuma 的访问令牌本身"},
		{"《访问令牌》", "wrapped in 《…》", "令牌被 《…》 包着"},
		{`"Xq3-aZ81_kP0"`, `wrapped in quotes ("…")`, "cmd 的 set"},
		{"'Xq3-aZ81_kP0'", "wrapped in quotes ('…')", "引号"},
		{"“Xq3-aZ81_kP0”", "wrapped in quotes (“…”)", "引号 “…”"},
		{"Authorization: Bearer Xq3-aZ81_kP0", "a pasted header line", "整行请求头"},
		{"authorization:Xq3-aZ81_kP0", "a pasted header line", "整行请求头"},
		{"Bearer Xq3-aZ81_kP0", "'Bearer ' prefix", "'Bearer ' 前缀"},
		{"Xq3-aZ81＿kP0", "holds '＿' (U+FF3F) at character 9, which is not ASCII", "令牌第 9 个字符是 '＿'（U+FF3F）"},
		{"访问令牌访问令牌", "at character 1, which is not ASCII", "不是 ASCII"},
	} {
		for _, v := range []string{"SNOWLUMA_MCP_TOKEN", "SNOWLUMA_MCP_EVENTS_TOKEN"} {
			for _, l := range []struct {
				lang lang.Lang
				want string
			}{{lang.En, tc.en}, {lang.Zh, tc.zh}} {
				_, err := Load(base(t, v+"="+tc.token, "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/"))
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("%s=%s: %v", v, tc.token, err)
				}
				msg := ce.In(l.lang)
				if !strings.HasPrefix(msg, v+":") && !strings.HasPrefix(msg, v+"：") || !strings.Contains(msg, l.want) {
					t.Errorf("%s=%s in %s: %q, want %q", v, tc.token, l.lang, msg, l.want)
				}
				if strings.Contains(msg, "Xq3-aZ81") || strings.Contains(msg, "访问令牌访问令牌") {
					t.Errorf("%s=%s: the message repeats the token: %q", v, tc.token, msg)
				}
			}
		}
	}
	// An ordinary token, and SnowLuma's generated form, are accepted.
	for _, tok := range []string{"Xq3-aZ81", "kM2v8Qb1Zr7yT0pW4nE6sH9xL3aD5cF2gJ8uK1oI0qR"} {
		if c, err := Load(base(t, "SNOWLUMA_MCP_TOKEN="+tok)); err != nil || c.Token != tok {
			t.Errorf("%s: %v", tok, err)
		}
	}
}

// TestShortTokenServes: a token under MinTokenLen characters, which
// SnowLuma accepts, is served with a warning in the operator's language
// and a fix of its own; the warning never repeats the token.
func TestShortTokenServes(t *testing.T) {
	for _, tc := range []struct {
		l        lang.Lang
		want     string
		wantFix  string
		variable string
		env      []string
	}{
		{lang.En, "SNOWLUMA_MCP_TOKEN has 4 characters, fewer than 8", "43-character", "SNOWLUMA_MCP_TOKEN", []string{"SNOWLUMA_MCP_TOKEN=3000"}},
		{lang.Zh, "SNOWLUMA_MCP_TOKEN 只有 4 个字符，少于 8 个", "43 个字符", "SNOWLUMA_MCP_TOKEN", []string{"SNOWLUMA_MCP_TOKEN=3000"}},
		{lang.Zh, "SNOWLUMA_MCP_EVENTS_TOKEN 只有 7 个字符", "更长的令牌", "SNOWLUMA_MCP_EVENTS_TOKEN", []string{"SNOWLUMA_MCP_EVENTS_TOKEN= abc1234 ", "SNOWLUMA_MCP_TOKEN=Xq3-aZ81kP0"}},
	} {
		env := append(base(t, "SNOWLUMA_MCP_LANG="+string(tc.l), "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/"), tc.env...)
		c, err := Load(env)
		if err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		var got []string
		for _, n := range c.Notes {
			if strings.Contains(n, tc.variable+" ") {
				got = append(got, n)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], tc.want) || !strings.Contains(c.Fixes[got[0]], tc.wantFix) {
			t.Errorf("%v in %s: notes %q, fixes %q; want one saying %q, fixed by %q", tc.env, tc.l, c.Notes, c.Fixes, tc.want, tc.wantFix)
		}
		if strings.Contains(strings.Join(c.Notes, " "), "3000") || strings.Contains(strings.Join(c.Notes, " "), "abc1234") {
			t.Errorf("%v: a note repeats the token: %q", tc.env, c.Notes)
		}
	}
	c, err := Load(base(t, "SNOWLUMA_MCP_TOKEN=3000"))
	if err != nil || c.Token != "3000" || c.EventsToken != "3000" {
		t.Errorf("a short token is not served: %v", err)
	}
	// Placeholders stay refused, however short.
	if _, err := Load(base(t, "SNOWLUMA_MCP_TOKEN=<tok>")); err == nil {
		t.Error("a short placeholder was accepted")
	}
}
