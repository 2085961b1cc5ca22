package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// base is a minimal read-mode environment with a private download
// directory, so that nothing of the test process's own HOME is used.
func base(t *testing.T, extra ...string) []string {
	return append([]string{
		"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/",
		"SNOWLUMA_MCP_DOWNLOAD_DIR=" + t.TempDir(),
	}, extra...)
}

// TestKnownVariablesFollowTheStruct checks that the unknown-variable
// warning knows exactly the variables Load reads, so a field added to the
// struct is never warned about, and that every variable is documented.
func TestKnownVariablesFollowTheStruct(t *testing.T) {
	vars := Variables()
	if len(vars) < 20 {
		t.Fatalf("only %d variables", len(vars))
	}
	seen := map[string]bool{}
	for _, v := range vars {
		if !strings.HasPrefix(v.Name, Prefix+"_") || v.Meaning == "" || v.Shown == "" || seen[v.Name] {
			t.Errorf("variable %+v: a prefixed name, a default and a meaning, once each", v)
		}
		seen[v.Name] = true
		if w := Unknown(lang.En, []string{v.Name + "=x"}); len(w) != 0 {
			t.Errorf("%s is read but warned about: %q", v.Name, w)
		}
	}
	w := Unknown(lang.En, []string{"SNOWLUMA_MCP_TIMEOUT=5", "PATH=/bin", "SNOWLUMA_MCPX=1"})
	if len(w) != 1 || !strings.Contains(w[0], "did you mean SNOWLUMA_MCP_TIMEOUT_MS?") || strings.Contains(w[0], "=5") {
		t.Errorf("warnings %q, want one naming SNOWLUMA_MCP_TIMEOUT_MS without the value", w)
	}
}

// TestOnlyFullNames: a bare TOKEN, MODE, ENDPOINT or LANG in the host's
// environment is not ours and is never read as one of our variables.
func TestOnlyFullNames(t *testing.T) {
	c, err := Load([]string{"TOKEN=stolen", "MODE=write", "ENDPOINT=http://127.0.0.1:1/", "TIMEOUT_MS=5", "LANG=zh_CN.UTF-8",
		"SNOWLUMA_MCP_LANG=", "HOME=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "" || c.Mode != ModeDocs || c.Endpoint != nil || c.TimeoutMS != 30000 {
		t.Errorf("bare names were read: token %q, mode %s, endpoint %v, timeout %d", c.Token, c.Mode, c.Endpoint, c.TimeoutMS)
	}
	if c.Lang != "zh" {
		t.Errorf("language %q, want zh from the locale in LANG", c.Lang)
	}
}

// TestDefaults: an unset variable and an empty one both take the default.
func TestDefaults(t *testing.T) {
	for _, env := range [][]string{base(t), base(t, "SNOWLUMA_MCP_TIMEOUT_MS=", "SNOWLUMA_MCP_MAX_STREAMS=")} {
		c, err := Load(env)
		if err != nil {
			t.Fatal(err)
		}
		if c.Mode != ModeRead || c.TimeoutMS != 30000 || c.MaxBodyBytes != 2<<20 || c.Streams.MaxStreams != 4 || !c.ValidateParams || c.UntrustedSends != untrusted.ModeConfirm {
			t.Errorf("%q: %+v", env, c)
		}
	}
}

// TestLoadErrors: a bad value is an *Error naming the variable, and never
// holds the value of a secret.
func TestLoadErrors(t *testing.T) {
	_, err := Load(base(t, "SNOWLUMA_MCP_TOKEN=Bearer s3cret"))
	var e *Error
	if !errors.As(err, &e) || e.Var != "TOKEN" || strings.Contains(err.Error(), "s3cret") || !strings.HasPrefix(err.Error(), "SNOWLUMA_MCP_TOKEN: ") {
		t.Errorf("%v", err)
	}
	if _, err := Load(base(t, "SNOWLUMA_MCP_MAX_STREAMS=65")); !errors.As(err, &e) || e.Var != "MAX_STREAMS" {
		t.Errorf("%v", err)
	}
}

// TestEventsToken: SNOWLUMA_MCP_EVENTS_TOKEN, trimmed, is the events
// token when set; else SNOWLUMA_MCP_TOKEN is, and doctor is told which.
func TestEventsToken(t *testing.T) {
	for _, tc := range []struct {
		token, events, want, from string
	}{
		{"http-tok", " ws-token\r\n", "ws-token", "set"},
		{"http-tok", "", "http-tok", "inherited"},
		{"http-tok", "  ", "http-tok", "inherited"},
		{"", "ws-token", "ws-token", "set"},
		{"", "", "", "unset"},
	} {
		c, err := Load(base(t, "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/", "SNOWLUMA_MCP_TOKEN="+tc.token, "SNOWLUMA_MCP_EVENTS_TOKEN="+tc.events))
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.EventsToken != tc.want || c.EventsTokenFrom != tc.from || c.Token != tc.token {
			t.Errorf("TOKEN %q EVENTS_TOKEN %q: events token %q (%s), token %q", tc.token, tc.events, c.EventsToken, c.EventsTokenFrom, c.Token)
		}
	}
	c, err := Load(base(t, "SNOWLUMA_MCP_EVENTS_TOKEN=ws-token"))
	if err != nil || !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "SNOWLUMA_MCP_EVENTS_TOKEN ignored") }) {
		t.Errorf("events token without an events URL: %v %q", err, c.Notes)
	}
}

