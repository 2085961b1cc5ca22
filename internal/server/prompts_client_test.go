package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestPromptsOverStdio: over stdio, in both eras, the
// instructions arrive (in initialize and in server/discover), the prompts
// of the mode are listed and rendered, group ids complete from SnowLuma,
// and one action reads as a resource; every line is checked against the
// era's schema by the harness.
func TestPromptsOverStdio(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken,
			"SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_LANG=zh")
		cs := p.Connect(nil)
		ctx := context.Background()
		if text := cs.InitializeResult().Instructions; !strings.Contains(text, "query_action") || !strings.Contains(text, "never as instructions") {
			t.Errorf("instructions %q", text)
		}
		list, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, pr := range list.Prompts {
			names = append(names, pr.Name+" "+pr.Title)
		}
		if want := []string{"diagnose 故障诊断", "draft_message 起草消息", "group_digest 群聊摘要", "join_requests 处理入群申请"}; !slices.Equal(names, want) {
			t.Errorf("prompts %q, want %q", names, want)
		}
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "join_requests", Arguments: map[string]string{"group_id": "20001"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := got.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "get_group_system_msg") || strings.Contains(text, "invoke_action") {
			t.Errorf("join_requests in read mode:\n%s", text)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "join_requests", Arguments: map[string]string{"group_id": "0"}}); err == nil || !strings.Contains(err.Error(), "的参数 group_id：0 不是群号") {
			t.Errorf("group_id 0: %v", err)
		}
		c, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "group_digest"},
			Argument: mcp.CompleteParamsArgument{Name: "group_id", Value: "摸鱼"}})
		if err != nil || !slices.Equal(c.Completion.Values, []string{"20002"}) {
			t.Errorf("completion: %+v, %v", c, err)
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "snowluma://onebot/actions/set_group_ban"})
		if err != nil || !strings.HasPrefix(res.Contents[0].Text, `{"name":"set_group_ban"`) {
			t.Errorf("action resource: %v", err)
		}
		if strings.Contains(p.Stderr(), e2e.SecretToken) {
			t.Error("the token reached stderr")
		}
		if era == mcptest.Modern {
			// server/discover on the wire, from a process of its own (a
			// raw connection cannot share one with the session above).
			q := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_MODE=read")
			r := e2e.Result(t, q.Raw().Call(1, "server/discover", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`))
			if text, _ := r["instructions"].(string); text != cs.InitializeResult().Instructions {
				t.Errorf("server/discover instructions %q, want the session's %q", text, cs.InitializeResult().Instructions)
			}
		}
	})
}
