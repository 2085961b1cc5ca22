package app

import (
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/config"
)

// TestDoctorChannel: with the channel configured, doctor says what Claude
// Code needs to deliver it, in the operator's language, and with
// approvers the permission mode in which Claude Code asks; without it,
// nothing.
func TestDoctorChannel(t *testing.T) {
	t.Parallel()
	base := []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:3000/", "SNOWLUMA_MCP_TOKEN=doctor-channel-token", "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:3001/", "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_DOWNLOAD_DIR=" + t.TempDir()}
	load := func(env ...string) *config.Config {
		cfg, err := config.Load(append(base, env...))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if _, ok := checkChannel(load().Lang, load()); ok {
		t.Error("a channel check without the channel")
	}
	cfg := load("SNOWLUMA_MCP_LANG=en", "SNOWLUMA_MCP_CHANNEL=mentions", "SNOWLUMA_MCP_CHANNEL_GROUPS=20001", "SNOWLUMA_MCP_CHANNEL_APPROVERS=30002")
	f, ok := checkChannel(cfg.Lang, cfg)
	for _, want := range []string{"mentions mode: 1 group(s), 0 user(s), 1 approver(s)", "--dangerously-load-development-channels server:", "not claude -p",
		"--channels plugin:snowluma-channel@snowluma-mcp", `"channelsEnabled": true`, `"allowedChannelPlugins"`, "--permission-mode default"} {
		if !ok || f.Verdict != verdictOK || !strings.Contains(f.Detail, want) {
			t.Errorf("%v %+v lacks %q", ok, f, want)
		}
	}
	cfg = load("SNOWLUMA_MCP_LANG=zh", "SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_USERS=30001")
	if f, _ := checkChannel(cfg.Lang, cfg); !strings.Contains(f.Detail, "claude -p 不行") || !strings.Contains(f.Detail, "allowedChannelPlugins") || strings.Contains(f.Detail, "--permission-mode") {
		t.Errorf("in Chinese, without approvers: %q", f.Detail)
	}
}