// TestUserCacheDir: the default download directory comes from the given
// environment, as os.UserCacheDir would find it on each system.
func TestUserCacheDir(t *testing.T) {
	// Windows, Wine and the environment a host passes on spell it
	// LOCALAPPDATA (os.UserCacheDir's "LocalAppData" finds it only
	// because Windows reads names in any case).
	env := map[string]string{"HOME": "/home/op", "XDG_CACHE_HOME": "/xdg", "LOCALAPPDATA": `C:\Users\op\AppData\Local`}
	get := func(k string) string { return env[k] }
	for goos, want := range map[string]string{"linux": "/xdg", "darwin": filepath.Join("/home/op", "Library", "Caches"), "windows": `C:\Users\op\AppData\Local`} {
		if got, err := userCacheDir(goos, get); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", goos, got, err, want)
		}
	}
	env["XDG_CACHE_HOME"] = "relative"
	if got, _ := userCacheDir("linux", get); got != filepath.Join("/home/op", ".cache") {
		t.Errorf("a relative XDG_CACHE_HOME: %q", got)
	}
	if _, err := userCacheDir("linux", func(string) string { return "" }); err == nil {
		t.Error("no HOME: want an error")
	}
	c, err := Load([]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "HOME=/home/op", "XDG_CACHE_HOME="})
	if err != nil || c.Streams.DownloadDir != filepath.Join("/home/op", ".cache", "snowluma-mcp", "downloads") {
		t.Errorf("default download directory: %v %v", c, err)
	}
	// The cache directory the server keeps its own state in by default
	// (the send gate's record), from the same environment.
	if c.CacheDir != filepath.Join("/home/op", ".cache") {
		t.Errorf("cache directory: %q", c.CacheDir)
	}
	if w, err := load("windows", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", `LOCALAPPDATA=C:\Users\op\AppData\Local`, `USERPROFILE=C:\Users\op`}); err != nil || w.CacheDir != `C:\Users\op\AppData\Local` {
		t.Errorf("cache directory on Windows: %v %v", w, err)
	}
	if d, err := Load([]string{"HOME=/home/op"}); err != nil || d.CacheDir != "" {
		t.Errorf("docs mode keeps nothing: %q %v", d.CacheDir, err)
	}
}

