package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"
	"unicode"

	"github.com/kelseyhightower/envconfig"
	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// TestKnownVariablesFollowEnv checks that the unknown-variable warning knows
// exactly the variables envconfig reads from env (the same list --help
// prints), so a field added to env is never warned about.
func TestKnownVariablesFollowEnv(t *testing.T) {
	var b bytes.Buffer
	tmpl := template.Must(template.New("keys").Parse("{{range .}}{{.Key}}\n{{end}}"))
	if err := envconfig.Usaget(envPrefix, &env{}, &b, tmpl); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`(?m)^\S+$`).FindAllString(b.String(), -1)
	known := knownVariables()
	if len(read) == 0 || len(read) != len(known) {
		t.Fatalf("envconfig reads %q, the warning knows %q", read, known)
	}
	for _, name := range read {
		if w := unknownVariables(lang.En, []string{name + "=x"}); len(w) != 0 {
			t.Errorf("%s is read by envconfig but warned about: %q", name, w)
		}
	}
	if w := unknownVariables(lang.En, []string{"SNOWLUMA_MCP_NOPE=x", "PATH=/bin", "SNOWLUMA_MCPX=1"}); len(w) != 1 {
		t.Errorf("warnings %q, want one for SNOWLUMA_MCP_NOPE", w)
	}
}

// TestEventsToken: SNOWLUMA_MCP_EVENTS_TOKEN, trimmed, is the events
// token when set; else SNOWLUMA_MCP_TOKEN is, and doctor is told which.
func TestEventsToken(t *testing.T) {
	base := env{Lang: "en", Timeout: "30000", MaxRequest: "4194304", MaxBody: "2097152", Validate: "true", Sensitive: "deny", Confirm: "none", SendInterval: "0", SendPerMinute: "0",
		MaxFileBytes: "1", DownloadQuota: "1", MaxStreams: "1", StreamConnect: "1", StreamIdle: "1", DownloadDir: t.TempDir(),
		Endpoint: "http://127.0.0.1:9/", Events: "ws://127.0.0.1:9/"}
	for _, tc := range []struct {
		token, events, want, from string
	}{
		{"http-tok", " ws-tok\r\n", "ws-tok", "set"},
		{"http-tok", "", "http-tok", "inherited"},
		{"http-tok", "  ", "http-tok", "inherited"},
		{"", "ws-tok", "ws-tok", "set"},
		{"", "", "", "unset"},
	} {
		e := base
		e.Token, e.EventsTok = tc.token, tc.events
		c, err := parseConfig(e)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.EventsToken != tc.want || c.EventsTokenFrom != tc.from || c.Token != tc.token {
			t.Errorf("TOKEN %q EVENTS_TOKEN %q: events token %q (%s), token %q", tc.token, tc.events, c.EventsToken, c.EventsTokenFrom, c.Token)
		}
	}
	e := base
	e.Events, e.EventsTok = "", "ws-tok"
	if c, err := parseConfig(e); err != nil || len(c.Notes) != 1 || !bytes.Contains([]byte(c.Notes[0]), []byte("SNOWLUMA_MCP_EVENTS_TOKEN ignored")) {
		t.Errorf("events token without an events URL: %v %q", err, c.Notes)
	}
}

