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
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		// Chinese from the locale alone.
		c := &confirmer{}
		fake, _, cs := liveWith(t, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle},
			"SNOWLUMA_MCP_CONFIRM=destructive", "LANG=zh_CN.UTF-8")
		fake.Handle("set_group_kick", func(json.RawMessage) fakesnowluma.Reply { return fakesnowluma.OK(nil) })
		c.answer(confirmAnswer(true))
		_, r := mcptest.CallTool(t, cs, "invoke_action", kick)
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("confirmed kick: %+v", r.Diagnostics)
		}
		forms := c.forms()
		if len(forms) != 1 || !strings.HasPrefix(forms[0].Message, "把成员踢出群 set_group_kick：群 20001，成员 30001。允许执行吗？") {
			t.Fatalf("confirmation %+v", forms)
		}
		props := mcptest.Decode[map[string]any](t, mustJSON(t, forms[0].RequestedSchema))["properties"].(map[string]any)
		if f, _ := props["confirm"].(map[string]any); f["title"] != "执行" {
			t.Errorf("confirm field %v", props)
		}

		// SNOWLUMA_MCP_LANG wins over the locale, both ways.
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		_, _, cs = liveWith(t, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"group_id": 20001}, `{"message":"你好"}`, &seen, &mu)},
			"SNOWLUMA_MCP_LANG=zh", "LC_ALL=en_US.UTF-8")
		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
		if r.Diagnostics.Outcome != "success" || len(seen) != 1 {
			t.Fatalf("zh form: %+v, %d forms", r.Diagnostics, len(seen))
		}
		if msg := seen[0].Message; !strings.HasPrefix(msg, "send_group_msg 还缺 2 个参数。请填写 group_id。请在 params_json 中") {
			t.Errorf("zh form message %q", msg)
		}
		props = mcptest.Decode[map[string]any](t, mustJSON(t, seen[0].RequestedSchema))["properties"].(map[string]any)
		if f, _ := props["params_json"].(map[string]any); f["title"] != "参数（JSON 对象）" {
			t.Errorf("zh params_json field %v", f)
		}
		if tr := mustJSON(t, r); strings.ContainsFunc(string(tr), func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff && r != '你' && r != '好' }) {
			t.Errorf("the result a model reads is not English: %s", tr)
		}

		seen = nil
		_, _, cs = liveWith(t, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"group_id": 20001}, `{"message":"hi"}`, &seen, &mu)},
			"SNOWLUMA_MCP_LANG=en", "LC_ALL=zh_CN.UTF-8")
		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
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

// TestStartupInChinese: a configuration error stops the start with one line
// in the operator's language (SNOWLUMA_MCP_LANG, else the locale), naming
// the variable and what is accepted and repeating no secret; a bad
// SNOWLUMA_MCP_LANG is reported in the locale's language; the start-up
// notes and warnings follow the language too.
func TestStartupInChinese(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want string // the whole stderr
	}{
		{[]string{"LANG=zh_CN.UTF-8", "SNOWLUMA_MCP_MODE=admin"},
			"snowluma-mcp: 配置错误：SNOWLUMA_MCP_MODE：\"admin\" 不是模式；可接受：docs、read 或 write\n"},
		{[]string{"SNOWLUMA_MCP_LANG=zh", "LC_ALL=en_US.UTF-8", "SNOWLUMA_MCP_TOKEN=Bearer tok-5ecret"},
			"snowluma-mcp: 配置错误：SNOWLUMA_MCP_TOKEN：令牌以 'Bearer ' 前缀开头；可接受：单独一行的访问令牌本身，不带控制字符、看不见的字符或 'Bearer ' 前缀（服务器自己会发送 'Authorization: Bearer <token>'）\n"},
		{[]string{"SNOWLUMA_MCP_LANG=fr", "LANG=zh_CN.UTF-8"},
			"snowluma-mcp: 配置错误：SNOWLUMA_MCP_LANG：\"fr\" 不是此服务器会用的语言；可接受：zh 或 en（不设时取自 LC_ALL、LC_MESSAGES 或 LANG）\n"},
		{[]string{"SNOWLUMA_MCP_LANG=en", "LC_ALL=zh_CN.UTF-8", "SNOWLUMA_MCP_MODE=admin"},
			"snowluma-mcp: configuration error: SNOWLUMA_MCP_MODE: \"admin\" is not a mode; accepted: docs, read or write\n"},
	} {
		code, stdout, stderr := runMain(t, nil, tc.env...)
		if code != 2 || stdout != "" || stderr != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%q, want\n%q", tc.env, code, stdout, stderr, tc.want)
		}
	}
	// Notes and warnings, the server serving until stdin ends.
	code, _, stderr := runMain(t, nil, "LANG=zh_CN.UTF-8", "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TOKN=v-5ecret")
	for _, want := range []string{
		"snowluma-mcp: 已忽略 SNOWLUMA_MCP_MODE=write：未设置 SNOWLUMA_MCP_ENDPOINT，所以模式是 docs\n",
		"snowluma-mcp: 警告：SNOWLUMA_MCP_TOKN 不是此服务器读取的变量，已忽略；是不是想写 SNOWLUMA_MCP_TOKEN？（见 --help）\n",
	} {
		if code != 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, "5ecret") {
			t.Errorf("notes: exit %d, stderr %q, want it to hold %q", code, stderr, want)
		}
	}
}
