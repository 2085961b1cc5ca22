package main_test

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestTypeScriptClient drives the binary with the official TypeScript SDK
// client (npm @modelcontextprotocol/sdk 1.32, a 2025-11-25 peer) through
// scripts/interop/client.mjs. .ci/run installs it; elsewhere the test skips
// when it is not installed, and under CI a missing install fails.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("..", "..", "scripts", "interop"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	if err != nil || modErr != nil {
		if reference.UnderCI() {
			t.Fatalf("the TypeScript SDK client is not installed (node: %v, module: %v); .ci/run runs npm ci in scripts/interop", err, modErr)
		}
		t.Skip("TypeScript SDK client not installed: run `npm ci` in scripts/interop to include this test")
	}
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = dir
	// The server it starts inherits HOME: one of its own, as mcptest
	// gives every server (PrivateHome), for its per-user state.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "SNOWLUMA_BIN=" + plainBinary(t),
		"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_MODE=write"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s", err, stderr.String())
	}
	type call struct {
		IsError    bool            `json:"isError"`
		Structured json.RawMessage `json:"structured"`
		Meta       map[string]any  `json:"meta"`
	}
	var out struct {
		Server          struct{ Name string }
		Tools           []string
		Categories      call
		Search          call
		Alias           call
		Unknown         call
		ResourceActions int
		GetMsg          call
		WithInput       call
		TypedInput      call
		TypedOnly       call
		Forms           []string
		Fields          []map[string]string
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("output %s: %v", stdout, err)
	}
	if out.Server.Name != "snowluma-mcp" || len(out.Tools) != 12 || out.ResourceActions != 177 {
		t.Errorf("server %q, %d tools, %d actions in the resource", out.Server.Name, len(out.Tools), out.ResourceActions)
	}
	for name, c := range map[string]call{"list_categories": out.Categories, "search_actions": out.Search, "get_action": out.Alias, "query_action": out.GetMsg, "invoke_action_with_input": out.WithInput,
		"invoke_action_with_input, typed": out.TypedInput, "query_action_with_input, typed": out.TypedOnly} {
		if c.IsError || !strings.Contains(string(c.Structured), `"outcome":"success"`) {
			t.Errorf("%s: %s", name, c.Structured)
		}
		if tp, _ := c.Meta["traceparent"].(string); !strings.HasPrefix(tp, "00-") {
			t.Errorf("%s: no traceparent in _meta", name)
		}
	}
	if !strings.Contains(string(out.Search.Structured), "set_group_ban") || !strings.Contains(string(out.Alias.Structured), `"name":"fetch_ptt_text"`) {
		t.Errorf("search %s / alias %s", out.Search.Structured, out.Alias.Structured)
	}
	if !out.Unknown.IsError || !strings.Contains(string(out.Unknown.Structured), "unknown_action") {
		t.Errorf("unknown: %s", out.Unknown.Structured)
	}
	if !strings.Contains(string(out.GetMsg.Structured), "-2147483648") {
		t.Errorf("get_msg: %s", out.GetMsg.Structured)
	}
	if len(out.Forms) != 3 || !strings.Contains(out.Forms[0], "send_group_msg") {
		t.Errorf("forms: %v", out.Forms)
	}
	// The message stays in params_json; group_id and message_id are typed
	// fields the TypeScript client filled with numbers. The sends come after
	// get_msg read QQ users' text of another group, so the send gate asks
	// for a confirmation in the same form: the SDK gives a legacy client's
	// call one round of forms only.
	wantFields := []map[string]string{{"params_json": "string", "confirm": "boolean"}, {"group_id": "integer", "params_json": "string", "confirm": "boolean"}, {"message_id": "integer"}}
	if len(out.Fields) != len(wantFields) {
		t.Fatalf("form fields %v", out.Fields)
	}
	for i, want := range wantFields {
		if !maps.Equal(out.Fields[i], want) {
			t.Errorf("form %d fields %v, want %v", i, out.Fields[i], want)
		}
	}
	var sentMsg, sentTyped, sentGetMsg int
	for _, r := range fake.Requests() {
		switch {
		case r.Action == "send_group_msg" && mcptest.SameJSON(r.Params, json.RawMessage(`{"group_id":20001,"message":"Hello from TypeScript"}`)):
			sentMsg++
		case r.Action == "send_group_msg" && mcptest.SameJSON(r.Params, json.RawMessage(`{"group_id":20002,"message":"Hello from TypeScript"}`)):
			sentTyped++
		case r.Action == "get_msg" && string(r.Params) == `{"message_id":-123456}`:
			sentGetMsg++
		}
	}
	if sentMsg != 1 {
		t.Error("the elicited message never reached SnowLuma")
	}
	if sentTyped != 1 || sentGetMsg != 1 {
		t.Errorf("typed answers reached SnowLuma: send_group_msg %d, get_msg %d, want 1 each", sentTyped, sentGetMsg)
	}
}
