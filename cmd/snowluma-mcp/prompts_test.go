package main_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestInspectorListsPrompts drives the binary with the MCP Inspector's CLI
// (npm @modelcontextprotocol/inspector, scripts/inspector), as a person
// checking a server would: it lists the prompts, renders one and shows a
// refused argument. .ci/run installs it; elsewhere the test skips when it
// is not installed, and under CI a missing install fails.
func TestInspectorListsPrompts(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "scripts", "inspector"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	_, modErr := os.Stat(cli)
	if err != nil || modErr != nil {
		if reference.UnderCI() {
			t.Fatalf("the MCP Inspector is not installed (node: %v, module: %v); .ci/run runs npm ci in scripts/inspector", err, modErr)
		}
		t.Skip("MCP Inspector not installed: run `npm ci` in scripts/inspector to include this test")
	}
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	inspect := func(env []string, args ...string) (map[string]any, error) {
		t.Helper()
		full := []string{cli, "--cli"}
		for _, e := range env {
			full = append(full, "-e", e)
		}
		full = append(full, plainBinary(t))
		cmd := exec.Command(node, append(full, args...)...)
		cmd.Dir = dir
		// The Inspector keeps its own files under HOME: a fresh one each run.
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, runErr := cmd.Output()
		if runErr != nil {
			// A failure is one JSON line on stderr, after the server's
			// own start-up line.
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			out = []byte(lines[len(lines)-1])
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("inspector %v: %v, output %q, stderr %s", args, runErr, out, stderr.String())
		}
		if strings.Contains(string(out)+stderr.String(), e2e.SecretToken) {
			t.Errorf("the token was shown: %s", stderr.String())
		}
		return m, runErr
	}
	prompts := func(m map[string]any) []string {
		var names []string
		list, _ := m["prompts"].([]any)
		for _, p := range list {
			names = append(names, p.(map[string]any)["name"].(string))
		}
		return names
	}
	m, err := inspect(nil, "--method", "prompts/list")
	if err != nil || !slices.Equal(prompts(m), []string{"diagnose", "draft_message"}) {
		t.Errorf("docs mode: %v %v", prompts(m), err)
	}
	write := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_MODE=write"}
	m, err = inspect(write, "--method", "prompts/list")
	if want := []string{"diagnose", "draft_message", "group_digest", "join_requests", "moderation_sweep"}; err != nil || !slices.Equal(prompts(m), want) {
		t.Errorf("write mode: %v %v, want %v", prompts(m), err, want)
	}
	m, err = inspect(write, "--method", "prompts/get", "--prompt-name", "moderation_sweep", "--prompt-args", "group_id=20001", "rules=不许发广告")
	b, _ := json.Marshal(m)
	if err != nil || !strings.Contains(string(b), "set_group_ban") || !strings.Contains(string(b), "不许发广告") {
		t.Errorf("moderation_sweep: %s %v", b, err)
	}
	m, err = inspect(write, "--method", "prompts/get", "--prompt-name", "moderation_sweep", "--prompt-args", "group_id=abc")
	var exit *exec.ExitError
	b, _ = json.Marshal(m)
	if !errors.As(err, &exit) || !strings.Contains(string(b), "argument group_id") {
		t.Errorf("a refused argument: %s %v", b, err)
	}
	m, err = inspect(nil, "--method", "initialize")
	if text, _ := m["instructions"].(string); err != nil || !strings.Contains(text, "search_actions") {
		t.Errorf("initialize: %v %v", m, err)
	}
	if caps, _ := m["capabilities"].(map[string]any); caps["prompts"] == nil || caps["completions"] == nil {
		t.Errorf("capabilities %v", m["capabilities"])
	}
	// The Inspector only listed and rendered: SnowLuma heard nothing.
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests reached SnowLuma", n)
	}
}
