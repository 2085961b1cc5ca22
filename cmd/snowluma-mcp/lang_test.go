package main_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// TestFormsInChinese: the forms a person reads follow SNOWLUMA_MCP_LANG,
// and without it the locale (LC_ALL before LANG); the confirmation names the
// action by its Chinese summary too. What the model reads stays English.
func TestFormsInChinese(t *testing.T) {
	t.Parallel()
	forEachEra(t, func(t *testing.T, era mcptest.Era) {
		// Chinese from the locale alone.
		c := &confirmer{}
		fake, _, cs := liveWith(t, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle},
			"SNOWLUMA_MCP_CONFIRM=destructive", "LANG=zh_CN.UTF-8")
		fake.Handle("set_group_kick", func(json.RawMessage) fakesnowluma.Reply { return fakesnowluma.OK(nil) })
		c.answer(confirmAnswer(true))
		_, r := callTool(t, cs, "invoke_action", kick)
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("confirmed kick: %+v", r.Diagnostics)
		}
		forms := c.forms()
		if len(forms) != 1 || !strings.HasPrefix(forms[0].Message, "把成员踢出群 set_group_kick：群 20001，成员 30001。允许执行吗？") {
			t.Fatalf("confirmation %+v", forms)
		}
		props := decode[map[string]any](t, mustJSON(t, forms[0].RequestedSchema))["properties"].(map[string]any)
		if f, _ := props["confirm"].(map[string]any); f["title"] != "执行" {
			t.Errorf("confirm field %v", props)
		}

		// SNOWLUMA_MCP_LANG wins over the locale, both ways.
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		_, _, cs = liveWith(t, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"group_id": 20001}, `{"message":"你好"}`, &seen, &mu)},
			"SNOWLUMA_MCP_LANG=zh", "LC_ALL=en_US.UTF-8")
		_, r = callTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
		if r.Diagnostics.Outcome != "success" || len(seen) != 1 {
			t.Fatalf("zh form: %+v, %d forms", r.Diagnostics, len(seen))
		}
		if msg := seen[0].Message; !strings.HasPrefix(msg, "send_group_msg 还缺 2 个参数。请填写 group_id。请在 params_json 中") {
			t.Errorf("zh form message %q", msg)
		}
		props = decode[map[string]any](t, mustJSON(t, seen[0].RequestedSchema))["properties"].(map[string]any)
		if f, _ := props["params_json"].(map[string]any); f["title"] != "参数（JSON 对象）" {
			t.Errorf("zh params_json field %v", f)
		}
		if tr := mustJSON(t, r); strings.ContainsFunc(string(tr), func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff && r != '你' && r != '好' }) {
			t.Errorf("the result a model reads is not English: %s", tr)
		}

		seen = nil
		_, _, cs = liveWith(t, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"group_id": 20001}, `{"message":"hi"}`, &seen, &mu)},
			"SNOWLUMA_MCP_LANG=en", "LC_ALL=zh_CN.UTF-8")
		_, r = callTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
		if r.Diagnostics.Outcome != "success" || len(seen) != 1 || !strings.HasPrefix(seen[0].Message, "send_group_msg needs 2 more parameters.") {
			t.Errorf("en form: %+v %+v", r.Diagnostics, seen)
		}
	})
}

// TestLangConfig: a language the server does not speak stops it at start,
// naming the variable; a locale it does not speak is English, not an error.
func TestLangConfig(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runMain(t, nil, "SNOWLUMA_MCP_LANG=fr")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "SNOWLUMA_MCP_LANG") || !strings.Contains(stderr, "zh or en") {
		t.Errorf("SNOWLUMA_MCP_LANG=fr: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runMain(t, nil, "LANG=fr_FR.UTF-8") // stdin at EOF: serves nothing, exits
	if code != 0 {
		t.Errorf("LANG=fr_FR.UTF-8: exit %d, stderr %q", code, stderr)
	}
}
