package main_test

import (
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

// TestLangConfig: a language the server does not speak stops it at start,
// naming the variable; a locale it does not speak is English, not an error.
func TestLangConfig(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := e2e.RunMain(t, run, nil, "SNOWLUMA_MCP_LANG=fr")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "SNOWLUMA_MCP_LANG") || !strings.Contains(stderr, "zh or en") {
		t.Errorf("SNOWLUMA_MCP_LANG=fr: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = e2e.RunMain(t, run, nil, "LANG=fr_FR.UTF-8") // stdin at EOF: serves nothing, exits
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
			"snowluma-mcp: 配置错误：SNOWLUMA_MCP_LANG：\"fr\" 不是本服务器支持的语言；可接受：zh 或 en，常见写法都可以（zh-CN、zh_CN.UTF-8、zh-Hans、zh-TW、en-US 等）；不设时取自 LC_ALL、LC_MESSAGES 或 LANG，再不然取系统的显示语言\n"},
		{[]string{"SNOWLUMA_MCP_LANG=en", "LC_ALL=zh_CN.UTF-8", "SNOWLUMA_MCP_MODE=admin"},
			"snowluma-mcp: configuration error: SNOWLUMA_MCP_MODE: \"admin\" is not a mode; accepted: docs, read or write\n"},
	} {
		code, stdout, stderr := e2e.RunMain(t, run, nil, tc.env...)
		if code != 2 || stdout != "" || stderr != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%q, want\n%q", tc.env, code, stdout, stderr, tc.want)
		}
	}
	// Notes and warnings, the server serving until stdin ends.
	code, _, stderr := e2e.RunMain(t, run, nil, "LANG=zh_CN.UTF-8", "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TOKN=v-5ecret")
	for _, want := range []string{
		"snowluma-mcp: 已忽略 SNOWLUMA_MCP_MODE=write：未设置 SNOWLUMA_MCP_ENDPOINT，所以模式是 docs\n",
		"snowluma-mcp: 警告：SNOWLUMA_MCP_TOKN 不是此服务器读取的变量，已忽略；是不是想写 SNOWLUMA_MCP_TOKEN？（见 --help）\n",
	} {
		if code != 0 || !strings.Contains(stderr, want) || strings.Contains(stderr, "5ecret") {
			t.Errorf("notes: exit %d, stderr %q, want it to hold %q", code, stderr, want)
		}
	}
}
