package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestSandboxTwoAccounts: with SNOWLUMA_MCP_BOTS=main,alt the sandbox
// simulates two accounts that share one group, in both eras: the tools
// take bot; a send without it is refused naming both accounts; a send by
// main into the shared group is in alt's history of it; a group list asks
// both accounts and labels each answer; doctor gives each bot a verdict.
// More than two labels are refused, saying the limit.
func TestSandboxTwoAccounts(t *testing.T) {
	t.Parallel()
	const seed = "5"
	// The shared group is the one the first account is a plain member of.
	var shared int64
	for _, g := range simtest.Start(t, simulator.WithWorld(5)).WorldGroups() {
		if g.Role == "member" {
			shared = g.ID
		}
	}
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		p, cs := startSandbox(t, era, "SNOWLUMA_MCP_BOTS=main,alt", "SNOWLUMA_MCP_SANDBOX_SEED="+seed, "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=0")
		ctx := mcptest.Context(t)
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.Name == "invoke_action" {
				if _, ok := tool.InputSchema.(map[string]any)["properties"].(map[string]any)["bot"]; !ok {
					t.Errorf("invoke_action takes no bot: %v", tool.InputSchema)
				}
			}
		}
		send := func(bot string) mcptest.ToolResult {
			args := map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": shared, "message": "hello from main"}}
			if bot != "" {
				args["bot"] = bot
			}
			_, r := mcptest.CallTool(t, cs, "invoke_action", args)
			return r
		}
		if r := send(""); r.Diagnostics.Kind != "invalid_arguments" || !strings.Contains(r.Diagnostics.Message, "main (10001), alt (20002)") {
			t.Errorf("a send without bot: %+v", r.Diagnostics)
		}
		if r := send("main"); r.Diagnostics.Outcome != "success" {
			t.Fatalf("main's send to group %d: %+v %s", shared, r.Diagnostics, r.Result)
		}
		_, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_msg_history", "params": map[string]any{"group_id": shared}, "bot": "alt"})
		if r.Diagnostics.Outcome != "success" || !strings.Contains(string(r.Result), "hello from main") || !strings.Contains(string(r.Result), "10001") {
			t.Errorf("alt's history of group %d lacks main's message: %+v %s", shared, r.Diagnostics, r.Result)
		}
		_, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_list"})
		answers := mcptest.Decode[struct {
			Bots []struct {
				Bot    string          `json:"bot"`
				SelfID int64           `json:"self_id"`
				Result json.RawMessage `json:"result"`
			} `json:"bots"`
		}](t, r.Result).Bots
		if len(answers) != 2 || answers[0].Bot != "main" || answers[1].Bot != "alt" || answers[1].SelfID != 20002 ||
			!strings.Contains(string(answers[0].Result), fmt.Sprint(shared)) || !strings.Contains(string(answers[1].Result), fmt.Sprint(shared)) {
			t.Errorf("the group list of both accounts: %s", r.Result)
		}
		if !strings.Contains(p.Stderr(), "20002") {
			t.Errorf("stderr does not name the second account:\n%s", p.Stderr())
		}
	})

	code, out, stderr := runBinary(t, []string{"sandbox", "doctor"}, "SNOWLUMA_MCP_BOTS=main,alt", "SNOWLUMA_MCP_LANG=en")
	if code != 0 || !strings.Contains(out, "[alt]") || strings.Contains(out, "fail ") {
		t.Errorf("sandbox doctor with two bots: exit %d\n%s\n%s", code, out, stderr)
	}
	code, _, stderr = runBinary(t, []string{"sandbox"}, "SNOWLUMA_MCP_BOTS=main,alt,third", "SNOWLUMA_MCP_LANG=en")
	if code == 0 || !strings.Contains(stderr, "names 3") {
		t.Errorf("a sandbox of three bots: exit %d\n%s", code, stderr)
	}
}
