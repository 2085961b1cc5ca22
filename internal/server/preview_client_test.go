package server_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// appsCaps advertises the MCP Apps extension with its HTML view type.
func appsCaps(mimeTypes ...string) *mcp.ClientOptions {
	return &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{
		Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": mimeTypes}},
	}}
}

type previewResult struct {
	Draft struct {
		MessageType string `json:"message_type"`
		TargetID    int64  `json:"target_id"`
		ReplyTo     *int32 `json:"reply_to"`
		Text        string `json:"text"`
		Readable    string `json:"readable"`
	} `json:"draft"`
	CanSend    bool   `json:"can_send"`
	CannotSend string `json:"cannot_send"`
	Invoke     struct {
		Action string          `json:"action"`
		Params json.RawMessage `json:"params"`
	} `json:"invoke"`
}

// TestPreviewMessage: in every mode the tool drafts without contacting
// SnowLuma; only write mode can send, and the prepared call, made with
// invoke_action, delivers the text literally.
func TestPreviewMessage(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		args := map[string]any{"message_type": "group", "target_id": 20001, "text": hostile, "reply_to": -123456}
		for _, mode := range []string{"docs", "read", "write"} {
			t.Run(mode, func(t *testing.T) {
				fake, _, cs := e2e.Live(t, serve, era, mode, nil)
				_, tr := mcptest.CallTool(t, cs, "preview_message", args)
				if tr.Diagnostics.Outcome != "success" {
					t.Fatalf("preview: %+v", tr.Diagnostics)
				}
				p := mcptest.Decode[previewResult](t, tr.Result)
				if p.Draft.Text != hostile || p.Draft.TargetID != 20001 || p.Draft.ReplyTo == nil || *p.Draft.ReplyTo != -123456 {
					t.Errorf("draft %+v", p.Draft)
				}
				if !strings.Contains(p.Draft.Readable, "quoting message -123456") || !strings.HasSuffix(p.Draft.Readable, hostile) {
					t.Errorf("readable %q", p.Draft.Readable)
				}
				if p.CanSend != (mode == "write") || (p.CanSend == (p.CannotSend != "")) {
					t.Errorf("%s mode: can_send %v, reason %q", mode, p.CanSend, p.CannotSend)
				}
				if p.Invoke.Action != "send_group_msg" {
					t.Errorf("invoke %s", p.Invoke.Action)
				}
				if n := len(fake.Requests()); n != 0 {
					t.Fatalf("preview_message contacted SnowLuma (%v)", sent(fake))
				}
				if mode != "write" {
					return
				}
				_, sentRes := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": p.Invoke.Action, "params": p.Invoke.Params})
				if sentRes.Diagnostics.Outcome != "success" {
					t.Fatalf("invoke: %+v", sentRes.Diagnostics)
				}
				reqs := fake.Requests()
				want := `{"group_id":20001,"message":[{"type":"reply","data":{"id":"-123456"}},{"type":"text","data":{"text":` + string(e2e.MustJSON(t, hostile)) + `}}]}`
				if len(reqs) != 1 || !mcptest.SameJSON(reqs[0].Params, json.RawMessage(want)) {
					t.Errorf("SnowLuma got %d requests, first %s; want %s", len(reqs), reqs[0].Params, want)
				}
			})
		}
	})
}

// TestPreviewMessageNamesBadArguments: every bad argument is named in one
// answer, and nothing is prepared.
func TestPreviewMessageNamesBadArguments(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := serve(t, era).Connect(nil)
		for _, tc := range []struct {
			args   map[string]any
			fields []string
		}{
			{map[string]any{}, []string{"message_type", "target_id", "text"}},
			{map[string]any{"message_type": "discuss", "target_id": 0, "text": "", "reply_to": 0}, []string{"message_type", "target_id", "text", "reply_to"}},
			{map[string]any{"message_type": "group", "target_id": 9007199254740992, "text": strings.Repeat("a", 4501), "reply_to": 2147483648}, []string{"target_id", "text", "reply_to"}},
			{map[string]any{"message_type": "group", "target_id": 1.5, "text": "x", "reply_to": -2147483649}, []string{"target_id", "reply_to"}},
			{map[string]any{"message_type": "group", "target_id": "20001", "text": 7}, []string{"target_id", "text"}},
			{map[string]any{"message_type": "group", "target_id": 1, "text": "x", "group_id": 1}, []string{"group_id"}},
		} {
			res, tr := mcptest.CallTool(t, cs, "preview_message", tc.args)
			if !res.IsError || tr.Diagnostics.Kind != "invalid_arguments" || string(tr.Result) != "null" {
				t.Errorf("%v: %+v %s", tc.args, tr.Diagnostics, tr.Result)
				continue
			}
			for _, f := range tc.fields {
				if !strings.Contains(tr.Diagnostics.Message, "/"+f+":") {
					t.Errorf("%v: %q does not name %s", tc.args, tr.Diagnostics.Message, f)
				}
			}
		}
	})
}