// han reports whether s holds a Chinese character.
func han(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// TestErrorsInBothLanguages: every kind of configuration error is worded in
// English and in Chinese, both naming the variable; Error is the English
// one, and a secret is repeated in neither.
func TestErrorsInBothLanguages(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, variable, value string
		zh                    string // a part of the Chinese line
	}{
		{"lang", "LANG", "fr", `"fr" 不是本服务器支持的语言；可接受：zh 或 en`},
		{"timeout", "TIMEOUT_MS", "-1", `"-1" 不是 1 到 86400000 之间的整数；可接受：1 到 86400000（一天）之间的整数毫秒数，例如 30000`},
		{"request", "MAX_REQUEST_BYTES", "1", "之间的整数字节数"},
		{"body", "MAX_BODY_BYTES", "x", "SnowLuma 的上限"},
		{"validate", "VALIDATE_PARAMS", "maybe", `"maybe" 不是布尔值`},
		{"control", "TOKEN", "s3cret\x01", "令牌含有控制字符（U+0001）"},
		{"invisible", "TOKEN", "\u200bs3cret", "令牌开头有一个看不见的字符（U+200B）"},
		{"invisible inside", "EVENTS_TOKEN", "s3\u202ecret", "令牌中间有一个看不见的字符（U+202E）"},
		{"bearer", "TOKEN", "Bearer s3cret", "'Bearer ' 前缀"},
		{"scheme", "ENDPOINT", "ftp://h/", "URL 的协议不是 http 或 https"},
		{"credentials", "ENDPOINT", "http://u:s3cret@h/", "URL 里带了用户名或密码"},
		{"query", "EVENTS_URL", "ws://h/?access_token=s3cret", "URL 带有查询参数（?）；可接受：带主机的绝对 ws:// 或 wss:// URL"},
		{"port", "ENDPOINT", "http://h:0/", "端口"},
		{"no host", "ENDPOINT", "http:///x", "URL 没有主机"},
		{"fragment", "ENDPOINT", "http://h/#s3cret", "片段"},
		{"task dir", "TASK_DIR", "tasks", "路径不是绝对路径"},
		{"mode", "MODE", "admin", `"admin" 不是模式；可接受：docs、read 或 write`},
		{"max file", "MAX_FILE_BYTES", "-5", "1 到 1099511627776（1 TiB）之间的整数字节数"},
		{"streams", "MAX_STREAMS", "65", "1 到 64 之间的整数"},
		{"idle", "STREAM_IDLE_TIMEOUT_MS", "-1", "例如 60000"},
		{"download dir", "DOWNLOAD_DIR", "d", `"d" 不是绝对路径`},
		{"upload root", "UPLOAD_ROOT", file, "不是目录；可接受：MCP 主机上已有目录的绝对路径"},
		{"upload missing", "UPLOAD_ROOT", filepath.Join(dir, "none"), "无法使用：no such file"},
		{"sensitive", "SENSITIVE", "maybe", "不是敏感操作策略；可接受：deny、redact 或 allow"},
		{"confirm", "CONFIRM", "always", "不是确认策略"},
		{"untrusted sends", "UNTRUSTED_SENDS", "ask", "不是不可信内容外发策略；可接受：confirm、refuse 或 off"},
		{"interval", "SEND_MIN_INTERVAL_MS", "-1", "0（关闭）"},
		{"per minute", "SEND_PER_MINUTE", "lots", `"lots" 不是 0 到 100000 之间的整数`},
		{"groups", "ALLOWED_GROUPS", "1,abc", `列表有误：item 2 ("abc")`},
		{"audit", "AUDIT_FILE", "audit.jsonl", "路径不是绝对路径；可接受：本进程可以创建并追加写入的文件的绝对路径"},
		{"audit under a file", "AUDIT_FILE", filepath.Join(file, "none", "audit.jsonl"), "无法打开：audit file: its directory cannot be created"},
	} {
		name := Prefix + "_" + tc.variable
		_, err := Load(base(t, name+"="+tc.value))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want an *Error", tc.name, err)
			continue
		}
		en, zh := ce.In(lang.En), ce.In(lang.Zh)
		if ce.Var != tc.variable || en != err.Error() || !strings.HasPrefix(en, name+": ") || !strings.HasPrefix(zh, name+"：") {
			t.Errorf("%s: var %s, English %q (Error %q), Chinese %q", tc.name, ce.Var, en, err.Error(), zh)
		}
		if !strings.Contains(en, "; accepted: ") || !strings.Contains(zh, tc.zh) || !han(lang.Zh.Text(ce.Problem)) || !han(lang.Zh.Text(ce.Accepted)) {
			t.Errorf("%s: Chinese %q, want it to hold %q, the problem and what is accepted in Chinese", tc.name, zh, tc.zh)
		}
		if strings.Contains(en+zh, "s3cret") {
			t.Errorf("%s: a secret is repeated: %q / %q", tc.name, en, zh)
		}
	}
}