// han reports whether s holds a Chinese character.
func han(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// TestConfigErrorsInBothLanguages: every kind of configuration error is
// worded in English and in Chinese, both naming the variable; Error is the
// English one, and a secret is repeated in neither.
func TestConfigErrorsInBothLanguages(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := env{Lang: "en", Timeout: "30000", MaxRequest: "4194304", MaxBody: "2097152", Validate: "true", Sensitive: "deny", Confirm: "none", SendInterval: "0", SendPerMinute: "0",
		MaxFileBytes: "1", DownloadQuota: "1", MaxStreams: "1", StreamConnect: "1", StreamIdle: "1", DownloadDir: dir, Endpoint: "http://127.0.0.1:9/"}
	for _, tc := range []struct {
		name, variable string
		set            func(*env)
		zh             string // a part of the Chinese line
	}{
		{"lang", "LANG", func(e *env) { e.Lang = "fr" }, `"fr" 不是此服务器会用的语言；可接受：zh 或 en`},
		{"timeout", "TIMEOUT_MS", func(e *env) { e.Timeout = "0" }, `"0" 不是不大于 86400000 的正整数；可接受：1 到 86400000（一天）之间的整数毫秒数，例如 30000`},
		{"request", "MAX_REQUEST_BYTES", func(e *env) { e.MaxRequest = "1" }, "之间的整数字节数"},
		{"body", "MAX_BODY_BYTES", func(e *env) { e.MaxBody = "x" }, "SnowLuma 的上限"},
		{"validate", "VALIDATE_PARAMS", func(e *env) { e.Validate = "maybe" }, `"maybe" 不是布尔值`},
		{"control", "TOKEN", func(e *env) { e.Token = "s3cret\x01" }, "令牌含有控制字符（U+0001）"},
		{"invisible", "TOKEN", func(e *env) { e.Token = "\u200bs3cret" }, "令牌开头有一个看不见的字符（U+200B）"},
		{"invisible inside", "EVENTS_TOKEN", func(e *env) { e.EventsTok = "s3\u202ecret" }, "令牌中间有一个看不见的字符（U+202E）"},
		{"bearer", "TOKEN", func(e *env) { e.Token = "Bearer s3cret" }, "'Bearer ' 前缀"},
		{"scheme", "ENDPOINT", func(e *env) { e.Endpoint = "ftp://h/" }, "URL 的协议不是 http 或 https"},
		{"credentials", "ENDPOINT", func(e *env) { e.Endpoint = "http://u:s3cret@h/" }, "URL 里嵌有凭据"},
		{"query", "EVENTS_URL", func(e *env) { e.Events = "ws://h/?access_token=s3cret" }, "URL 带有查询字符串；可接受：带主机的绝对 ws:// 或 wss:// URL"},
		{"port", "ENDPOINT", func(e *env) { e.Endpoint = "http://h:0/" }, "端口"},
		{"no host", "ENDPOINT", func(e *env) { e.Endpoint = "http:///x" }, "URL 没有主机"},
		{"fragment", "ENDPOINT", func(e *env) { e.Endpoint = "http://h/#s3cret" }, "片段"},
		{"task dir", "TASK_DIR", func(e *env) { e.TaskDir = "tasks" }, "路径不是绝对路径"},
		{"mode", "MODE", func(e *env) { e.Mode = "admin" }, `"admin" 不是模式；可接受：docs、read 或 write`},
		{"max file", "MAX_FILE_BYTES", func(e *env) { e.MaxFileBytes = "0" }, "1 到 1099511627776（1 TiB）之间的整数字节数"},
		{"streams", "MAX_STREAMS", func(e *env) { e.MaxStreams = "65" }, "1 到 64 之间的整数"},
		{"idle", "STREAM_IDLE_TIMEOUT_MS", func(e *env) { e.StreamIdle = "-1" }, "例如 60000"},
		{"download dir", "DOWNLOAD_DIR", func(e *env) { e.DownloadDir = "d" }, `"d" 不是绝对路径`},
		{"upload root", "UPLOAD_ROOT", func(e *env) { e.UploadRoot = file }, "不是目录；可接受：MCP 主机上已有目录的绝对路径"},
		{"upload missing", "UPLOAD_ROOT", func(e *env) { e.UploadRoot = filepath.Join(dir, "none") }, "无法使用：no such file"},
		{"sensitive", "SENSITIVE", func(e *env) { e.Sensitive = "maybe" }, "不是敏感操作策略；可接受：deny、redact 或 allow"},
		{"confirm", "CONFIRM", func(e *env) { e.Confirm = "always" }, "不是确认策略"},
		{"interval", "SEND_MIN_INTERVAL_MS", func(e *env) { e.SendInterval = "-1" }, "0（关闭）"},
		{"per minute", "SEND_PER_MINUTE", func(e *env) { e.SendPerMinute = "lots" }, `"lots" 不是 0 到 100000 之间的整数`},
		{"groups", "ALLOWED_GROUPS", func(e *env) { e.Groups = "1,abc" }, `列表有误：item 2 ("abc")`},
		{"audit", "AUDIT_FILE", func(e *env) { e.AuditFile = "audit.jsonl" }, "路径不是绝对路径；可接受：本进程可以创建并追加写入的文件的绝对路径"},
		{"audit missing", "AUDIT_FILE", func(e *env) { e.AuditFile = filepath.Join(dir, "none", "audit.jsonl") }, "无法打开：audit file: "},
	} {
		e := base
		tc.set(&e)
		_, err := parseConfig(e)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a ConfigError", tc.name, err)
			continue
		}
		en, zh := ce.In(lang.En), ce.In(lang.Zh)
		name := envPrefix + "_" + tc.variable
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

// TestNotesInBothLanguages: the start-up notes follow the language.
func TestNotesInBothLanguages(t *testing.T) {
	base := env{Timeout: "30000", MaxRequest: "4194304", MaxBody: "2097152", Validate: "true", Sensitive: "deny", Confirm: "none", SendInterval: "0", SendPerMinute: "0",
		MaxFileBytes: "1", DownloadQuota: "1", MaxStreams: "1", StreamConnect: "1", StreamIdle: "1", Mode: "write", TaskDir: "/tasks", EventsTok: "t"}
	for l, want := range map[string][]string{
		"en": {"SNOWLUMA_MCP_MODE=write ignored: no SNOWLUMA_MCP_ENDPOINT is set, so the mode is docs", "SNOWLUMA_MCP_EVENTS_TOKEN ignored: no SNOWLUMA_MCP_EVENTS_URL is set", "SNOWLUMA_MCP_TASK_DIR ignored: background tasks need write mode"},
		"zh": {"已忽略 SNOWLUMA_MCP_MODE=write：未设置 SNOWLUMA_MCP_ENDPOINT，所以模式是 docs", "已忽略 SNOWLUMA_MCP_EVENTS_TOKEN：未设置 SNOWLUMA_MCP_EVENTS_URL", "已忽略 SNOWLUMA_MCP_TASK_DIR：后台任务需要 write 模式"},
	} {
		e := base
		e.Lang = l
		c, err := parseConfig(e)
		if err != nil || !slices.Equal(c.Notes, want) {
			t.Errorf("%s: %v, notes %q, want %q", l, err, c.Notes, want)
		}
	}
	if w := unknownVariables(lang.Zh, []string{"SNOWLUMA_MCP_TOKN=s3cret"}); len(w) != 1 || w[0] != "警告：SNOWLUMA_MCP_TOKN 不是此服务器读取的变量，已忽略；是不是想写 SNOWLUMA_MCP_TOKEN？（见 --help）" {
		t.Errorf("unknown variable in Chinese: %q", w)
	}
}
