package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestDoctorVersionAdvice: for a SnowLuma older than the catalog doctor
// says to upgrade SnowLuma (or expect missing actions), in the person's
// language; for a newer one, to upgrade snowluma-mcp. One warning reads
// "1 warning".
func TestDoctorVersionAdvice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version string
		env     []string
		fix     string
		summary string
	}{
		{"1.9.0-node", []string{"SNOWLUMA_MCP_LANG=en"}, "upgrade SnowLuma to 1.11.1; until then, expect actions and params the catalog lists that this SnowLuma lacks to fail", "0 failed, 1 warning"},
		{"v1.10", []string{"LANG=zh_CN.UTF-8"}, "解决办法：把 SnowLuma 升级到 1.11.1；在此之前，动作目录里有、而这个 SnowLuma 没有的动作和参数会失败", "0 项失败，1 项警告"},
		{"1.12.0", []string{"SNOWLUMA_MCP_LANG=en"}, "upgrade snowluma-mcp to a release for this SnowLuma", "0 failed, 1 warning"},
	} {
		// Each case has a fake of its own: they run at once.
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
			fake.Handle("get_version_info", func(json.RawMessage) simulator.Reply {
				return simulator.OK(map[string]any{"app_name": "SnowLuma", "app_version": tc.version, "protocol_version": "v11"})
			})
			code, text, f := doctor(t, append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken}, tc.env...)...)
			if code != 0 || f["version"].Verdict != "warn" || !strings.Contains(text, tc.fix) || !regexp.MustCompile(`(?m)^`+tc.summary+`$`).MatchString(text) {
				t.Errorf("%s: exit %d, %+v\n%s", tc.version, code, f["version"], text)
			}
			if strings.Contains(text, "VALIDATE_PARAMS") != strings.HasPrefix(tc.version, "1.12") {
				t.Errorf("%s: only a newer SnowLuma is advised to let newer params through:\n%s", tc.version, text)
			}
		})
	}
}

// TestChineseFragments: the task directory line of Chinese doctor and the
// unknown-argument errors are Chinese.
func TestChineseFragments(t *testing.T) {
	t.Parallel()
	// The task directory's two doctor runs follow each other; the
	// unknown arguments are independent of them and of each other.
	t.Run("task directory", func(t *testing.T) {
		t.Parallel()
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		dir := filepath.Join(t.TempDir(), "tasks")
		env := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR=" + dir, "LANG=zh_CN.UTF-8"}
		_, text, f := doctor(t, env...)
		if d := f["task directory"].Detail; d != dir+" 还不存在；启动时会创建（0700）" {
			t.Errorf("task directory before its first start: %q\n%s", d, text)
		}
		// Once it exists (the server makes it 0700), doctor finds it private.
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		_, text, f = doctor(t, env...)
		if d := f["task directory"].Detail; d != dir+"：私有（同组用户和其他用户都无权访问，权限 0700）；属于当前配置，目前没有别的服务器在用" {
			t.Errorf("task directory: %q\n%s", d, text)
		}
	})
	for _, args := range [][]string{{"--verbose"}, {"doctor", "--all"}, {"sandbox", "now"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runBinary(t, args, "LANG=zh_CN.UTF-8")
			if code != 2 || !strings.Contains(stderr, "：未知参数 \""+args[len(args)-1]+"\"；可接受：") || !strings.Contains(stderr, "配置通过环境变量设置") {
				t.Errorf("%q: exit %d, %q", args, code, stderr)
			}
		})
	}
}

// TestJSONBlocksParse: every ```json block of the READMEs and docs/ is
// JSON (one value; ```jsonc blocks, which hold comments and elisions, are
// not).
func TestJSONBlocksParse(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "README.zh-CN.md"))
	blocks := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range codeBlocks(p, string(b)) {
			if c.lang != "json" {
				continue
			}
			blocks++
			dec := json.NewDecoder(strings.NewReader(c.text))
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Errorf("%s: a json block does not parse: %v\n%s", filepath.Base(p), err, c.text)
				continue
			}
			if dec.More() {
				t.Errorf("%s: a json block holds more than one value:\n%s", filepath.Base(p), c.text)
			}
		}
	}
	if blocks < 10 {
		t.Errorf("only %d json blocks found", blocks)
	}
}

// TestChineseSnippetsSetLanguage: every host snippet of the Chinese README
// sets SNOWLUMA_MCP_LANG, the sandbox's included: a host started from a
// desktop passes no locale.
func TestChineseSnippetsSetLanguage(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.zh-CN.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range codeBlocks("README.zh-CN.md", string(b)) {
		host := (c.lang == "json" && strings.Contains(c.text, `"command"`)) ||
			(c.lang == "sh" && strings.Contains(c.text, "claude mcp add")) ||
			(c.lang == "text" && strings.HasPrefix(c.text, "SNOWLUMA_MCP_"))
		if !host {
			continue
		}
		n++
		if !strings.Contains(c.text, "SNOWLUMA_MCP_LANG") {
			t.Errorf("a host snippet does not set SNOWLUMA_MCP_LANG:\n%s", c.text)
		}
	}
	if n < 7 {
		t.Errorf("only %d host snippets found", n)
	}
}