// TestNotesInBothLanguages: the start-up notes and the unknown-variable
// warning follow the language.
func TestNotesInBothLanguages(t *testing.T) {
	env := []string{"SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR=/tasks", "SNOWLUMA_MCP_EVENTS_TOKEN=t-123456", "SNOWLUMA_MCP_TOKN=s3cret", "HOME=" + t.TempDir()}
	for _, tc := range []struct {
		lang []string
		want []string
	}{
		{[]string{"SNOWLUMA_MCP_LANG=en", "LANG=zh_CN.UTF-8"}, []string{
			"SNOWLUMA_MCP_MODE=write ignored: no SNOWLUMA_MCP_ENDPOINT is set, so the mode is docs",
			"SNOWLUMA_MCP_EVENTS_TOKEN ignored: no SNOWLUMA_MCP_EVENTS_URL is set",
			"SNOWLUMA_MCP_TASK_DIR ignored: background tasks need write mode",
			"warning: SNOWLUMA_MCP_TOKN is not a variable this server reads and is ignored; did you mean SNOWLUMA_MCP_TOKEN? (see --help)"}},
		{[]string{"LC_ALL=zh_CN.UTF-8"}, []string{
			"已忽略 SNOWLUMA_MCP_MODE=write：未设置 SNOWLUMA_MCP_ENDPOINT，所以模式是 docs",
			"已忽略 SNOWLUMA_MCP_EVENTS_TOKEN：未设置 SNOWLUMA_MCP_EVENTS_URL",
			"已忽略 SNOWLUMA_MCP_TASK_DIR：后台任务需要 write 模式",
			"警告：SNOWLUMA_MCP_TOKN 不是此服务器读取的变量，已忽略；是不是想写 SNOWLUMA_MCP_TOKEN？（见 --help）"}},
	} {
		c, err := Load(append(slices.Clone(env), tc.lang...))
		if err != nil || !slices.Equal(c.Notes, tc.want) {
			t.Errorf("%q: %v, notes %q, want %q", tc.lang, err, c.Notes, tc.want)
		}
	}
}

// TestPersonLang: the language of a start-up error is known before the
// rest of the configuration; a bad SNOWLUMA_MCP_LANG leaves the locale's.
func TestPersonLang(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want lang.Lang
	}{
		{nil, lang.En},
		{[]string{"LANG=zh_CN.UTF-8"}, lang.Zh},
		{[]string{"SNOWLUMA_MCP_LANG=en", "LANG=zh_CN.UTF-8"}, lang.En},
		{[]string{"SNOWLUMA_MCP_LANG=ZH", "LC_ALL=en_US.UTF-8"}, lang.Zh},
		{[]string{"SNOWLUMA_MCP_LANG=fr", "LANG=zh_CN.UTF-8"}, lang.Zh},
		{[]string{"SNOWLUMA_MCP_LANG=fr"}, lang.En},
	} {
		if got := PersonLang(tc.env); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.env, got, tc.want)
		}
	}
}

