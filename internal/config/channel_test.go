package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/internal/lang"
)

const events = "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/"

func TestChannel(t *testing.T) {
	c, err := Load(base(t, events, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_CHANNEL=Mentions",
		"SNOWLUMA_MCP_CHANNEL_GROUPS=20001, 20002", "SNOWLUMA_MCP_CHANNEL_USERS=30001", "SNOWLUMA_MCP_CHANNEL_APPROVERS=30001",
		"SNOWLUMA_MCP_ALLOWED_USERS=30001,30002"))
	if err != nil {
		t.Fatal(err)
	}
	ch := c.Channel
	if ch.Mode != channel.ModeMentions || !slices.Equal(ch.Groups.Sorted(), []int64{20001, 20002}) || !slices.Equal(ch.Users.Sorted(), []int64{30001}) ||
		!slices.Equal(ch.Approvers.Sorted(), []int64{30001}) || ch.AllowGroups != nil || !slices.Equal(ch.AllowUsers.Sorted(), []int64{30001, 30002}) {
		t.Errorf("channel %+v", ch)
	}
	if c.Notes != nil {
		t.Errorf("notes %q", c.Notes)
	}

	// Off by default; lists without the channel are noted as ignored.
	c, err = Load(base(t, events, "SNOWLUMA_MCP_CHANNEL_GROUPS=1", "SNOWLUMA_MCP_LANG=en"))
	if err != nil || c.Channel.Mode != channel.ModeOff || c.Channel.Groups != nil ||
		!slices.Equal(c.Notes, []string{"SNOWLUMA_MCP_CHANNEL_GROUPS ignored: SNOWLUMA_MCP_CHANNEL is off"}) {
		t.Errorf("off: %+v %q %v", c.Channel, c.Notes, err)
	}
	// On with nothing to follow: it says so.
	c, err = Load(base(t, events, "SNOWLUMA_MCP_CHANNEL=all", "LC_ALL=zh_CN.UTF-8"))
	if err != nil || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "不会推送任何消息") {
		t.Errorf("empty: %q %v", c.Notes, err)
	}
}

func TestChannelRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		variable string
		env      []string
		en, zh   string
	}{
		{"mode", "CHANNEL", []string{events, "SNOWLUMA_MCP_CHANNEL=on"}, `"on" is not a channel mode; accepted: off, mentions or all`, "不是推送通道（SNOWLUMA_MCP_CHANNEL）的模式"},
		{"no events", "CHANNEL", []string{"SNOWLUMA_MCP_CHANNEL=all"}, "the channel needs SNOWLUMA_MCP_EVENTS_URL; accepted: set SNOWLUMA_MCP_ENDPOINT", "推送通道需要 SNOWLUMA_MCP_EVENTS_URL"},
		{"docs", "CHANNEL", []string{events, "SNOWLUMA_MCP_MODE=docs", "SNOWLUMA_MCP_CHANNEL=mentions"}, "needs read or write mode, and this configuration is in docs mode", "docs 模式"},
		{"list", "CHANNEL_USERS", []string{events, "SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_USERS=1,x"}, `item 2 ("x")`, "列表有误"},
		{"group outside", "CHANNEL_GROUPS", []string{events, "SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_GROUPS=20001,20009", "SNOWLUMA_MCP_ALLOWED_GROUPS=20001"},
			"20009 is not in SNOWLUMA_MCP_ALLOWED_GROUPS, and the channel stays inside the allowlists; accepted: ids that SNOWLUMA_MCP_ALLOWED_GROUPS also lists", "不能超出允许名单"},
		{"approver outside", "CHANNEL_APPROVERS", []string{events, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_APPROVERS=30009", "SNOWLUMA_MCP_ALLOWED_USERS=30001"},
			"30009 is not in SNOWLUMA_MCP_ALLOWED_USERS", "30009 不在 SNOWLUMA_MCP_ALLOWED_USERS 中"},
		{"approvers in read mode", "CHANNEL_APPROVERS", []string{events, "SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_APPROVERS=30001"},
			"approval prompts are sent as private QQ messages, which needs write mode; accepted: set SNOWLUMA_MCP_MODE=write", "需要 write 模式"},
	} {
		_, err := Load(base(t, tc.env...))
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want an *Error", tc.name, err)
			continue
		}
		en, zh := ce.In(lang.En), ce.In(lang.Zh)
		if ce.Var != tc.variable || !strings.Contains(en, tc.en) || !strings.Contains(zh, tc.zh) || !han(lang.Zh.Text(ce.Accepted)) {
			t.Errorf("%s: var %s\n en %q\n zh %q", tc.name, ce.Var, en, zh)
		}
	}
}
