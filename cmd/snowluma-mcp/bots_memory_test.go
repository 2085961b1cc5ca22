package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestMemoryPerBot measures what each further bot costs the real binary:
// its peak resident set with one bot and with five (four further ones),
// each asked once (a group list fanned out over every bot), so that every
// bot's client and features have been built and used. The bound
// is 2 MiB a further bot.
func TestMemoryPerBot(t *testing.T) {
	t.Parallel()
	const extra = 4
	peak := func(bots int) int64 {
		env := []string{"SNOWLUMA_MCP_MODE=write"}
		var labels []string
		for i := range bots {
			fake := simtest.Start(t)
			label := fmt.Sprintf("b%d", i)
			labels = append(labels, label)
			suffix := ""
			if i > 0 {
				suffix = "_" + strings.ToUpper(label)
			}
			env = append(env, "SNOWLUMA_MCP_ENDPOINT"+suffix+"="+fake.URL, "SNOWLUMA_MCP_TOKEN"+suffix+"=bot-memory-token-1")
		}
		if bots > 1 {
			env = append(env, "SNOWLUMA_MCP_BOTS="+strings.Join(labels, ","))
		}
		p := mcptest.Spawn(t, plainBinary(t), mcptest.Modern, env...)
		cs := p.Connect(nil)
		if _, err := cs.ListTools(mcptest.Context(t), nil); err != nil {
			t.Fatal(err)
		}
		if _, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_list"}); r.Diagnostics.Outcome != "success" {
			t.Fatalf("%d bots: %+v", bots, r.Diagnostics)
		}
		rss := p.PeakRSS()
		cs.Close()
		p.Close()
		return rss
	}
	one, five := peak(1), peak(1+extra)
	per := float64(five-one) / extra / (1 << 20)
	t.Logf("peak RSS: one bot %.1f MiB, five bots %.1f MiB: %.2f MiB a further bot", float64(one)/(1<<20), float64(five)/(1<<20), per)
	if per > 2 {
		t.Errorf("%.2f MiB a further bot, over the 2 MiB the issue allows", per)
	}
}
