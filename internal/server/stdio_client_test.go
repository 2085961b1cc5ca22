package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

// rpcError returns a response's error object, failing when there is none.
func rpcError(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("not an error response: %v", m)
	}
	return e
}

// TestHostileLines sends each malformed, oversized and deeply nested line
// to one process, each followed by a valid request, which is answered.
func TestHostileLines(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		p := serve(t, era)
		raw, params := e2e.RawSession(t, p, era, "{}")
		deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
		secret := strings.Repeat("x", 64)
		for i, tc := range []struct {
			name, line string
			code       float64
			id         any // nil: the reply has no id
		}{
			{"not JSON", "hello " + secret, -32700, nil},
			{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_m`, -32700, nil},
			{"binary", "\x00\x01\xfe\xff" + secret, -32700, nil},
			{"two messages", `{"jsonrpc":"2.0","id":2,"method":"ping"} {"jsonrpc":"2.0","id":3,"method":"ping"}`, -32700, nil},
			{"empty batch", "[]", -32600, nil},
			{"batch", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600, nil},
			{"deeply nested", deep, -32600, nil},
			{"deeply nested arguments", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_action","arguments":{"name":` + deep + `}}}`, -32600, nil},
			{"oversized", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_action","arguments":{"name":"` + strings.Repeat(secret, 5<<20/64) + `"}}}`, -32600, nil},
			{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, float64(7)},
			{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
			{"array params", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":["` + secret + `"]}`, -32602, float64(8)},
			{"string params", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"list_categories"}`, -32602, float64(9)},
		} {
			raw.Send(tc.line)
			m := raw.Next()
			e := rpcError(t, m)
			if e["code"] != tc.code || m["id"] != tc.id {
				t.Errorf("%s: answered %v", tc.name, m)
			}
			if tc.name == "oversized" && !strings.Contains(e["message"].(string), "4194304 bytes") {
				t.Errorf("oversized: the error does not name the limit: %v", e["message"])
			}
			if tc.code == -32602 && !strings.Contains(e["message"].(string), "_meta") {
				t.Errorf("%s: the error does not say what to send: %v", tc.name, e["message"])
			}
			// The server still serves.
			r := e2e.Result(t, raw.Call(100+i, "tools/call", params(`{"name":"list_categories","arguments":{}}`)))
			if r["isError"] == true {
				t.Errorf("after %s: %v", tc.name, r)
			}
		}
		p.Close()
		stderr := p.Stderr()
		if n := strings.Count(stderr, "refused with"); n != 13 {
			t.Errorf("%d refusal lines on stderr:\n%.3000s", n, stderr)
		}
		if strings.Contains(stderr, secret) || strings.Contains(stderr, "hello") {
			t.Errorf("stderr repeats the input:\n%.3000s", stderr)
		}
	})
}

// TestRequestSizeSetting: SNOWLUMA_MCP_MAX_REQUEST_BYTES moves the limit.
func TestRequestSizeSetting(t *testing.T) {
	t.Parallel()
	p := serve(t, mcptest.Modern, "SNOWLUMA_MCP_MAX_REQUEST_BYTES=65536")
	raw, params := e2e.RawSession(t, p, mcptest.Modern, "{}")
	call := func(id, nameLen int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id,
			params(`{"name":"search_actions","arguments":{"query":"`+strings.Repeat("q", nameLen)+`"}}`))
	}
	raw.Send(call(1, 70000))
	if e := rpcError(t, raw.Next()); e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "65536 bytes") {
		t.Errorf("over the limit: %v", e)
	}
	raw.Send(call(2, 60000))
	if m := raw.Next(); m["id"] != float64(2) || m["result"] == nil {
		t.Errorf("within the limit: %.500v", m)
	}
}

// TestRequestBeforeInitialize: a legacy request sent too early gets a
// standard code and a message saying what to send.
func TestRequestBeforeInitialize(t *testing.T) {
	t.Parallel()
	p := serve(t, mcptest.Legacy)
	raw := p.Raw()
	e := rpcError(t, raw.Call(1, "tools/list", `{}`))
	msg, _ := e["message"].(string)
	if e["code"] != float64(-32600) || !strings.Contains(msg, `"initialize"`) || !strings.Contains(msg, "_meta") {
		t.Errorf("before initialize: %v", e)
	}
	e2e.Result(t, raw.Call(2, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`))
}

func TestDuplicateRequestID(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p := e2e.HangingLive(t, serve, era, "read")
		raw, params := e2e.RawSession(t, p, era, "{}")
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":%s}`, params(`{"name":"query_action","arguments":{"action":"get_status"}}`))
		raw.Send(call)
		e2e.WaitFor(t, "the request to reach SnowLuma", func() bool { return len(fake.Requests()) == 1 })
		raw.Send(call)
		m := raw.Next()
		if e := rpcError(t, m); m["id"] != float64(1) || e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "in flight") {
			t.Errorf("duplicate: %v", m)
		}
		if len(fake.Requests()) != 1 {
			t.Errorf("the duplicate reached SnowLuma")
		}
	})
}