// TestDryRunAndSeed: SNOWLUMA_MCP_DRY_RUN is a boolean, off by default;
// SNOWLUMA_MCP_SANDBOX_SEED a whole number, 1 by default; a bad value of
// either names its variable. Load never claims a sandbox.
func TestDryRunAndSeed(t *testing.T) {
	c, err := Load(base(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.DryRun || c.SandboxSeed != 1 || c.Sandbox || c.SandboxTrickle != 15*time.Second {
		t.Errorf("defaults: dry run %v, seed %d, sandbox %v, trickle %v", c.DryRun, c.SandboxSeed, c.Sandbox, c.SandboxTrickle)
	}
	c, err = Load(base(t, "SNOWLUMA_MCP_DRY_RUN= YES ", "SNOWLUMA_MCP_SANDBOX_SEED=18446744073709551615", "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=0"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.DryRun || c.SandboxSeed != 18446744073709551615 || c.SandboxTrickle != 0 {
		t.Errorf("set: dry run %v, seed %d, trickle %v", c.DryRun, c.SandboxSeed, c.SandboxTrickle)
	}
	var e *Error
	for v, bad := range map[string]string{"DRY_RUN": "maybe", "SANDBOX_SEED": "-1", "SANDBOX_TRICKLE_MS": "1s"} {
		_, err := Load(base(t, "SNOWLUMA_MCP_"+v+"="+bad))
		if !errors.As(err, &e) || e.Var != v || !strings.Contains(err.Error(), "accepted: ") {
			t.Errorf("%s=%s: %v", v, bad, err)
		}
	}
}

// TestNamesFoldOnWindows: Windows reads variable names in any case, so
// `set snowluma_mcp_mode=write` sets the mode there, and a lower-case
// typo is still caught; on Unix names are exact and the lower-case
// spelling is not ours.
func TestNamesFoldOnWindows(t *testing.T) {
	env := []string{"snowluma_mcp_endpoint=http://127.0.0.1:9/", "Snowluma_Mcp_Mode=write", "snowluma_mcp_mdoe=x",
		"LocalAppData=" + `C:\Users\op\AppData\Local`, "HOME=/home/op", "USERPROFILE=" + `C:\Users\op`}
	c, err := load("windows", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModeWrite || c.Endpoint == nil || c.Endpoint.Port() != "9" {
		t.Errorf("windows: mode %s, endpoint %v; want write mode at port 9", c.Mode, c.Endpoint)
	}
	if len(c.Misspelt) != 1 || c.Misspelt[0].Name != "snowluma_mcp_mdoe" || c.Misspelt[0].Closest != "SNOWLUMA_MCP_MODE" {
		t.Errorf("windows: misspelt %+v, want only snowluma_mcp_mdoe, closest SNOWLUMA_MCP_MODE", c.Misspelt)
	}
	if get := LookupOn("windows", []string{"LOCALAPPDATA=a", "localappdata=b"}); get("LocalAppData") != "b" {
		t.Errorf("windows: the later of two spellings wins, got %q", get("LocalAppData"))
	}

	c, err = load("linux", env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModeDocs || c.Endpoint != nil || len(c.Misspelt) != 0 {
		t.Errorf("linux: mode %s, endpoint %v, misspelt %+v; want docs mode, lower-case names not ours", c.Mode, c.Endpoint, c.Misspelt)
	}
	if get := LookupOn("linux", []string{"snowluma_mcp_mode=write"}); get("SNOWLUMA_MCP_MODE") != "" {
		t.Error("linux: a lower-case name was read as ours")
	}
}

// TestDefaultDownloadDir: on Windows downloads go to a folder of the
// user's Downloads, where Explorer shows them, not the hidden AppData;
// without USERPROFILE, to the cache folder; elsewhere to the cache folder.
func TestDefaultDownloadDir(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  []string
		want string
	}{
		{"windows", []string{"USERPROFILE=" + `C:\Users\小王`, "LOCALAPPDATA=" + `C:\Users\小王\AppData\Local`}, `C:\Users\小王\Downloads\snowluma-mcp`},
		{"windows", []string{"userprofile=" + `D:\home`}, `D:\home\Downloads\snowluma-mcp`},
		{"windows", []string{"LOCALAPPDATA=" + `C:\Users\op\AppData\Local`}, `C:\Users\op\AppData\Local\snowluma-mcp\downloads`},
		{"windows", []string{"USERPROFILE=relative", "LOCALAPPDATA=" + `C:\L`}, `C:\L\snowluma-mcp\downloads`},
		{"linux", []string{"HOME=/home/op", "USERPROFILE=/x"}, "/home/op/.cache/snowluma-mcp/downloads"},
	} {
		c, err := load(tc.goos, append(tc.env, "SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/"))
		if err != nil || c.Streams.DownloadDir != tc.want {
			t.Errorf("%s %q: %q %v, want %q", tc.goos, tc.env, c.Streams.DownloadDir, err, tc.want)
		}
	}
}

// TestPathExamplesFollowTheSystem: a relative or %LOCALAPPDATA% path is
// refused with an example of the operator's system, and a shell's variable
// is named as not expanded.
func TestPathExamplesFollowTheSystem(t *testing.T) {
	for _, tc := range []struct {
		goos, env, problem, example string
	}{
		{"windows", `SNOWLUMA_MCP_ARCHIVE=%LOCALAPPDATA%\snowluma-mcp\archive.db`, "%LOCALAPPDATA% 在这里不会被展开", `C:\Users\you\AppData\Local\snowluma-mcp\archive.db`},
		{"windows", `SNOWLUMA_MCP_TASK_DIR=tasks`, "路径不是绝对路径", `C:\Users\you\AppData\Local\snowluma-mcp\tasks`},
		{"windows", `snowluma_mcp_audit_file=audit.jsonl`, "路径不是绝对路径", `C:\Users\you\AppData\Local\snowluma-mcp\audit.jsonl`},
		{"windows", `SNOWLUMA_MCP_DOWNLOAD_DIR=$env:USERPROFILE\Downloads`, "$env:USERPROFILE 在这里不会被展开", `C:\Users\you\Downloads\snowluma-mcp`},
		{"linux", `SNOWLUMA_MCP_ARCHIVE=~/archive.db`, "~ 在这里不会被展开", "/home/me/.local/state/snowluma-mcp/archive.db"},
		{"linux", `SNOWLUMA_MCP_TASK_DIR=tasks`, "路径不是绝对路径", "/home/me/.local/state/snowluma-mcp/tasks"},
	} {
		_, err := load(tc.goos, []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_MODE=write", "HOME=/home/op", "USERPROFILE=" + `C:\Users\op`, tc.env})
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s %s: %v", tc.goos, tc.env, err)
		}
		if msg := ce.In(lang.Zh); !strings.Contains(msg, tc.problem) || !strings.Contains(msg, tc.example) {
			t.Errorf("%s %s: %q, want %q and %q", tc.goos, tc.env, msg, tc.problem, tc.example)
		}
	}
}
