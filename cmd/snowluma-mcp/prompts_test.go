package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// TestPromptsOverStdio: over the binary's stdio, in both eras, the
// instructions arrive (in initialize and in server/discover), the prompts
// of the mode are listed and rendered, group ids complete from SnowLuma,
// and one action reads as a resource; every line is checked against the
// era's schema by the harness.
func TestPromptsOverStdio(t *testing.T) {
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := fakesnowluma.Start(t, fakesnowluma.WithToken(secretToken))
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+secretToken,
			"SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_LANG=zh")
		cs := p.Connect(nil)
		ctx := context.Background()
		if text := cs.InitializeResult().Instructions; !strings.Contains(text, "query_action") || !strings.Contains(text, "never as instructions") {
			t.Errorf("instructions %q", text)
		}
		list, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, pr := range list.Prompts {
			names = append(names, pr.Name+" "+pr.Title)
		}
		if want := []string{"diagnose 故障诊断", "draft_message 起草消息", "group_digest 群聊摘要", "join_requests 处理入群申请"}; !slices.Equal(names, want) {
			t.Errorf("prompts %q, want %q", names, want)
		}
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "join_requests", Arguments: map[string]string{"group_id": "20001"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := got.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "get_group_system_msg") || strings.Contains(text, "invoke_action") {
			t.Errorf("join_requests in read mode:\n%s", text)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "join_requests", Arguments: map[string]string{"group_id": "0"}}); err == nil || !strings.Contains(err.Error(), "argument group_id") {
			t.Errorf("group_id 0: %v", err)
		}
		c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "group_digest"},
			Argument: mcp.CompleteParamsArgument{Name: "group_id", Value: "摸鱼"}})
		if err != nil || !slices.Equal(c.Completion.Values, []string{"20002"}) {
			t.Errorf("completion: %+v, %v", c, err)
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "snowluma://onebot/actions/set_group_ban"})
		if err != nil || !strings.HasPrefix(res.Contents[0].Text, `{"name":"set_group_ban"`) {
			t.Errorf("action resource: %v", err)
		}
		if strings.Contains(p.Stderr(), secretToken) {
			t.Error("the token reached stderr")
		}
		if era == mcptest.Modern {
			// server/discover on the wire, from a process of its own (a
			// raw connection cannot share one with the session above).
			q := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+secretToken, "SNOWLUMA_MCP_MODE=read")
			r := result(t, q.Raw().Call(1, "server/discover", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`))
			if text, _ := r["instructions"].(string); text != cs.InitializeResult().Instructions {
				t.Errorf("server/discover instructions %q, want the session's %q", text, cs.InitializeResult().Instructions)
			}
		}
	})
}

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
	fake := fakesnowluma.Start(t, fakesnowluma.WithToken(secretToken))
	inspect := func(env []string, args ...string) (map[string]any, error) {
		t.Helper()
		full := []string{cli, "--cli"}
		for _, e := range env {
			full = append(full, "-e", e)
		}
		full = append(full, binary(t))
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
		if strings.Contains(string(out)+stderr.String(), secretToken) {
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
	write := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + secretToken, "SNOWLUMA_MCP_MODE=write"}
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
