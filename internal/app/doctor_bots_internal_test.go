package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestDoctorSeveralBots: with two bots, doctor checks each against its own
// SnowLuma with its own token, labels every verdict with the bot, and when
// one bot's token is wrong, fails that bot alone and names its variable.
func TestDoctorSeveralBots(t *testing.T) {
	t.Parallel()
	const mainTok, altTok = "main-doctor-token-1", "alt-doctor-token-22"
	main := simtest.Start(t, simulator.WithToken(mainTok))
	alt := simtest.Start(t, simulator.WithToken(altTok))
	alt.Handle("get_login_info", func(json.RawMessage) simulator.Reply {
		return simulator.OK(map[string]any{"user_id": 20002, "nickname": "AltBot"})
	})
	env := func(altToken string) []string {
		return []string{"HOME=" + t.TempDir(), "SNOWLUMA_MCP_LANG=en", "SNOWLUMA_MCP_BOTS=main,alt",
			"SNOWLUMA_MCP_ENDPOINT=" + main.URL, "SNOWLUMA_MCP_TOKEN=" + mainTok,
			"SNOWLUMA_MCP_ENDPOINT_ALT=" + alt.URL, "SNOWLUMA_MCP_TOKEN_ALT=" + altToken}
	}
	verdicts := func(r *report) map[string]finding {
		out := map[string]finding{}
		for _, f := range r.Findings {
			if f.Bot != "" {
				out[f.Bot+" "+f.Check] = f
			}
		}
		return out
	}

	r := diagnose(context.Background(), env(altTok), lang.En, false)
	v := verdicts(r)
	if r.Failed != 0 || v["main token"].Verdict != verdictOK || !strings.Contains(v["main token"].Detail, "[main] ") || !strings.Contains(v["main token"].Detail, "SnowBot (10001)") ||
		v["alt token"].Verdict != verdictOK || !strings.Contains(v["alt token"].Detail, "[alt] ") || !strings.Contains(v["alt token"].Detail, "AltBot (20002)") {
		t.Fatalf("both right: %d failed, %+v", r.Failed, v)
	}
	for _, f := range []*simulator.Server{main, alt} {
		if len(f.Requests()) == 0 {
			t.Errorf("%s was never asked", f.URL)
		}
	}

	r = diagnose(context.Background(), env("wrong-token-for-alt"), lang.En, false)
	v = verdicts(r)
	tok := v["alt token"]
	if r.Failed != 1 || tok.Verdict != verdictFail || !strings.HasPrefix(tok.Detail, "[alt] ") || !strings.Contains(tok.Fix, "SNOWLUMA_MCP_TOKEN_ALT") || v["main token"].Verdict != verdictOK {
		t.Errorf("alt's token wrong: %d failed, alt %+v, main %+v", r.Failed, tok, v["main token"])
	}
}
