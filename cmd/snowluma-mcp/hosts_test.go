package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/config"
)

// hostPages are the pages with host snippets.
var hostPages = []string{"README.md", "README.zh-CN.md", "docs/hosts.md", "docs/sandbox.md"}

// A codeBlock is one fenced block of a page: its language and text.
type codeBlock struct {
	page, lang, text string
}

// codeBlocks returns the fenced blocks of a Markdown page.
func codeBlocks(page, text string) []codeBlock {
	var out []codeBlock
	for _, m := range regexp.MustCompile("(?ms)^ *```([a-z]*)\n(.*?)^ *```").FindAllStringSubmatch(text, -1) {
		out = append(out, codeBlock{page, m[1], m[2]})
	}
	return out
}

// shellWords splits a shell command as sh would for the snippets' needs:
// backslash-newline continues the line, single and double quotes group.
func shellWords(s string) []string {
	s = strings.ReplaceAll(s, "\\\n", " ")
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestHostSnippets parses every host snippet of the READMEs and the host
// pages as its host would: JSON configurations (mcpServers, VS Code's
// servers, a bare env object), claude mcp add and Inspector command lines,
// and Cherry Studio's NAME=value lines; each must parse and name only
// variables the server reads. Each README covers every host, with the
// Claude Desktop file on macOS and Windows and a Windows path.
func TestHostSnippets(t *testing.T) {
	t.Parallel()
	var real []string
	for _, v := range config.Variables() {
		real = append(real, v.Name)
	}
	name := regexp.MustCompile(`SNOWLUMA_MCP_[A-Z0-9_]*[A-Z0-9]`)
	windows := regexp.MustCompile(`^[A-Z]:\\.+\.exe$`)
	for _, page := range hostPages {
		b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		var hosts, windowsCommands int
		checkVar := func(where, v string) {
			if !slices.Contains(real, v) {
				t.Errorf("%s: %s names %s, which the server does not read", page, where, v)
			}
		}
		for _, c := range codeBlocks(page, text) {
			// Any variable a snippet names is one the server reads.
			for _, v := range name.FindAllString(c.text, -1) {
				checkVar(c.lang+" block", v)
			}
			switch {
			case c.lang == "json":
				var doc map[string]any
				if err := json.Unmarshal([]byte(c.text), &doc); err != nil {
					t.Errorf("%s: a json block does not parse: %v\n%s", page, err, c.text)
					continue
				}
				servers, _ := doc["mcpServers"].(map[string]any)
				if s, ok := doc["servers"].(map[string]any); ok {
					servers = s
				}
				for key, raw := range servers {
					hosts++
					var srv struct {
						Type    string            `json:"type"`
						Command string            `json:"command"`
						Args    []string          `json:"args"`
						Env     map[string]string `json:"env"`
					}
					sb, _ := json.Marshal(raw)
					if err := json.Unmarshal(sb, &srv); err != nil || srv.Command == "" || (srv.Type != "" && srv.Type != "stdio") {
						t.Errorf("%s: server %q is not a stdio server with a command: %v %s", page, key, err, sb)
					}
					if windows.MatchString(srv.Command) {
						windowsCommands++
					}
					for v := range srv.Env {
						checkVar("server "+key+"'s env", v)
					}
				}
				if servers == nil && strings.HasPrefix(strings.TrimSpace(c.text), `{
  "SNOWLUMA_MCP_`) {
					hosts++ // an env object for any host
					for v, val := range doc {
						if _, ok := val.(string); !ok {
							t.Errorf("%s: env %s is not a string", page, v)
						}
						checkVar("an env object", v)
					}
				}
			case c.lang == "sh" && (strings.Contains(c.text, "claude mcp add") || strings.Contains(c.text, "inspector")):
				w := shellWords(c.text)
				dash := slices.Index(w, "--")
				hosts++
				if strings.Contains(c.text, "claude mcp add") {
					if len(w) < 4 || w[0] != "claude" || w[1] != "mcp" || w[2] != "add" || dash < 0 || dash == len(w)-1 {
						t.Errorf("%s: not claude mcp add <name> [options] -- <command>: %q", page, w)
						continue
					}
				}
				for i, x := range w {
					if x == "-e" && i+1 < len(w) {
						k, _, ok := strings.Cut(w[i+1], "=")
						if !ok {
							t.Errorf("%s: -e %q is not NAME=value", page, w[i+1])
						}
						checkVar("-e", k)
					}
				}
			case c.lang == "text" && strings.HasPrefix(c.text, "SNOWLUMA_MCP_"):
				hosts++ // Cherry Studio's environment box
				for _, line := range strings.Split(strings.TrimSpace(c.text), "\n") {
					k, _, ok := strings.Cut(line, "=")
					if !ok {
						t.Errorf("%s: %q is not NAME=value", page, line)
					}
					checkVar("a NAME=value line", k)
				}
			}
		}
		if hosts == 0 {
			t.Errorf("%s has no host snippet", page)
		}
		if !strings.HasPrefix(page, "README") {
			continue
		}
		for _, want := range []string{"### Claude Desktop", "### Claude Code", "### VS Code", "### Cursor", "### Cherry Studio",
			"~/Library/Application Support/Claude/claude_desktop_config.json", `%APPDATA%\Claude\claude_desktop_config.json`} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %s", page, want)
			}
		}
		if windowsCommands == 0 {
			t.Errorf("%s has no snippet with a Windows path", page)
		}
	}
}

// TestREADMEFrontDoor: the README stays a front door (under 20 KB), and
// every relative link of the READMEs and docs/ points at a file that exists.
func TestREADMEFrontDoor(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	if n := len(readme(t)); n > 20<<10 {
		t.Errorf("README.md is %d bytes: move detail into docs/", n)
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "README.zh-CN.md"))
	link := regexp.MustCompile(`\]\(([^)\s#]+)(#[^)\s]*)?\)`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), filepath.FromSlash(m[1]))); err != nil {
				t.Errorf("%s links to %s, which does not exist", p, m[1])
			}
		}
	}
}
