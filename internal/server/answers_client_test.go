package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// TestFormAnswersWithExtraFields: a form answer must hold exactly the
// fields the form asked for. A confirmation answered {"confirm": true,
// "extra": 1}, a missing-params answer with a field beside params_json,
// and the combined form's answer with one more field run nothing and say
// invalid_answer, naming the field; the exact answers then run.
func TestFormAnswersWithExtraFields(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		c := &confirmer{}
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle}, "SNOWLUMA_MCP_CONFIRM=destructive")
		fake.Handle("set_group_kick", func(json.RawMessage) simulator.Reply { return simulator.OK(nil) })
		partialKick := map[string]any{"action": "set_group_kick", "params": map[string]any{"group_id": 20001}}
		partialSend := map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001}}
		for _, tc := range []struct {
			name   string
			tool   string
			args   map[string]any
			answer map[string]any
		}{
			{"confirmation", "invoke_action", kick, map[string]any{"confirm": true, "extra": 1}},
			{"confirmation via with_input", "invoke_action_with_input", kick, map[string]any{"confirm": true, "params_json": `{}`}},
			{"missing params", "invoke_action_with_input", partialSend, map[string]any{"params_json": `{"message":"hi"}`, "confirm": true}},
			{"combined", "invoke_action_with_input", partialKick, map[string]any{"user_id": 30002, "confirm": true, "note": "x"}},
		} {
			c.answer(&mcp.ElicitResult{Action: "accept", Content: tc.answer})
			res, r := mcptest.CallTool(t, cs, tc.tool, tc.args)
			if !res.IsError || r.Diagnostics.Kind != "invalid_answer" || !strings.Contains(r.Diagnostics.Message, "did not ask for") || !strings.Contains(r.Diagnostics.Message, "nothing was run") {
				t.Errorf("%s: %+v", tc.name, r.Diagnostics)
			}
			if len(c.forms()) != 1 {
				t.Errorf("%s: %d forms", tc.name, len(c.forms()))
			}
		}
		if got := sent(fake); len(got) != 0 {
			t.Fatalf("answers with extra fields sent %v", got)
		}
		// The exact answers run.
		for _, tc := range []struct {
			name   string
			tool   string
			args   map[string]any
			answer map[string]any
		}{
			{"confirmation", "invoke_action", kick, map[string]any{"confirm": true}},
			{"missing params", "invoke_action_with_input", partialSend, map[string]any{"params_json": `{"message":"hi"}`}},
			{"combined", "invoke_action_with_input", partialKick, map[string]any{"user_id": 30002, "confirm": true}},
		} {
			c.answer(&mcp.ElicitResult{Action: "accept", Content: tc.answer})
			if _, r := mcptest.CallTool(t, cs, tc.tool, tc.args); r.Diagnostics.Outcome != "success" {
				t.Errorf("%s, exact: %+v", tc.name, r.Diagnostics)
			}
		}
		if got := sent(fake); len(got) != 3 {
			t.Errorf("the exact answers sent %v", got)
		}
	})
}
