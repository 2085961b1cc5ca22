package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// TestPastedTokenAndUserAgent checks, over the wire, that a token pasted
// with a CRLF line end still authenticates (it is trimmed at start) and that
// every request names the server in its User-Agent.
func TestPastedTokenAndUserAgent(t *testing.T) {
	forEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p, cs := live(t, era, "read", "SNOWLUMA_MCP_TOKEN="+secretToken+"\r\n")
		res, r := callTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if res.IsError || r.Diagnostics.Outcome != "success" {
			t.Fatalf("with a CRLF-ended token: %+v", r.Diagnostics)
		}
		reqs := fake.Requests()
		if len(reqs) == 0 {
			t.Fatal("nothing reached SnowLuma")
		}
		for _, req := range reqs {
			if ua := req.Header.Get("User-Agent"); !strings.HasPrefix(ua, "snowluma-mcp/") || len(ua) == len("snowluma-mcp/") {
				t.Errorf("%s: User-Agent %q, want snowluma-mcp/<version>", req.Action, ua)
			}
		}
		// Started by a host, with stdin a pipe: no terminal hint.
		if strings.Contains(p.Stderr(), hintWords) {
			t.Errorf("terminal hint with stdin a pipe: %q", p.Stderr())
		}
	})
}

// TestProtocolFailureNamesWhatCame checks that an answer that is not a
// OneBot envelope (the wrong path of some web server) is reported with its
// HTTP status and content type.
func TestProtocolFailureNamesWhatCame(t *testing.T) {
	forEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := live(t, era, "read")
		fake.Handle("get_status", func(json.RawMessage) fakesnowluma.Reply {
			return fakesnowluma.Reply{Status: 404, ContentType: "text/plain; charset=utf-8", Body: []byte("404 page not found")}
		})
		res, r := callTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if !res.IsError || r.Diagnostics.Kind != "protocol" ||
			!strings.Contains(r.Diagnostics.Message, "HTTP 404, text/plain: not a OneBot envelope") ||
			!strings.Contains(r.Diagnostics.Message, "check the endpoint path") {
			t.Errorf("diagnostics %+v", r.Diagnostics)
		}
		if strings.Contains(r.Diagnostics.Message, "page not found") {
			t.Errorf("the body is quoted: %q", r.Diagnostics.Message)
		}
	})
}
