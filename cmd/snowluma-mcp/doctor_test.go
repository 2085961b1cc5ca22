package main_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// doctorFinding is one line of `doctor --json`.
type doctorFinding struct {
	Check, Verdict, Detail, Fix string
}

// doctor runs `snowluma-mcp doctor` with env, in text and in JSON, and
// returns the exit status, the text report and the findings by check. The
// token must appear in neither.
func doctor(t *testing.T, env ...string) (int, string, map[string]doctorFinding) {
	t.Helper()
	// Both runs share one HOME, where the default download directory is.
	env = append([]string{"HOME=" + t.TempDir()}, env...)
	code, text, stderr := runBinary(t, []string{"doctor"}, env...)
	jcode, js, _ := runBinary(t, []string{"doctor", "--json"}, env...)
	if code != jcode {
		t.Errorf("exit status %d in text, %d in JSON", code, jcode)
	}
	var r struct {
		Checks   []doctorFinding `json:"checks"`
		Failed   int             `json:"failed"`
		Warnings int             `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("--json is not JSON: %v\n%s", err, js)
	}
	byCheck := map[string]doctorFinding{}
	for _, f := range r.Checks {
		byCheck[f.Check] = f
		if f.Verdict != "ok" && f.Fix == "" {
			t.Errorf("%s: %s without a fix", f.Check, f.Verdict)
		}
		// Each run measures the free space anew, and other tests write to
		// the disk meanwhile: the figure is compared masked.
		free := regexp.MustCompile(`\d+ MiB free`)
		if !strings.Contains(text, f.Verdict) || !strings.Contains(free.ReplaceAllString(text, "N MiB free"), free.ReplaceAllString(f.Detail, "N MiB free")) {
			t.Errorf("text report lacks %+v", f)
		}
	}
	for _, out := range []string{text, js, stderr} {
		if strings.Contains(out, e2e.SecretToken) {
			t.Fatal("the token appears in doctor's output")
		}
	}
	return code, text, byCheck
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	base := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken}

	t.Run("all ok", func(t *testing.T) {
		t.Parallel()
		// A fake of its own: it counts the requests doctor sent, and the
		// other cases run beside it.
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		base := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken}
		dir := filepath.Join(t.TempDir(), "tasks")
		code, text, f := doctor(t, append(base, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR="+dir)...)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, text)
		}
		t.Logf("report:\n%s", text)
		for _, c := range []string{"configuration", "endpoint", "token", "account", "version", "task directory"} {
			if f[c].Verdict != "ok" {
				t.Errorf("%s: %+v", c, f[c])
			}
		}
		if !strings.Contains(f["token"].Detail, "SnowBot (10001)") || !strings.Contains(f["configuration"].Detail, "token set") {
			t.Errorf("details: %+v", f)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Error("doctor created the task directory")
		}
		// SnowLuma 1.11.1 answers app_version "1.11.1-node": the same version.
		if v := f["version"]; v.Verdict != "ok" || !strings.Contains(v.Detail, "1.11.1-node matches") {
			t.Errorf("version: %+v", v)
		}
		// Only read-only actions reached SnowLuma, each at its own path.
		for _, r := range fake.Requests() {
			if r.Action != "get_login_info" && r.Action != "get_status" && r.Action != "get_version_info" {
				t.Errorf("doctor sent %s", r.Action)
			}
			if r.Path != "/"+r.Action {
				t.Errorf("doctor posted %s to %s", r.Action, r.Path)
			}
		}
	})
	// An endpoint whose path SnowLuma does not serve makes every action
	// unknown (retcode 1404): the verdict names the path, not the login.
	t.Run("endpoint path not served", func(t *testing.T) {
		t.Parallel()
		onebot := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithHTTPPath("/onebot"))
		for name, endpoint := range map[string]string{
			"a path below SnowLuma's":   fake.URL + "onebot/",
			"a path outside SnowLuma's": onebot.URL,
		} {
			code, text, f := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+endpoint, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
			e := f["endpoint"]
			if code != 1 || e.Verdict != "fail" || !strings.Contains(e.Detail, "retcode 1404") || !strings.Contains(e.Fix, "default /") ||
				strings.Contains(text, "logged in") {
				t.Errorf("%s: exit %d, %+v\n%s", name, code, e, text)
			}
		}
		if code, text, _ := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+onebot.URL+"onebot", "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken); code != 0 {
			t.Errorf("SnowLuma's own path: exit %d\n%s", code, text)
		}
	})
	// A misspelt variable: the fix names the rename that makes it count,
	// never the value (a misspelt token holds a secret).
	t.Run("misspelt variable", func(t *testing.T) {
		t.Parallel()
		_, js, _ := runBinary(t, []string{"doctor", "--json"}, append(base, "SNOWLUMA_MCP_TOKN=v-5ecret-value")...)
		var r struct{ Checks []doctorFinding }
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatalf("--json: %v\n%s", err, js)
		}
		var found bool
		for _, f := range r.Checks {
			if f.Check == "configuration" && strings.Contains(f.Detail, "SNOWLUMA_MCP_TOKN") {
				found = true
				if f.Verdict != "warn" || f.Fix != "rename SNOWLUMA_MCP_TOKN to SNOWLUMA_MCP_TOKEN, or remove it if it was not meant for this server" {
					t.Errorf("%+v", f)
				}
			}
		}
		if !found || strings.Contains(js, "5ecret") {
			t.Errorf("found %v in %s", found, js)
		}
	})
	t.Run("wrong token", func(t *testing.T) {
		t.Parallel()
		code, text, f := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN=wrong-one")
		t.Logf("report:\n%s", text)
		if code != 1 || f["token"].Verdict != "fail" || !strings.Contains(f["token"].Fix, "SNOWLUMA_MCP_TOKEN") || f["endpoint"].Verdict != "ok" {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("closed port", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		code, _, f := doctor(t, "SNOWLUMA_MCP_ENDPOINT=http://"+addr+"/", "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		if code != 1 || f["endpoint"].Verdict != "fail" || !strings.Contains(f["endpoint"].Fix, "start SnowLuma") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("HTML endpoint", func(t *testing.T) {
		t.Parallel()
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>router login</body></html>"))
		}))
		defer web.Close()
		code, _, f := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+web.URL+"/", "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		if code != 1 || f["endpoint"].Verdict != "fail" || !strings.Contains(f["endpoint"].Detail, "not as OneBot") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	// A redirect is never followed: the token goes nowhere else, and the
	// verdict names where the redirect pointed.
	t.Run("redirect", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int64
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		defer other.Close()
		redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		defer redirecting.Close()
		code, _, f := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+redirecting.URL+"/", "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		if e := f["endpoint"]; code != 1 || e.Verdict != "fail" || !strings.Contains(e.Detail, "redirect (HTTP 307) to "+other.URL+"/get_login_info") {
			t.Errorf("exit %d, %+v", code, e)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the redirect was followed %d times", n)
		}
	})
	t.Run("bad configuration", func(t *testing.T) {
		t.Parallel()
		code, _, f := doctor(t, "SNOWLUMA_MCP_TIMEOUT_MS=soon", "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		if code != 1 || f["configuration"].Verdict != "fail" || !strings.Contains(f["configuration"].Fix, "SNOWLUMA_MCP_TIMEOUT_MS") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("unusable task directory", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "a-file")
		os.WriteFile(file, nil, 0o600)
		code, _, f := doctor(t, append(base, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR="+filepath.Join(file, "tasks"))...)
		if code != 1 || f["task directory"].Verdict != "fail" {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("directories", func(t *testing.T) {
		t.Parallel()
		downloads := filepath.Join(t.TempDir(), "downloads")
		os.Mkdir(downloads, 0o700)
		root := t.TempDir()
		code, _, f := doctor(t, append(base, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_DOWNLOAD_DIR="+downloads, "SNOWLUMA_MCP_UPLOAD_ROOT="+root)...)
		if code != 0 || f["download directory"].Verdict == "fail" || f["upload root"].Verdict != "ok" {
			t.Errorf("good directories: exit %d, %+v %+v", code, f["download directory"], f["upload root"])
		}
		os.Chmod(downloads, 0o755)
		_, _, f = doctor(t, append(base, "SNOWLUMA_MCP_DOWNLOAD_DIR="+downloads)...)
		if f["download directory"].Verdict != "warn" || !strings.Contains(f["download directory"].Fix, "chmod 700") {
			t.Errorf("loose download directory: %+v", f["download directory"])
		}
		os.Chmod(downloads, 0o777)
		code, _, f = doctor(t, append(base, "SNOWLUMA_MCP_DOWNLOAD_DIR="+downloads)...)
		if code != 1 || f["download directory"].Verdict != "fail" || !strings.Contains(f["download directory"].Fix, "chmod go-w") {
			t.Errorf("shared download directory: exit %d, %+v", code, f["download directory"])
		}
		file := filepath.Join(t.TempDir(), "a-file")
		os.WriteFile(file, nil, 0o600)
		code, _, f = doctor(t, append(base, "SNOWLUMA_MCP_DOWNLOAD_DIR="+filepath.Join(file, "sub", "downloads"))...)
		if code != 1 || f["download directory"].Verdict != "fail" {
			t.Errorf("unusable download directory: exit %d, %+v", code, f["download directory"])
		}
	})
	t.Run("audit file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		code, _, f := doctor(t, append(base, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_AUDIT_FILE="+path)...)
		if code != 0 || f["audit file"].Verdict != "ok" {
			t.Errorf("writable audit file: exit %d, %+v", code, f)
		}
		file := filepath.Join(t.TempDir(), "a-file")
		os.WriteFile(file, nil, 0o600)
		code, _, f = doctor(t, append(base, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_AUDIT_FILE="+filepath.Join(file, "audit.jsonl"))...)
		if code != 1 || f["configuration"].Verdict != "fail" || !strings.Contains(f["configuration"].Fix, "SNOWLUMA_MCP_AUDIT_FILE") {
			t.Errorf("unwritable audit file: exit %d, %+v", code, f)
		}
	})
	t.Run("held task lease", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "tasks")
		env := append(base, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR="+dir)
		p := serve(t, mcptest.Modern, env...)
		p.Raw().Call(1, "tools/list", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`) // serving: the lease is held
		code, _, f := doctor(t, env...)
		if code != 1 || f["task directory"].Verdict != "fail" || !strings.Contains(f["task directory"].Detail, "in use by snowluma-mcp process") {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
	t.Run("events", func(t *testing.T) {
		t.Parallel()
		code, _, f := doctor(t, append(base, "SNOWLUMA_MCP_EVENTS_URL="+fake.EventsURL())...)
		if code != 0 || f["events"].Verdict != "ok" || !strings.Contains(f["events"].Detail, "greeted with meta_event lifecycle connect") ||
			!strings.Contains(f["configuration"].Detail, "events token inherited from SNOWLUMA_MCP_TOKEN") {
			t.Errorf("good events URL: exit %d, %+v %+v", code, f["events"], f["configuration"])
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		code, _, f = doctor(t, append(base, "SNOWLUMA_MCP_EVENTS_URL=ws://"+addr+"/event")...)
		if code != 1 || f["events"].Verdict != "fail" || !strings.Contains(f["events"].Fix, "SNOWLUMA_MCP_EVENTS_URL") {
			t.Errorf("closed events port: exit %d, %+v", code, f["events"])
		}
		code, _, f = doctor(t, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_EVENTS_URL=ws://"+strings.TrimPrefix(fake.URL, "http://")+"nothing-here")
		if code != 1 || f["events"].Verdict != "fail" {
			t.Errorf("not a WebSocket: exit %d, %+v", code, f["events"])
		}
	})
	t.Run("events token", func(t *testing.T) {
		t.Parallel()
		// SnowLuma's generated configuration: the WebSocket server has a
		// token of its own, checked after the upgrade (close 1008).
		const wsToken = "ws-tok-77ab"
		own := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithEventsToken(wsToken))
		env := []string{"SNOWLUMA_MCP_ENDPOINT=" + own.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_EVENTS_URL=" + own.EventsURL()}
		code, text, f := doctor(t, env...)
		if code != 1 || f["events"].Verdict != "fail" || !strings.Contains(f["events"].Detail, "1008") || !strings.Contains(f["events"].Fix, "SNOWLUMA_MCP_EVENTS_TOKEN") || f["token"].Verdict != "ok" {
			t.Errorf("HTTP token on the WebSocket: exit %d, %+v\n%s", code, f["events"], text)
		}
		code, text, f = doctor(t, append(env, "SNOWLUMA_MCP_EVENTS_TOKEN="+wsToken)...)
		if code != 0 || f["events"].Verdict != "ok" || !strings.Contains(f["configuration"].Detail, "events token set") {
			t.Errorf("with SNOWLUMA_MCP_EVENTS_TOKEN: exit %d, %+v %+v", code, f["events"], f["configuration"])
		}
		_, js, _ := runBinary(t, []string{"doctor", "--json"}, append(env, "HOME="+t.TempDir(), "SNOWLUMA_MCP_EVENTS_TOKEN=wrong-"+wsToken)...)
		if strings.Contains(text, wsToken) || strings.Contains(js, wsToken) {
			t.Error("the WebSocket token appears in doctor's output")
		}
		if !strings.Contains(js, "does not match the access token of SnowLuma's WebSocket server") {
			t.Errorf("a wrong SNOWLUMA_MCP_EVENTS_TOKEN: %s", js)
		}
	})
	t.Run("events path and redirect", func(t *testing.T) {
		t.Parallel()
		code, _, f := doctor(t, append(base, "SNOWLUMA_MCP_EVENTS_URL="+fake.EventsURL()+"event")...)
		if code != 1 || f["events"].Verdict != "fail" || !strings.Contains(f["events"].Detail, "HTTP 400") || !strings.Contains(f["events"].Fix, "default is /") {
			t.Errorf("path SnowLuma does not serve: exit %d, %+v", code, f["events"])
		}
		elsewhere := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		redirecting := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithEventsRedirect(elsewhere.EventsURL()))
		code, _, f = doctor(t, append(base, "SNOWLUMA_MCP_EVENTS_URL="+redirecting.EventsURL())...)
		if code != 1 || f["events"].Verdict != "fail" || !strings.Contains(f["events"].Detail, "redirect (HTTP 307) to "+elsewhere.EventsURL()) {
			t.Errorf("redirect: exit %d, %+v", code, f["events"])
		}
		if n := len(elsewhere.Upgrades()); n != 0 {
			t.Errorf("doctor followed the redirect: %d upgrades elsewhere", n)
		}
	})
	t.Run("docs mode", func(t *testing.T) {
		t.Parallel()
		code, _, f := doctor(t)
		if code != 0 || f["endpoint"].Verdict != "warn" {
			t.Errorf("exit %d, %+v", code, f)
		}
	})
}

// TestDoctorInChinese: doctor's report follows SNOWLUMA_MCP_LANG, else the
// locale: check names, details, fixes and the summary in Chinese, the
// verdicts ok/warn/fail as they are for scripts, and --json's keys and
// check names English.
func TestDoctorInChinese(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	base := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken}
	lines := func(t *testing.T, text string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !regexp.MustCompile(`(?m)` + w).MatchString(text) {
				t.Errorf("report lacks a line matching %s:\n%s", w, text)
			}
		}
	}

	// The cases are independent (each doctor run has a HOME of its own):
	// they run at once, each waiting mostly for its spawned processes.
	t.Run("locale", func(t *testing.T) {
		t.Parallel()
		code, text, f := doctor(t, append(base, "LANG=zh_CN.UTF-8", "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_EVENTS_URL="+fake.EventsURL())...)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, text)
		}
		t.Logf("report:\n%s", text)
		lines(t, text,
			`^snowluma-mcp doctor \S+（SnowLuma 动作目录 1\.11\.1）$`,
			`^ok +配置 +模式 write，地址 `+regexp.QuoteMeta(fake.URL)+`，令牌已设置，事件令牌沿用 SNOWLUMA_MCP_TOKEN，超时 30000 毫秒，参数检查 true$`,
			`^ok +地址 +`+regexp.QuoteMeta(fake.URL)+` 有应答，是 OneBot 服务$`,
			`^ok +令牌 +已接受；登录的是 SnowBot（10001）$`,
			`^ok +账号 +在线$`,
			`^ok +版本 +SnowLuma 1\.11\.1-node 与内置动作目录相符$`,
			`^ok +事件 +\S+ 接受了令牌（事件令牌沿用 SNOWLUMA_MCP_TOKEN），并发来了 meta_event lifecycle connect$`,
			`^ok +下载目录 +\S+ 还不存在；启动时会创建（0700）$`,
			`^0 项失败，0 项警告$`)
		for _, c := range []string{"configuration", "endpoint", "token", "account", "version", "events", "download directory"} {
			if f[c].Verdict != "ok" {
				t.Errorf("--json %s: %+v", c, f[c])
			}
		}
	})

	// SNOWLUMA_MCP_LANG wins over the locale.
	t.Run("SNOWLUMA_MCP_LANG over the locale", func(t *testing.T) {
		t.Parallel()
		code, text, f := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN=wrong-one", "SNOWLUMA_MCP_LANG=zh", "LC_ALL=en_US.UTF-8")
		lines(t, text, `^fail +令牌 +SnowLuma 拒绝了令牌（HTTP 401）$`,
			`^ +解决办法：SNOWLUMA_MCP_TOKEN 与 SnowLuma 的访问令牌不符：在 SnowLuma 的 WebUI 面板“节点配置” → “HTTP API” → 编辑 → “授权 Token”中重新复制`, `^1 项失败，0 项警告$`)
		if code != 1 || f["token"].Verdict != "fail" {
			t.Errorf("wrong token: exit %d, %+v", code, f["token"])
		}
	})

	// A configuration error, and a bad SNOWLUMA_MCP_LANG in the locale's
	// language.
	for env, want := range map[string][2]string{
		"SNOWLUMA_MCP_MODE=admin": {`SNOWLUMA_MCP_MODE："admin" 不是模式`, "把 SNOWLUMA_MCP_MODE 设为：docs、read 或 write"},
		"SNOWLUMA_MCP_LANG=fr":    {`SNOWLUMA_MCP_LANG："fr" 不是本服务器支持的语言`, "把 SNOWLUMA_MCP_LANG 设为：zh 或 en"},
	} {
		t.Run(env, func(t *testing.T) {
			t.Parallel()
			code, text, f := doctor(t, env, "LANG=zh_CN.UTF-8")
			c := f["configuration"]
			if code != 1 || c.Verdict != "fail" || c.Detail != want[0] || !strings.HasPrefix(c.Fix, want[1]) {
				t.Errorf("%s: exit %d, %+v\n%s", env, code, c, text)
			}
			lines(t, text, `^fail +配置 +`+regexp.QuoteMeta(want[0])+`$`)
		})
	}

	// And English when SNOWLUMA_MCP_LANG says so, whatever the locale.
	t.Run("SNOWLUMA_MCP_LANG=en", func(t *testing.T) {
		t.Parallel()
		_, text, _ := doctor(t, append(base, "SNOWLUMA_MCP_LANG=en", "LC_ALL=zh_CN.UTF-8")...)
		lines(t, text, `^ok +token +accepted; logged in as SnowBot \(10001\)$`, `^0 failed, \d+ warnings$`)
	})
}

// TestDryRunDoctor: doctor reports the dry run.
func TestDryRunDoctor(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	code, out, _ := runBinary(t, []string{"doctor", "--json"}, "SNOWLUMA_MCP_ENDPOINT="+fake.URL,
		"SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_DRY_RUN=yes", "SNOWLUMA_MCP_DOWNLOAD_DIR="+filepath.Join(t.TempDir(), "dl"))
	if code != 0 {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	var r struct {
		Findings []struct {
			Check, Verdict, Detail string
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Findings {
		found = found || (f.Check == "dry run" && f.Verdict == "ok" && strings.Contains(f.Detail, "not sent"))
	}
	if !found {
		t.Errorf("doctor does not report the dry run:\n%s", out)
	}
}
