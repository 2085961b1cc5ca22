package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// ownedGroup is the group the bot owns in a world, where the world's
// pending join request is.
func ownedGroup(t *testing.T, fake *simulator.Server) int64 {
	t.Helper()
	for _, g := range fake.WorldGroups() {
		if g.Role == "owner" {
			return g.ID
		}
	}
	t.Fatal("the world has no group the bot owns")
	return 0
}

// promptText renders a prompt through the client.
func promptText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]string) string {
	t.Helper()
	got, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return got.Messages[0].Content.(*mcp.TextContent).Text
}

// TestJoinRequestsAgainstSandbox follows the join_requests prompt's
// instructions, in both eras, against the sandbox's answer to
// get_group_system_msg, which has SnowLuma's shape: the prompt's filter
// keeps the pending request (an "add:" filter would keep none), the flag
// form it describes is the one SnowLuma lists, and the answer flag it
// tells the model to build approves that very requester.
func TestJoinRequestsAgainstSandbox(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0")
		cs := p.Connect(nil)
		group := ownedGroup(t, fake)
		text := promptText(t, cs, "join_requests", map[string]string{"group_id": fmt.Sprint(group)})

		type entry struct {
			GroupID       int64  `json:"group_id"`
			RequesterNick string `json:"requester_nick"`
			Flag          string `json:"flag"`
		}
		list := func() []entry {
			_, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_system_msg"})
			return mcptest.Decode[struct {
				Data []entry `json:"data"`
			}](t, r.Result).Data
		}
		// The prompt's filter: every entry whose group_id is the group.
		if !strings.Contains(text, fmt.Sprintf("every entry whose group_id is %d is one pending request", group)) {
			t.Fatalf("the prompt's filter changed:\n%s", text)
		}
		var kept []entry
		for _, e := range list() {
			if e.GroupID == group {
				kept = append(kept, e)
			}
			if strings.HasPrefix(e.Flag, "add:") {
				t.Errorf("get_group_system_msg flag %q: SnowLuma's start with QQ's event type", e.Flag)
			}
		}
		if len(kept) == 0 {
			t.Fatalf("the prompt's filter keeps no request of group %d", group)
		}
		// The flag form the prompt describes is the one listed.
		if !strings.Contains(text, "form <event type>:<group_id>:<uid>") {
			t.Fatalf("the prompt no longer describes the listed flag:\n%s", text)
		}
		listed := regexp.MustCompile(`^\d+:(\d+):(.+)$`)
		m := listed.FindStringSubmatch(kept[0].Flag)
		if m == nil || m[1] != fmt.Sprint(group) {
			t.Fatalf("listed flag %q is not <event type>:<group_id>:<uid>", kept[0].Flag)
		}
		// The answer the prompt tells the model to build: add:<group_id>:<uid>.
		if !strings.Contains(text, "build its flag as add:<group_id>:<uid>") || !strings.Contains(text, `"flag":"add:<group_id>:<uid>"`) {
			t.Fatalf("the prompt's answer flag changed:\n%s", text)
		}
		members := func() string {
			_, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_member_list", "params": map[string]any{"group_id": group}})
			return string(r.Result)
		}
		if strings.Contains(members(), kept[0].RequesterNick) {
			t.Fatalf("%s is a member before the answer", kept[0].RequesterNick)
		}
		_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "set_group_add_request",
			"params": map[string]any{"flag": "add:" + m[1] + ":" + m[2], "approve": true}})
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("set_group_add_request: %+v %s", r.Diagnostics, r.Result)
		}
		if !strings.Contains(members(), kept[0].RequesterNick) {
			t.Errorf("%s is not a member after the prompt's answer", kept[0].RequesterNick)
		}
		for _, e := range list() {
			if e.Flag == kept[0].Flag {
				t.Errorf("request %s still pending", e.Flag)
			}
		}
	})
}

// TestDigestFindsSandboxHistory: the sandbox's history is dated back from
// now, so the window group_digest gives for since 2h (its Unix time) holds
// the group's latest messages.
func TestDigestFindsSandboxHistory(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(11))
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_LANG=zh")
		cs := p.Connect(nil)
		group := ownedGroup(t, fake)
		for _, since := range []string{"2小时", "2 hours", "今天"} {
			text := promptText(t, cs, "group_digest", map[string]string{"group_id": fmt.Sprint(group), "since": since})
			m := regexp.MustCompile(`until the lines reach before (\d{4}-\d\d-\d\d \d\d:\d\d [+-]\d\d:\d\d)`).FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("since %s: no time bound in:\n%s", since, text)
			}
			from, err := time.Parse("2006-01-02 15:04 -07:00", m[1])
			if err != nil {
				t.Fatal(err)
			}
			_, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_msg_history", "params": map[string]any{"group_id": group, "count": 50}})
			h := mcptest.Decode[struct {
				Data struct {
					Lines string `json:"lines"`
				} `json:"data"`
			}](t, r.Result)
			in := 0
			for _, at := range lineTimes(t, h.Data.Lines) {
				if !at.Before(from) {
					in++
				}
			}
			// Today's window is empty only in the first minutes after midnight.
			if in == 0 && since != "今天" {
				t.Errorf("since %s (from %v): no message of the history in the window:\n%s", since, from, h.Data.Lines)
			}
		}
	})
}

