package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// The bytes mode: what a model reads. For each mode and client capability
// set it prints the size of the tools/list definitions (the tools array,
// compact JSON as the server writes it), and for each docs call the size of
// its text block, the part a host that ignores structuredContent puts in
// front of the model. Every size comes with a token estimate (see tokens).

// capSet is one client capability set of the bytes mode: the
// clientCapabilities a 2026-07-28 request carries in its _meta.
type capSet struct {
	name string
	caps string
}

var (
	plainCaps = capSet{"plain", `{}`}
	// allCaps is a client with every feature the server can use: form
	// elicitation, the Tasks extension and MCP Apps (the ui extension).
	allCaps = capSet{"every feature", `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`}
)

// textCalls are the docs calls whose text the bytes mode measures.
var textCalls = []callKind{
	{`search_actions "group"`, "tools/call", `{"name":"search_actions","arguments":{"query":"group"}}`},
	{`search_actions "禁言"`, "tools/call", `{"name":"search_actions","arguments":{"query":"禁言"}}`},
	{`search_actions "群 禁言" keywords`, "tools/call", `{"name":"search_actions","arguments":{"query":"群 禁言","match":"keywords"}}`},
	{"list_actions {}", "tools/call", `{"name":"list_actions","arguments":{}}`},
	{"list_actions limit 20", "tools/call", `{"name":"list_actions","arguments":{"limit":20}}`},
	{"list_categories", "tools/call", `{"name":"list_categories","arguments":{}}`},
	{"get_action send_group_msg", "tools/call", `{"name":"get_action","arguments":{"name":"send_group_msg"}}`},
	{"get_action set_group_ban", "tools/call", `{"name":"get_action","arguments":{"name":"set_group_ban"}}`},
	{"get_action get_group_member_list", "tools/call", `{"name":"get_action","arguments":{"name":"get_group_member_list"}}`},
	{"get_action upload_file_stream", "tools/call", `{"name":"get_action","arguments":{"name":"upload_file_stream"}}`},
	{"get_runtime_info", "tools/call", `{"name":"get_runtime_info","arguments":{}}`},
}

// tokens estimates how many tokens a model's tokenizer makes of s. It is a
// heuristic, not a tokenizer: a run of ASCII counts one token per four
// bytes (rounded up), the usual figure for English and JSON, and every
// other rune (Chinese in this catalog) one token. Real BPE tokenizers
// differ by tens of percent either way; the figure is for comparing
// answers with each other, not for billing.
func tokens(s string) int {
	n, ascii := 0, 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
			continue
		}
		n += (ascii + 3) / 4
		ascii = 0
		n++
	}
	return n + (ascii+3)/4
}

// sizes runs the bytes mode against server.
func sizes(server string) error {
	fake, err := simulator.New(simulator.WithoutRecording())
	if err != nil {
		return err
	}
	defer fake.Close()
	dir, err := os.MkdirTemp("", "snowluma-bench-bytes")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// Events are configured but never connected: nothing subscribes.
	events := "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/event"
	read := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_DOWNLOAD_DIR=" + dir}
	write := writeMode(fake.URL, dir)
	fmt.Printf("what a model reads, 2026-07-28 era (%s); tokens are an estimate (ASCII bytes/4, one per other rune)\n", time.Now().Format(time.DateOnly))
	fmt.Printf("%-52s %6s %9s %9s %9s\n", "tools/list definitions", "tools", "bytes", "B/tool", "~tokens")
	for _, s := range []struct {
		name string
		env  []string
		caps capSet
	}{
		{"docs", nil, plainCaps},
		{"docs", nil, allCaps},
		{"read", read, plainCaps},
		{"read, events", append(read[:3:3], events), allCaps},
		{"write", write, plainCaps},
		{"write, events, tasks", append(write[:len(write):len(write)], events, "SNOWLUMA_MCP_TASK_DIR="+filepath.Join(dir, "tasks")), allCaps},
	} {
		p, err := spawn(server, s.env, true)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		line, err := p.withCaps(s.caps.caps).roundTrip("tools/list", `{}`)
		p.close()
		if err != nil {
			return fmt.Errorf("%s, %s: tools/list: %w", s.name, s.caps.name, err)
		}
		var resp struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return err
		}
		tools, err := json.Marshal(resp.Result.Tools)
		if err != nil {
			return err
		}
		n := len(resp.Result.Tools)
		fmt.Printf("  %-50s %6d %9d %9d %9d\n", s.name+" mode, "+s.caps.name+" client", n, len(tools), len(tools)/max(n, 1), tokens(string(tools)))
	}
	p, err := spawn(server, write, true)
	if err != nil {
		return err
	}
	defer p.close()
	fmt.Printf("%-52s %6s %9s %9s %9s\n", "text of docs calls (write mode)", "", "bytes", "", "~tokens")
	for _, c := range textCalls {
		line, err := p.roundTrip(c.method, c.params)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		var resp struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || len(resp.Result.Content) != 1 {
			return fmt.Errorf("%s: not one text block (%v): %.200s", c.name, err, line)
		}
		text := resp.Result.Content[0].Text
		fmt.Printf("  %-50s %6s %9d %9s %9d\n", c.name, "", len(text), "", tokens(text))
	}
	return nil
}
