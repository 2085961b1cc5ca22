package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// TestWindowsUnderWine builds the Windows binary as README.zh-CN.md tells
// a Windows operator to (its PowerShell lines, with GOOS=windows
// GOARCH=amd64 standing for the Windows machine) and runs it under Wine,
// with a Chinese locale (code page 936) and the variables of the README's
// Claude Desktop entry for Windows, nothing else of ours: start-up,
// doctor, a stdio session in read mode and one in write mode set by a
// lower-case variable, an archive at a path with Chinese and spaces, and
// a group file's download to the default folder under its own name.
// SnowLuma is the fake on loopback, with a simulated account.
//
// Go 1.26 binaries need bcryptprimitives.dll!ProcessPrng, which Wine 8
// lacks: the test builds scripts/wine/processprng.c with Debian's mingw
// cross compiler into the Wine prefix (made once, in a temporary folder).
// .ci/run installs wine and mingw-w64; elsewhere the test skips when they
// are missing, and under CI a missing one fails.
func TestWindowsUnderWine(t *testing.T) {
	t.Parallel()
	wine, errWine := exec.LookPath("wine")
	gcc, errGCC := exec.LookPath("x86_64-w64-mingw32-gcc")
	server, errServer := exec.LookPath("wineserver")
	if err := errors.Join(errWine, errGCC, errServer); err != nil {
		if reference.UnderCI() {
			t.Fatalf("wine or mingw-w64 is missing (%v); .ci/run installs them (apt-get install wine wine64 mingw-w64)", err)
		}
		t.Skip("wine or mingw-w64 not installed: apt-get install wine wine64 mingw-w64 to include this test")
	}
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.zh-CN.md"))
	if err != nil {
		t.Fatal(err)
	}
	entry := windowsEntry(t, string(readme))

	tmp := t.TempDir()
	exe := filepath.Join(tmp, "snowluma-mcp.exe")
	build := exec.Command("go", "build", "-o", exe, "./cmd/snowluma-mcp")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=windows", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's Windows build: %v\n%s", err, out)
	}

	// Wine's own environment: a prefix and a HOME of this test's (Wine
	// links the Windows user's Downloads to HOME), a Chinese locale, no
	// Mono or Gecko to install, no debug chatter.
	home, wineTmp := filepath.Join(tmp, "home"), filepath.Join(tmp, "t")
	for _, d := range []string{home, wineTmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// TMPDIR keeps wineserver's socket folder in the test's own.
	wineEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + wineTmp, "WINEPREFIX=" + filepath.Join(tmp, "prefix"),
		"WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "LANG=zh_CN.UTF-8", "LC_ALL=zh_CN.UTF-8"}
	t.Cleanup(func() {
		kill := exec.Command(server, "-k")
		kill.Env = wineEnv
		kill.Run()
	})
	boot := exec.Command(wine, "wineboot", "--init")
	boot.Env = wineEnv
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot: %v\n%s", err, out)
	}
	// Wine takes Windows' code page from the locale: 936 (GBK) for
	// zh_CN, as on a Chinese Windows, once that locale is generated.
	acp := exec.Command(wine, "reg", "query", `HKLM\System\CurrentControlSet\Control\Nls\CodePage`, "/v", "ACP")
	acp.Env = wineEnv
	if out, err := acp.Output(); err != nil || !regexp.MustCompile(`ACP\s+REG_SZ\s+936\b`).Match(out) {
		if reference.UnderCI() {
			t.Fatalf("Wine's code page is not 936 (%v: %q); .ci/run generates the zh_CN.UTF-8 locale (localedef -i zh_CN -f UTF-8 zh_CN.UTF-8)", err, out)
		}
		t.Skipf("no zh_CN.UTF-8 locale, so Wine's code page is not 936 (%q): run localedef -i zh_CN -f UTF-8 zh_CN.UTF-8 to include this test", out)
	}
	dll := exec.Command(gcc, "-O2", "-shared", "-o", filepath.Join(tmp, "prefix", "drive_c", "windows", "system32", "bcryptprimitives.dll"),
		filepath.Join(root, "scripts", "wine", "processprng.c"), filepath.Join(root, "scripts", "wine", "bcryptprimitives.def"), "-lbcrypt")
	if out, err := dll.CombinedOutput(); err != nil {
		t.Fatalf("building bcryptprimitives.dll: %v\n%s", err, out)
	}

	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(1))
	// The README's entry with this machine's SnowLuma and token.
	var env []string
	for name, value := range entry {
		switch name {
		case "SNOWLUMA_MCP_ENDPOINT":
			value = fake.URL
		case "SNOWLUMA_MCP_TOKEN":
			value = e2e.SecretToken
		}
		env = append(env, name+"="+value)
	}
	run := func(t *testing.T, args []string, extra ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(wine, append([]string{exe}, args...)...)
		cmd.Env = append(append(append([]string{}, wineEnv...), env...), extra...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}

	t.Run("start-up", func(t *testing.T) {
		code, out, stderr := run(t, []string{"--version"})
		if code != 0 || !strings.HasPrefix(out, "snowluma-mcp ") {
			t.Errorf("--version: exit %d, %q\n%s", code, out, stderr)
		}
		// --help follows the README's SNOWLUMA_MCP_LANG=zh, the
		// variables' defaults and meanings included, as UTF-8 through a
		// pipe under code page 936.
		code, out, _ = run(t, []string{"--help"})
		if code != 0 || !utf8.ValidString(out) || !strings.Contains(out, "环境变量") || !strings.Contains(out, "默认：未设置（docs 模式）") {
			t.Errorf("--help: exit %d, not Chinese UTF-8:\n%.400s", code, out)
		}
	})
	t.Run("doctor", func(t *testing.T) {
		code, out, stderr := run(t, []string{"doctor"})
		if code != 0 || !utf8.ValidString(out) || !strings.Contains(out, "已接受；登录的是") || strings.Contains(out+stderr, e2e.SecretToken) {
			t.Errorf("doctor: exit %d\n%s\n%s", code, out, stderr)
		}
		if strings.Contains(out, "权限 0600") || strings.Contains(out, "0700") {
			t.Errorf("doctor reports POSIX permissions on Windows:\n%s", out)
		}
	})
	t.Run("read mode", func(t *testing.T) {
		p := mcptest.SpawnArgs(t, wine, mcptest.Legacy, []string{exe}, append(append([]string{}, wineEnv...), env...)...)
		cs := p.Connect(nil)
		_, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_login_info"})
		if r.Diagnostics.Outcome != "success" {
			t.Errorf("get_login_info: %+v", r.Diagnostics)
		}
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "set_group_ban", "params": map[string]any{"group_id": 1, "user_id": 2, "duration": 60}})
		if r.Diagnostics.Outcome == "success" {
			t.Errorf("a write action ran in read mode: %+v", r.Diagnostics)
		}
		e2e.NoLeak(t, p)
	})
	t.Run("write mode, lower-case variable, archive, download", func(t *testing.T) {
		dir := filepath.Join(tmp, "归档 数据")
		archive := `Z:` + strings.ReplaceAll(filepath.Join(dir, "消息 归档.db"), "/", `\`)
		extra := []string{"snowluma_mcp_mode=write", "SNOWLUMA_MCP_ARCHIVE=" + archive, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*"}
		var all []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "SNOWLUMA_MCP_MODE=") {
				all = append(all, kv)
			}
		}
		p := mcptest.SpawnArgs(t, wine, mcptest.Modern, []string{exe}, append(append(append([]string{}, wineEnv...), all...), extra...)...)
		// The person at the host confirms what the send gate puts to them
		// (a download of a link once QQ users' file names were read).
		var asked []string
		var mu sync.Mutex
		cs := p.Connect(&mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}})
		// A group file, as an operator downloads one: listed, linked,
		// saved under its own name (with its extension) in the user's
		// Downloads.
		data := func(tool, action string, params map[string]any) json.RawMessage {
			t.Helper()
			_, r := mcptest.CallTool(t, cs, tool, map[string]any{"action": action, "params": params})
			var env struct {
				Data json.RawMessage `json:"data"`
			}
			if r.Diagnostics.Outcome != "success" || json.Unmarshal(r.Result, &env) != nil {
				t.Fatalf("%s: %+v %s", action, r.Diagnostics, r.Result)
			}
			return env.Data
		}
		type file struct {
			ID   string `json:"file_id"`
			Name string `json:"file_name"`
			Size int64  `json:"file_size"`
		}
		var picked file
		var group int64
		for _, g := range mcptest.Decode[[]struct {
			ID int64 `json:"group_id"`
		}](t, data("query_action", "get_group_list", map[string]any{})) {
			files := mcptest.Decode[struct{ Files []file }](t, data("query_action", "get_group_root_files", map[string]any{"group_id": g.ID})).Files
			if i := slices.IndexFunc(files, func(f file) bool { return filepath.Ext(f.Name) != "" }); i >= 0 {
				picked, group = files[i], g.ID
				break
			}
		}
		if picked.ID == "" {
			t.Fatal("the simulated account has no group file with an extension")
		}
		link := mcptest.Decode[struct {
			URL string `json:"url"`
		}](t, data("query_action", "get_group_file_url", map[string]any{"group_id": group, "file_id": picked.ID}))
		_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": link.URL}})
		s := mcptest.Decode[e2e.Saved](t, r.Result)
		if r.Diagnostics.Outcome != "success" || s.Saved == nil {
			t.Fatalf("download: %+v %s\n%s", r.Diagnostics, r.Result, p.Stderr())
		}
		mu.Lock()
		if len(asked) != 1 || !strings.Contains(asked[0], "群") {
			t.Errorf("the confirmations asked: %q, want one, in Chinese", asked)
		}
		mu.Unlock()
		name := transfer.SafeName(picked.Name)
		if !regexp.MustCompile(`^C:\\users\\[^\\]+\\Downloads\\snowluma-mcp\\`).MatchString(s.Saved.Path) || s.Saved.FileName != name {
			t.Errorf("saved at %q, want %s in the user's Downloads\\snowluma-mcp", s.Saved.Path, name)
		}
		// Wine links the Windows user's Downloads to HOME.
		if fi, err := os.Stat(filepath.Join(home, "snowluma-mcp", name)); err != nil || fi.Size() != picked.Size {
			t.Errorf("the download on disk: %v", err)
		}
		_, r = mcptest.CallTool(t, cs, "list_chats", map[string]any{})
		if r.Diagnostics.Outcome != "success" {
			t.Errorf("list_chats: %+v", r.Diagnostics)
		}
		e2e.NoLeak(t, p)
		if fi, err := os.Stat(filepath.Join(dir, "消息 归档.db")); err != nil || fi.Size() == 0 {
			t.Errorf("the archive at a path with Chinese and spaces: %v", err)
		}
		if !strings.Contains(p.Stderr(), ", mode write, ") || strings.Contains(p.Stderr(), "snowluma_mcp_mode") {
			t.Errorf("the lower-case variable was not read:\n%s", p.Stderr())
		}
		// The group names read armed the send gate, whose record a
		// restart starts from: on Windows in %LOCALAPPDATA%\snowluma-mcp.
		if records, _ := filepath.Glob(filepath.Join(tmp, "prefix", "drive_c", "users", "*", "AppData", "Local", "snowluma-mcp", "untrusted-record-*.json")); len(records) != 1 {
			t.Errorf("the send gate's record in %%LOCALAPPDATA%%\\snowluma-mcp: %v", records)
		}
	})
}

// windowsEntry is the env of README.zh-CN.md's Claude Desktop entry for
// Windows (the JSON block whose command is a .exe), after checking that the
// README builds that binary with the PowerShell lines the test stands for.
func windowsEntry(t *testing.T, readme string) map[string]string {
	t.Helper()
	for _, line := range []string{`$env:CGO_ENABLED = "0"`, `go build -o "$env:USERPROFILE\bin\snowluma-mcp.exe" ./cmd/snowluma-mcp`, "GOPROXY=https://goproxy.cn,direct"} {
		if !strings.Contains(readme, line) {
			t.Fatalf("README.zh-CN.md no longer says %q: update this test with it", line)
		}
	}
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(readme, -1) {
		var doc struct {
			MCPServers map[string]struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"mcpServers"`
		}
		if json.Unmarshal([]byte(m[1]), &doc) != nil {
			continue
		}
		s, ok := doc.MCPServers["snowluma"]
		if ok && strings.HasSuffix(s.Command, `\bin\snowluma-mcp.exe`) && len(s.Args) == 0 && s.Env["SNOWLUMA_MCP_ENDPOINT"] != "" {
			return s.Env
		}
	}
	t.Fatal(`README.zh-CN.md has no Claude Desktop entry for Windows ("command": "C:\\Users\\…\\bin\\snowluma-mcp.exe" with an endpoint)`)
	return nil
}