// TestConfirmationShowsValues: in both eras and both languages, the
// confirmation form says what the call will do with its values, and a
// recall named by its id alone quotes the message, read from SnowLuma.
func TestConfirmationShowsValues(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		for _, tc := range []struct {
			lang      string
			ban, quit string
		}{
			{"zh", "对群成员禁言若干秒 set_group_ban：禁言群 20001 的 30001，60 秒。允许执行吗？", "按消息 id 撤回一条消息 delete_msg：撤回消息 #-12345（“hello from the fake”）。允许执行吗？"},
			{"en", "Allow set_group_ban: mute 30001 in group 20001 for 60 s? ", `Allow delete_msg: recall message #-12345 ("hello from the fake")? `},
		} {
			c := &confirmer{}
			fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle},
				"SNOWLUMA_MCP_CONFIRM=destructive", "SNOWLUMA_MCP_LANG="+tc.lang)
			c.answer(confirmAnswer(false))
			mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "set_group_ban", "params": map[string]any{"group_id": 20001, "user_id": 30001, "duration": 60}})
			mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "delete_msg", "params": map[string]any{"message_id": -12345}})
			forms := c.forms()
			if len(forms) != 2 || !strings.HasPrefix(forms[0].Message, tc.ban) || !strings.HasPrefix(forms[1].Message, tc.quit) {
				t.Fatalf("%s: forms %q", tc.lang, func() (m []string) {
					for _, f := range forms {
						m = append(m, f.Message)
					}
					return
				}())
			}
			// The message was read to be quoted; nothing was run.
			for _, r := range fake.Requests() {
				if r.Action == "delete_msg" || r.Action == "set_group_ban" {
					t.Errorf("%s: %s ran without confirmation", tc.lang, r.Action)
				}
			}
		}
	})
}

// TestUnknownActionHint: a call SnowLuma answers with retcode 1404 says
// why in the tool result, in both eras: the endpoint's path when every
// action is unknown there (as doctor finds), else a SnowLuma without the
// action; never "fix the params".
func TestUnknownActionHint(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		// SnowLuma serves /onebot; the endpoint names its root.
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithHTTPPath("/onebot"))
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		_, r := mcptest.CallTool(t, p.Connect(nil), "query_action", map[string]any{"action": "get_status"})
		if r.Diagnostics.Outcome != "failed" || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_ENDPOINT's path is not SnowLuma's HTTP path") || strings.Contains(r.Diagnostics.NextStep, "fix the params") {
			t.Errorf("wrong path: %+v", r.Diagnostics)
		}

		// The right path, and one action this SnowLuma lacks.
		fake = simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		fake.Handle("get_group_honor_info", func(json.RawMessage) simulator.Reply { return simulator.Failed(1404, "unknown action") })
		p = serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		_, r = mcptest.CallTool(t, p.Connect(nil), "query_action", map[string]any{"action": "get_group_honor_info", "params": map[string]any{"group_id": 20001}})
		if r.Diagnostics.Outcome != "failed" || !strings.Contains(r.Diagnostics.NextStep, "this SnowLuma does not have the action") || strings.Contains(r.Diagnostics.NextStep, "path") {
			t.Errorf("missing action: %+v", r.Diagnostics)
		}
	})
}

// lineTimes reads the time of each message of a listing in lines
// (qqmsg.AppendLines): a date line with the zone's offset, then lines
// that start with the time.
func lineTimes(t *testing.T, lines string) []time.Time {
	t.Helper()
	var out []time.Time
	var day, zone string
	for _, l := range strings.Split(strings.TrimSuffix(lines, "\n"), "\n") {
		if d, z, ok := strings.Cut(l, " "); ok && len(d) == 10 && d[4] == '-' && (z[0] == '+' || z[0] == '-') {
			day, zone = d, z
			continue
		} else if len(l) == 10 && l[4] == '-' {
			day = l
			continue
		}
		if strings.HasPrefix(l, " ") {
			continue // a message's later line
		}
		clock, _, _ := strings.Cut(l, " ")
		at, err := time.Parse("2006-01-02 15:04 -07:00", day+" "+clock+" "+zone)
		if err != nil {
			t.Fatalf("line %q of\n%s: %v", l, lines, err)
		}
		out = append(out, at)
	}
	return out
}
