package server_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

var supported = []any{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}

func TestModernNoHandshake(t *testing.T) {
	t.Parallel()
	p := serve(t, mcptest.Modern)
	raw := p.Raw()
	meta := mcptest.ModernMeta("2026-07-28")

	r := e2e.Result(t, raw.Call(1, "tools/list", `{"_meta":`+meta+`}`))
	if r["resultType"] != "complete" {
		t.Errorf("resultType = %v", r["resultType"])
	}
	info, _ := r["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
	if info["name"] != "snowluma-mcp" || info["version"] == "" {
		t.Errorf("serverInfo = %v", info)
	}
	checkHint(t, "tools/list", r, 300000, "private")
	var names []string
	for _, tool := range r["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if want := []string{"get_action", "get_runtime_info", "list_actions", "list_categories", "preview_message", "search_actions"}; !slices.Equal(names, want) {
		t.Errorf("docs-mode tools = %v, want %v (sorted by name)", names, want)
	}

	checkHint(t, "resources/list", e2e.Result(t, raw.Call(2, "resources/list", `{"_meta":`+meta+`}`)), 300000, "private")
	checkHint(t, "resources/templates/list", e2e.Result(t, raw.Call(3, "resources/templates/list", `{"_meta":`+meta+`}`)), 300000, "public")
	rr := e2e.Result(t, raw.Call(4, "resources/read", `{"uri":"snowluma://onebot/actions","_meta":`+meta+`}`))
	checkHint(t, "resources/read", rr, 300000, "public")

	call := e2e.Result(t, raw.Call(5, "tools/call", `{"name":"list_categories","arguments":{},"_meta":`+meta+`}`))
	if _, ok := call["ttlMs"]; ok {
		t.Error("tools/call carries ttlMs")
	}
	if _, ok := call["cacheScope"]; ok {
		t.Error("tools/call carries cacheScope")
	}
	if call["resultType"] != "complete" {
		t.Errorf("tools/call resultType = %v", call["resultType"])
	}
}

func checkHint(t *testing.T, method string, r map[string]any, ttl float64, scope string) {
	t.Helper()
	if r["ttlMs"] != ttl || r["cacheScope"] != scope {
		t.Errorf("%s: ttlMs=%v cacheScope=%v, want %v %s", method, r["ttlMs"], r["cacheScope"], ttl, scope)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	p := serve(t, mcptest.Modern)
	r := e2e.Result(t, p.Raw().Call(1, "server/discover", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`))
	if got := r["supportedVersions"]; fmt.Sprint(got) != fmt.Sprint(supported) {
		t.Errorf("supportedVersions = %v, want %v", got, supported)
	}
	if info, _ := r["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any); info["name"] != "snowluma-mcp" {
		t.Errorf("serverInfo = %v", r["serverInfo"])
	}
	caps, _ := r["capabilities"].(map[string]any)
	if _, ok := caps["tools"]; !ok {
		t.Errorf("capabilities = %v", caps)
	}
	if _, ok := caps["logging"]; ok {
		t.Error("logging capability advertised; stderr is the log")
	}
}

// TestUnsupportedRevision checks the -32022 answer to a 2026-07-28
// request at a revision not served, and the stderr line that says so to
// the person whose host shows only "disconnected".
func TestUnsupportedRevision(t *testing.T) {
	t.Parallel()
	p := serve(t, mcptest.Modern)
	m := p.Raw().Call(1, "tools/call", `{"name":"list_categories","_meta":`+mcptest.ModernMeta("2099-01-01")+`}`)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error: %v", m)
	}
	if e["code"] != float64(-32022) {
		t.Errorf("code = %v, want -32022", e["code"])
	}
	data, _ := e["data"].(map[string]any)
	if fmt.Sprint(data["supported"]) != fmt.Sprint(supported) || data["requested"] != "2099-01-01" {
		t.Errorf("data = %v", data)
	}
	e2e.WaitFor(t, "the stderr line naming the revisions", func() bool { return strings.Contains(p.Stderr(), revisionLine("2099-01-01")) })
}

// revisionLine is the part of the stderr line that names a revision not
// served and the revisions served.
func revisionLine(requested string) string {
	var served []string
	for _, v := range supported {
		served = append(served, v.(string))
	}
	return fmt.Sprintf("client asked for MCP revision %q, which this server does not serve (it serves %s)", requested, strings.Join(served, ", "))
}

// TestLegacyCounterOffer: a legacy initialize at a revision not served
// (2024-11-05, which older hosts send) is answered with the newest legacy
// revision served, as the legacy lifecycle asks, with a stderr line; a
// client that accepts the offer goes on, one that does not disconnects
// and the server ends cleanly.
func TestLegacyCounterOffer(t *testing.T) {
	t.Parallel()
	const old = `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}`
	offer := func(t *testing.T, p *mcptest.Proc, m map[string]any) {
		t.Helper()
		r := e2e.Result(t, m)
		if r["protocolVersion"] != "2025-11-25" {
			t.Fatalf("offered %v, want 2025-11-25", r["protocolVersion"])
		}
		if info, _ := r["serverInfo"].(map[string]any); info["name"] != "snowluma-mcp" {
			t.Errorf("serverInfo %v", r["serverInfo"])
		}
		e2e.WaitFor(t, "the stderr line naming the revisions", func() bool {
			return strings.Contains(p.Stderr(), revisionLine("2024-11-05")+"; answered initialize with 2025-11-25")
		})
	}
	t.Run("accepted", func(t *testing.T) {
		t.Parallel()
		p := serve(t, mcptest.Legacy)
		raw := p.Raw()
		offer(t, p, raw.Call(1, "initialize", old))
		raw.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		r := e2e.Result(t, raw.Call(2, "tools/call", `{"name":"list_categories","arguments":{}}`))
		if r["isError"] == true || r["structuredContent"] == nil {
			t.Errorf("a call after accepting the offer: %v", r)
		}
	})
	t.Run("declined", func(t *testing.T) {
		t.Parallel()
		p := serve(t, mcptest.Legacy)
		offer(t, p, p.Raw().Call(1, "initialize", old))
		// The client does not speak 2025-11-25: it goes away.
		p.Close()
		if code, stopped := p.Code(); !stopped || code != 0 {
			t.Errorf("exit %d (stopped %v) after a declined offer\nstderr:\n%s", code, stopped, p.Stderr())
		}
	})
	t.Run("hostile revision", func(t *testing.T) {
		t.Parallel()
		// A revision is the client's text: on stderr it is quoted, and a
		// long one is cut short.
		p := serve(t, mcptest.Legacy)
		hostile := "\x1b[31m" + strings.Repeat("9", 300)
		quoted, _ := json.Marshal(hostile)
		r := e2e.Result(t, p.Raw().Call(1, "initialize", `{"protocolVersion":`+string(quoted)+`,"capabilities":{},"clientInfo":{"name":"odd","version":"1"}}`))
		if r["protocolVersion"] != "2025-11-25" {
			t.Fatalf("hostile revision: %v", r)
		}
		e2e.WaitFor(t, "the hostile revision's stderr line", func() bool { return strings.Contains(p.Stderr(), `revision "\x1b[31m999`) })
		if strings.Contains(p.Stderr(), "\x1b") || strings.Contains(p.Stderr(), strings.Repeat("9", 100)) {
			t.Errorf("stderr carries the revision raw or whole:\n%s", p.Stderr())
		}
	})
}

func TestLegacyRevisions(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			era := mcptest.Legacy
			p := serve(t, era)
			raw := p.Raw()
			r := e2e.Result(t, raw.Call(1, "initialize", fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}`, v)))
			if r["protocolVersion"] != v {
				t.Fatalf("negotiated %v, want %s", r["protocolVersion"], v)
			}
			raw.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			tl := e2e.Result(t, raw.Call(2, "tools/list", `{}`))
			// ttlMs and cacheScope are always encoded by the SDK; the
			// 2025-11-25 schema allows them as extra fields (checked on
			// every line), but the modern resultType must not leak.
			if _, ok := tl["resultType"]; ok {
				t.Error("legacy tools/list carries resultType")
			}
			if n := len(tl["tools"].([]any)); n != 6 {
				t.Errorf("%d tools", n)
			}
		})
	}
}

func TestStdoutIsProtocolOnly(t *testing.T) {
	t.Parallel()
	p := serve(t, mcptest.Modern)
	raw := p.Raw()
	raw.Call(1, "tools/list", `{"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`)
	for _, l := range p.Received() {
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0"`) {
			t.Errorf("stdout line is not JSON-RPC: %q", l)
		}
	}
	e2e.WaitFor(t, "the start-up line", func() bool {
		return strings.Contains(p.Stderr(), "SnowLuma catalog 1.11.1, 177 actions in 11 categories")
	})
}
