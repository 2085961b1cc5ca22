package main_test

import (
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestUserAgentEverywhere checks, on the fake SnowLuma's record of the
// headers, that every request the server and doctor send names this build,
// snowluma-mcp/<the version --version prints>: the HTTP actions, the event
// WebSocket's upgrade, and doctor's calls and probe.
func TestUserAgentEverywhere(t *testing.T) {
	t.Parallel()
	// The server runs in this test process and doctor as the binary: each
	// names its own build.
	// userAgent is what a build whose --version printed out names itself.
	userAgent := func(out string) string {
		fields := strings.Fields(out)
		if len(fields) < 2 {
			t.Fatalf("--version: %q", out)
		}
		return "snowluma-mcp/" + fields[1]
	}
	check := func(t *testing.T, what, want string, fake *simulator.Server) {
		t.Helper()
		reqs, ups := fake.Requests(), fake.Upgrades()
		if len(reqs) == 0 || len(ups) == 0 {
			t.Fatalf("%s: %d requests and %d upgrades reached SnowLuma", what, len(reqs), len(ups))
		}
		for _, r := range reqs {
			if ua := r.Header.Get("User-Agent"); ua != want {
				t.Errorf("%s: %s sent User-Agent %q, want %q", what, r.Action, ua, want)
			}
		}
		for _, h := range ups {
			if ua := h.Get("User-Agent"); ua != want {
				t.Errorf("%s: the event WebSocket's upgrade sent User-Agent %q, want %q", what, ua, want)
			}
		}
	}
	t.Run("server", func(t *testing.T) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		p := serve(t, mcptest.Modern, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken,
			"SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_EVENTS_URL="+fake.EventsURL())
		cs := p.Connect(nil)
		t.Cleanup(func() { e2e.NoLeak(t, p) })
		if res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"}); res.IsError {
			t.Fatalf("get_status: %+v", r.Diagnostics)
		}
		e2e.SubscribeEvents(t, cs, map[string]any{})
		_, version, _ := e2e.RunMain(t, run, []string{"--version"})
		check(t, "the server", userAgent(version), fake)
	})
	t.Run("doctor", func(t *testing.T) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		if code, text, _ := doctor(t, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_EVENTS_URL="+fake.EventsURL()); code != 0 {
			t.Fatalf("doctor: exit %d\n%s", code, text)
		}
		_, version, _ := runBinary(t, []string{"--version"})
		check(t, "doctor", userAgent(version), fake)
	})
}
