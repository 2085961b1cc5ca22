package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// TestSandboxChannel: `snowluma-mcp sandbox` with nothing but the
// channel's variables (the groups, an approver) runs the channel against
// its own world, declines server/discover as the channel does, and pushes
// the at-mentions of the bot its members make.
func TestSandboxChannel(t *testing.T) {
	t.Parallel()
	// The same seed builds the same world: its groups are the binary's.
	sb, err := simulator.NewSandbox(simulator.SandboxOptions{Seed: 3, Trickle: -1})
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range sb.WorldGroups() {
		groups = append(groups, fmt.Sprint(g.ID))
	}
	sb.Close()
	env := []string{"SNOWLUMA_MCP_SANDBOX_SEED=3", "SNOWLUMA_MCP_SANDBOX_TRICKLE_MS=40", "SNOWLUMA_MCP_LANG=en",
		"SNOWLUMA_MCP_CHANNEL=mentions", "SNOWLUMA_MCP_CHANNEL_GROUPS=" + strings.Join(groups, ","), "SNOWLUMA_MCP_CHANNEL_APPROVERS=30002"}

	probe := mcptest.SpawnArgs(t, plainBinary(t), mcptest.Modern, []string{"sandbox"}, env...)
	if r := probe.Raw().Call(1, "server/discover", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`); r["error"] == nil {
		t.Errorf("the sandbox's channel offered server/discover: %v", r)
	}
	probe.Close()

	p := mcptest.SpawnArgs(t, plainBinary(t), mcptest.Legacy, []string{"sandbox"}, env...)
	raw, _ := e2e.RawSession(t, p, mcptest.Legacy, "{}")
	init := p.Received()
	if !strings.Contains(strings.Join(init, "\n"), `"claude/channel/permission"`) {
		t.Errorf("initialize declared no channel with approvers:\n%s", strings.Join(init, "\n"))
	}
	for {
		m := raw.Next()
		if m["method"] != "notifications/claude/channel" {
			continue
		}
		params := m["params"].(map[string]any)
		meta := params["meta"].(map[string]any)
		content, _ := params["content"].(string)
		if meta["mentioned"] != "true" || !strings.Contains(content, "[@我]") || !strings.Contains(strings.Join(groups, ","), meta["group_id"].(string)) {
			t.Errorf("push %q %v", content, meta)
		}
		break
	}
	if s := p.Stderr(); !strings.Contains(s, "channel: following account") {
		t.Errorf("stderr:\n%s", s)
	}
}