// TestCancelledCallGetsNoResponse: after notifications/cancelled the call
// stops, is logged as cancelled, and nothing answers it, in both eras and
// for a legacy call waiting on the client's elicitation/create.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p := e2e.HangingLive(t, serve, era, "read")
		raw, params := e2e.RawSession(t, p, era, `{"elicitation":{"form":{}}}`)
		raw.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":%s}`, params(`{"name":"query_action","arguments":{"action":"get_status"}}`)))
		e2e.WaitFor(t, "the request to reach SnowLuma", func() bool { return len(fake.Requests()) == 1 })
		raw.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}`)
		e2e.WaitFor(t, "a cancelled call on stderr", func() bool { return strings.Contains(p.Stderr(), "kind=cancelled") })

		if era == mcptest.Legacy {
			// A form the client never answers, then cancels.
			raw.Send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"query_action_with_input","arguments":{"action":"get_msg","params":{}}}}`)
			if m := raw.Next(); m["method"] != "elicitation/create" {
				t.Fatalf("expected elicitation/create, got %v", m)
			}
			raw.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`)
			// The server withdraws its form, and logs the call.
			if m := raw.Next(); m["method"] != "notifications/cancelled" {
				t.Errorf("expected the form to be cancelled, got %v", m)
			}
			e2e.WaitFor(t, "the cancelled form call on stderr", func() bool { return strings.Count(p.Stderr(), "kind=cancelled") == 2 })
		}
		e2e.Result(t, raw.Call(7, "tools/call", params(`{"name":"list_categories","arguments":{}}`)))
		p.Close()
		for _, id := range []float64{5, 6} {
			if e2e.Answered(p, id) {
				t.Errorf("the cancelled call %v was answered", id)
			}
		}
	})
}

// TestNestingAnyDepth: past 64 levels the answer is one -32600 naming the
// limit, whatever the depth (past 10,000 levels encoding/json gives up on
// its own), and the server goes on answering.
func TestNestingAnyDepth(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		p := serve(t, era)
		raw, params := e2e.RawSession(t, p, era, "{}")
		for i, depth := range []int{65, 10_001, 100_000} {
			// The message object and params are two levels; the
			// arguments hold the rest.
			inner := strings.Repeat(`{"a":`, depth-2) + "1" + strings.Repeat("}", depth-2)
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, 10+i, params(`{"name":"get_action","arguments":`+inner+`}`))
			raw.Send(line)
			e := rpcError(t, raw.Next())
			if e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "deeper than 64 levels") {
				t.Errorf("%d levels: %v", depth, e)
			}
			bare := strings.Repeat("[", depth) + strings.Repeat("]", depth)
			raw.Send(bare)
			if e := rpcError(t, raw.Next()); e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "deeper than 64 levels") {
				t.Errorf("%d levels, bare: %v", depth, e)
			}
			if m := raw.Call(20+i, "tools/list", params("{}")); m["result"] == nil {
				t.Errorf("after %d levels: %v", depth, m)
			}
		}
	})
}