// TestPreviewPanelListing: only a client advertising the Apps extension
// with text/html;profile=mcp-app sees the tool's resourceUri and the panel
// in resources/list, per request (2026-07-28) or from initialize (legacy);
// anyone can read the panel.
func TestPreviewPanelListing(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		for _, tc := range []struct {
			name  string
			opts  *mcp.ClientOptions
			shown bool
		}{
			{"plain", nil, false},
			{"apps", appsCaps("text/html;profile=mcp-app"), true},
			{"apps-other-type", appsCaps("text/html"), false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cs := serve(t, era).Connect(tc.opts)
				tools, err := cs.ListTools(mcptest.Context(t), nil)
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(tools.Tools, func(x *mcp.Tool) bool { return x.Name == "preview_message" })
				if i < 0 {
					t.Fatal("preview_message not listed")
				}
				meta, _ := json.Marshal(tools.Tools[i].Meta)
				want := `{"ui":{"resourceUri":"` + server.PreviewPanelURI + `"}}`
				if tc.shown != (string(meta) == want) || (!tc.shown && string(meta) != "null") {
					t.Errorf("tool _meta %s (shown %v)", meta, tc.shown)
				}
				res, err := cs.ListResources(mcptest.Context(t), nil)
				if err != nil {
					t.Fatal(err)
				}
				listed := slices.ContainsFunc(res.Resources, func(r *mcp.Resource) bool { return r.URI == server.PreviewPanelURI })
				if listed != tc.shown || !slices.ContainsFunc(res.Resources, func(r *mcp.Resource) bool { return r.URI == server.CatalogURI }) {
					t.Errorf("resources %d, panel listed %v (want %v)", len(res.Resources), listed, tc.shown)
				}
				read, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: server.PreviewPanelURI})
				if err != nil {
					t.Fatal(err)
				}
				c := read.Contents[0]
				cmeta, _ := json.Marshal(c.Meta)
				if c.MIMEType != "text/html;profile=mcp-app" || !strings.HasPrefix(c.Text, "<!doctype html>") ||
					string(cmeta) != `{"ui":{"csp":{"connectDomains":[],"frameDomains":[],"resourceDomains":[]},"prefersBorder":true}}` {
					t.Errorf("panel read: %s, %d bytes, _meta %s", c.MIMEType, len(c.Text), cmeta)
				}
			})
		}
	})
}

// TestPreviewPanelCacheHints: a 2026-07-28 read of the panel carries the
// public five-minute hints of a bundled asset, and advertising the Apps
// extension per request is what lists it.
func TestPreviewPanelCacheHints(t *testing.T) {
	t.Parallel()
	raw := serve(t, mcptest.Modern).Raw()
	plain := mcptest.ModernMeta("2026-07-28")
	apps := strings.Replace(plain, `"io.modelcontextprotocol/clientCapabilities":{}`,
		`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`, 1)
	rr := e2e.Result(t, raw.Call(1, "resources/read", `{"uri":"`+server.PreviewPanelURI+`","_meta":`+plain+`}`))
	checkHint(t, "resources/read", rr, 300000, "public")
	for i, tc := range []struct {
		meta  string
		shown bool
	}{{plain, false}, {apps, true}} {
		rl := e2e.Result(t, raw.Call(2+i, "resources/list", `{"_meta":`+tc.meta+`}`))
		b, _ := json.Marshal(rl["resources"])
		if strings.Contains(string(b), server.PreviewPanelURI) != tc.shown {
			t.Errorf("resources/list with apps=%v: %s", tc.shown, b)
		}
	}
}

// TestPreviewPanelLanguage: an Apps client's preview_message results, the
// refused ones too, carry the server's language and mode for the panel
// (server.PanelMetaKey): SNOWLUMA_MCP_LANG, else the locale, else English.
// A client that cannot show the panel gets none of it.
func TestPreviewPanelLanguage(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		good := map[string]any{"message_type": "private", "target_id": 30001, "text": "你好"}
		bad := map[string]any{"message_type": "private", "target_id": 0, "text": "你好"}
		for _, tc := range []struct {
			name string
			opts *mcp.ClientOptions
			env  []string
			want string // the entry's JSON, "" for none
		}{
			{"default", appsCaps("text/html;profile=mcp-app"), []string{"SNOWLUMA_MCP_MODE=docs"}, `{"lang":"en","mode":"docs"}`},
			{"variable", appsCaps("text/html;profile=mcp-app"), []string{"SNOWLUMA_MCP_MODE=docs", "SNOWLUMA_MCP_LANG=zh", "LANG=en_US.UTF-8"}, `{"lang":"zh","mode":"docs"}`},
			{"locale", appsCaps("text/html;profile=mcp-app"), []string{"SNOWLUMA_MCP_MODE=docs", "LC_ALL=zh_CN.UTF-8"}, `{"lang":"zh","mode":"docs"}`},
			{"plain", nil, []string{"SNOWLUMA_MCP_MODE=docs", "SNOWLUMA_MCP_LANG=zh"}, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cs := serve(t, era, tc.env...).Connect(tc.opts)
				for _, args := range []map[string]any{good, bad} {
					res, tr := mcptest.CallTool(t, cs, "preview_message", args)
					if (tr.Diagnostics.Outcome == "success") != (args["target_id"] != 0) {
						t.Fatalf("%v: %+v", args, tr.Diagnostics)
					}
					entry, found := res.Meta[server.PanelMetaKey]
					got, _ := json.Marshal(entry)
					if found != (tc.want != "") || (found && string(got) != tc.want) {
						t.Errorf("%v: _meta %v, want %s=%s", args, res.Meta, server.PanelMetaKey, tc.want)
					}
				}
			})
		}
		// The mode is the server's own.
		fake := simtest.Start(t)
		cs := serve(t, era, "SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_ENDPOINT="+fake.URL).Connect(appsCaps("text/html;profile=mcp-app"))
		res, _ := mcptest.CallTool(t, cs, "preview_message", good)
		if got, _ := json.Marshal(res.Meta[server.PanelMetaKey]); string(got) != `{"lang":"en","mode":"read"}` {
			t.Errorf("read mode: _meta %v", res.Meta)
		}
	})
}
