package server_test

import (
	"context"
	"encoding/json"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// sent lists the actions the fake received.
func sent(fake *simulator.Server) []string {
	var out []string
	for _, r := range fake.Requests() {
		out = append(out, r.Action)
	}
	return out
}

type envelope struct {
	Status  string          `json:"status"`
	Retcode json.Number     `json:"retcode"`
	Data    json.RawMessage `json:"data"`
	Wording string          `json:"wording"`
}

func TestGates(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		t.Run("read mode", func(t *testing.T) {
			fake, _, cs := e2e.Live(t, serve, era, "read", nil)
			res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
			if res.IsError || r.Diagnostics.Outcome != "success" {
				t.Fatalf("get_status: %+v", r)
			}
			if env := mcptest.Decode[envelope](t, r.Result); env.Status != "ok" || !mcptest.SameJSON(env.Data, json.RawMessage(`{"online":true,"good":true}`)) {
				t.Errorf("envelope %s", r.Result)
			}
			fake.Reset()

			// A write action through the read-only tool.
			res, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}})
			if !res.IsError || r.Diagnostics.Kind != "write_action" || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_MODE=write") {
				t.Errorf("write through query_action: %+v", r.Diagnostics)
			}
			// invoke_action is not listed in read mode, and calling it anyway
			// is refused by the gate, not by its absence.
			tools, err := cs.ListTools(mcptest.Context(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.Name == "invoke_action" {
					t.Error("invoke_action listed in read mode")
				}
			}
			res, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}})
			if !res.IsError || r.Diagnostics.Kind != "mode_gate" || string(r.Result) != "null" {
				t.Errorf("invoke_action in read mode: %+v", r)
			}
			// Unknown actions are refused by both tools.
			res, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "drop_database"})
			if !res.IsError || r.Diagnostics.Kind != "unknown_action" {
				t.Errorf("unknown action: %+v", r.Diagnostics)
			}
			res, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "群列表"})
			if !res.IsError || r.Diagnostics.Kind != "unknown_action" || !strings.HasPrefix(r.Diagnostics.NextStep, "did you mean get_group_list") {
				t.Errorf("query_action 群列表: %+v", r.Diagnostics)
			}
			if got := sent(fake); len(got) != 0 {
				t.Errorf("refused calls reached SnowLuma: %v", got)
			}
		})
		t.Run("write mode", func(t *testing.T) {
			fake, _, cs := e2e.Live(t, serve, era, "write", nil)
			_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}})
			if r.Diagnostics.Outcome != "success" || !strings.Contains(string(r.Result), `"message_id":-123456`) {
				t.Errorf("send_group_msg: %+v %s", r.Diagnostics, r.Result)
			}
			// An alias reaches SnowLuma under the canonical name.
			// Here SnowLuma does not know fetch_ptt_text (retcode 1404, as
			// for an unknown action), so the server asks get_version_info
			// whether every action is unknown.
			fake.Handle("fetch_ptt_text", func(json.RawMessage) simulator.Reply {
				return simulator.Reply{Envelope: simulator.Envelope{Status: "failed", Retcode: 1404, Wording: "unknown action"}}
			})
			mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_ptt_text", "params": map[string]any{"message_id": "-5"}})
			if got := sent(fake); len(got) != 3 || got[0] != "send_group_msg" || got[1] != "fetch_ptt_text" || got[2] != "get_version_info" {
				t.Errorf("sent %v", got)
			}
			req := fake.Requests()[0]
			if req.Header.Get("Authorization") != "Bearer "+e2e.SecretToken {
				t.Error("token not sent as a bearer header")
			}
			if strings.Contains(req.RawQuery, e2e.SecretToken) || strings.Contains(string(req.Params), e2e.SecretToken) {
				t.Error("token sent outside the header")
			}
		})
		t.Run("docs mode", func(t *testing.T) {
			cs := serve(t, era).Connect(nil)
			res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
			if !res.IsError || r.Diagnostics.Kind != "mode_gate" {
				t.Errorf("query_action in docs mode: %+v", r.Diagnostics)
			}
		})
	})
}

func TestBusinessAndTransportFailures(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p, cs := e2e.Live(t, serve, era, "read", nil)

		// The timeout has a server of its own, with a short call timeout:
		// on the others a busy machine could make any call that long.
		slow, _, slowCS := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_TIMEOUT_MS=400")
		slow.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Reply{Delay: 5 * time.Second} })
		res, r := mcptest.CallTool(t, slowCS, "query_action", map[string]any{"action": "get_status"})
		if !res.IsError || r.Diagnostics.Kind != "timeout" || string(r.Result) != "null" || r.Diagnostics.NextStep == "" {
			t.Errorf("timeout: isError=%v %+v", res.IsError, r)
		}

		fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Failed(1200, "account offline") })
		res, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if res.IsError || r.Diagnostics.Outcome != "failed" || r.Diagnostics.Kind != "business" || !strings.Contains(r.Diagnostics.Message, "account offline") {
			t.Errorf("business failure: isError=%v %+v", res.IsError, r.Diagnostics)
		}
		if env := mcptest.Decode[envelope](t, r.Result); env.Retcode != "1200" || env.Wording != "account offline" {
			t.Errorf("envelope not returned as data: %s", r.Result)
		}

		fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Async() })
		res, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if res.IsError || r.Diagnostics.Outcome != "unknown" {
			t.Errorf("async: %+v", r.Diagnostics)
		}

		for _, tc := range []struct {
			name  string
			reply simulator.Reply
			kind  string
		}{
			{"html body", simulator.Reply{Body: []byte("<html>oops</html>"), ContentType: "text/html"}, "protocol"},
			{"array body", simulator.Reply{Body: []byte(`[1,2]`)}, "protocol"},
			{"unauthorized", simulator.Reply{Status: 401, Body: []byte(`{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`)}, "unauthorized"},
		} {
			fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return tc.reply })
			res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
			if !res.IsError || r.Diagnostics.Kind != tc.kind || string(r.Result) != "null" || r.Diagnostics.NextStep == "" {
				t.Errorf("%s: isError=%v %+v", tc.name, res.IsError, r)
			}
		}

		// Cancellation reaches the HTTP request: the call is abandoned and
		// logged as cancelled.
		fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Reply{Hang: true} })
		cctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		before := len(fake.Requests())
		go func() {
			_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "query_action", Arguments: map[string]any{"action": "get_status"}})
			done <- err
		}()
		e2e.WaitFor(t, "the request to reach SnowLuma", func() bool { return len(fake.Requests()) > before })
		cancel()
		if err := mcptest.Await(t, "the cancelled call to return", done); err == nil {
			t.Error("cancelled call returned no error to the client")
		}
		e2e.WaitFor(t, "a cancelled call on stderr", func() bool { return strings.Contains(p.Stderr(), "kind=cancelled") })
	})
}

func TestUnreachableAndWrongToken(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT=http://"+addr+"/", "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		cs := p.Connect(nil)
		res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if !res.IsError || r.Diagnostics.Kind != "transport" || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_ENDPOINT") {
			t.Errorf("refused: %+v", r.Diagnostics)
		}
		e2e.NoLeak(t, p)

		fake := simtest.Start(t, simulator.WithToken("the-right-one"))
		p = serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken)
		cs = p.Connect(nil)
		res, r = mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"})
		if !res.IsError || r.Diagnostics.Kind != "unauthorized" || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_TOKEN") {
			t.Errorf("wrong token: %+v", r.Diagnostics)
		}
		e2e.NoLeak(t, p)
	})
}

func TestExactNumbers(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil)
		const data = `{"message_id":-2147483648,"real_id":-1,"big":12345678901234567890,"file_size":"1024","none":null,"empty":{},"f":1.50}`
		fake.Handle("get_msg", func(json.RawMessage) simulator.Reply { return simulator.OK(json.RawMessage(data)) })
		res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_msg", "params": json.RawMessage(`{"message_id":-2147483648}`)})
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("%+v", r.Diagnostics)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, data) {
			t.Errorf("data not carried byte for byte:\n%s", text)
		}
		if got := string(fake.Requests()[0].Params); got != `{"message_id":-2147483648}` {
			t.Errorf("params sent as %s", got)
		}
	})
}

func TestParamsCheck(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "write", nil)
		for _, tc := range []struct {
			params  map[string]any
			pointer string
		}{
			{map[string]any{"group_id": "abc", "message": "hi"}, "/group_id"},
			{map[string]any{"group_id": 0, "message": "hi"}, "/group_id"},
			{map[string]any{"message": "hi"}, "group_id"},
			{map[string]any{"group_id": 20001, "message": "hi", "auto_escape": "yes"}, "/auto_escape"},
		} {
			res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": tc.params})
			if !res.IsError || r.Diagnostics.Kind != "invalid_params" || !strings.Contains(r.Diagnostics.Message, tc.pointer) {
				t.Errorf("%v: %+v", tc.params, r.Diagnostics)
			}
		}
		// Undeclared fields pass through: the schemas are open.
		_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi", "future_field": true}})
		if r.Diagnostics.Outcome != "success" {
			t.Errorf("undeclared field: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 1 {
			t.Errorf("sent %v; only the valid call may reach SnowLuma", got)
		}

		// The opt-out sends what the catalog would refuse.
		fake2, _, cs2 := e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_VALIDATE_PARAMS=false")
		_, r = mcptest.CallTool(t, cs2, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": "abc", "message": "hi"}})
		if got := sent(fake2); len(got) != 1 || r.Diagnostics.Kind == "invalid_params" {
			t.Errorf("opt-out: sent %v, %+v", got, r.Diagnostics)
		}
	})
}

func TestGenericStream(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "write", nil)
		res0, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "test_download_stream"})
		// A stream request carries the call's trace context too.
		if got := fake.Requests()[0].Header.Get("traceparent"); got == "" || got != res0.Meta["traceparent"] {
			t.Errorf("stream request traceparent %q, result %v", got, res0.Meta["traceparent"])
		}
		got := mcptest.Decode[struct {
			Frames   []json.RawMessage `json:"frames"`
			Count    int               `json:"count"`
			Terminal envelope          `json:"terminal"`
		}](t, r.Result)
		if r.Diagnostics.Outcome != "success" || got.Count != 10 || len(got.Frames) != 10 || got.Terminal.Status != "ok" {
			t.Fatalf("stream: %+v %s", r.Diagnostics, r.Result)
		}
		if !strings.Contains(string(got.Frames[0]), "data_chunk") {
			t.Errorf("frame data: %s", got.Frames[0])
		}
		res, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "test_download_stream", "params": map[string]any{"error": true}})
		if res.IsError || r.Diagnostics.Outcome != "failed" || r.Diagnostics.Kind != "business" {
			t.Errorf("error frame: %+v", r.Diagnostics)
		}

		// Past 8 MiB of frames the call stops reading and fails.
		chunk := simulator.StreamOK(map[string]any{"type": "stream", "data_type": "data_chunk", "data": strings.Repeat("x", 1<<20)})
		frames := make([][]byte, 12)
		for i := range frames {
			frames[i] = chunk
		}
		fake.Handle("test_download_stream", func(json.RawMessage) simulator.Reply { return simulator.Reply{Frames: frames} })
		res, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "test_download_stream"})
		if !res.IsError || r.Diagnostics.Kind != "too_large" || !strings.Contains(r.Diagnostics.Message, "8 MiB") {
			t.Errorf("oversized stream: %+v", r.Diagnostics)
		}
	})
}

type runtimeInfo struct {
	Mode              string                     `json:"mode"`
	ExecutionEnabled  bool                       `json:"execution_enabled"`
	WriteEnabled      bool                       `json:"write_enabled"`
	CatalogVersion    string                     `json:"catalog_version"`
	ActionCount       int                        `json:"action_count"`
	ServerSupport     string                     `json:"server_support"`
	Transport         map[string]any             `json:"transport"`
	ConnectionChecked bool                       `json:"connection_checked"`
	Checks            map[string]json.RawMessage `json:"checks"`
}

func TestRuntimeInfo(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		t.Run("docs", func(t *testing.T) {
			cs := serve(t, era).Connect(nil)
			_, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
			info := mcptest.Decode[runtimeInfo](t, r.Result)
			if info.Mode != "docs" || info.ExecutionEnabled || info.Transport != nil || info.ConnectionChecked || info.ServerSupport != "unknown" || info.CatalogVersion != "1.11.1" || info.ActionCount != 177 {
				t.Errorf("docs: %+v", info)
			}
			res, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{"check_connection": true})
			if !res.IsError || r.Diagnostics.Kind != "mode_gate" {
				t.Errorf("check in docs mode: %+v", r.Diagnostics)
			}
		})
		t.Run("read", func(t *testing.T) {
			fake, p, cs := e2e.Live(t, serve, era, "read", nil, "SNOWLUMA_MCP_TIMEOUT_MS=1234")
			_, r := mcptest.CallTool(t, cs, "get_runtime_info", nil)
			info := mcptest.Decode[runtimeInfo](t, r.Result)
			if info.Mode != "read" || !info.ExecutionEnabled || info.WriteEnabled || info.ConnectionChecked || info.Transport["request_timeout_ms"] != float64(1234) {
				t.Errorf("read: %+v", info)
			}
			if len(fake.Requests()) != 0 {
				t.Error("overview without check_connection contacted SnowLuma")
			}
			if strings.Contains(string(r.Result), strings.TrimSuffix(strings.TrimPrefix(fake.URL, "http://"), "/")) {
				t.Error("overview shows the endpoint")
			}

			_, r = mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{"check_connection": true})
			info = mcptest.Decode[runtimeInfo](t, r.Result)
			if !info.ConnectionChecked || len(info.Checks) != 3 || r.Diagnostics.Outcome != "success" {
				t.Fatalf("check: %+v %+v", info, r.Diagnostics)
			}
			// The probes run at once, so they arrive in any order.
			if got := slices.Sorted(slices.Values(sent(fake))); strings.Join(got, ",") != "get_login_info,get_status,get_version_info" {
				t.Errorf("sent %v", got)
			}

			// A partial failure stays visible.
			fake.Handle("get_status", func(json.RawMessage) simulator.Reply { return simulator.Failed(1200, "offline") })
			res, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{"check_connection": true})
			info = mcptest.Decode[runtimeInfo](t, r.Result)
			if res.IsError || r.Diagnostics.Outcome != "failed" || !strings.Contains(r.Diagnostics.Message, "get_status") {
				t.Errorf("partial failure: %+v", r.Diagnostics)
			}
			status := mcptest.Decode[mcptest.ToolResult](t, info.Checks["get_status"])
			login := mcptest.Decode[mcptest.ToolResult](t, info.Checks["get_login_info"])
			if status.Diagnostics.Kind != "business" || login.Diagnostics.Outcome != "success" {
				t.Errorf("checks: %s", e2e.MustJSON(t, info.Checks))
			}
			e2e.WaitFor(t, "a log line for get_runtime_info", func() bool { return strings.Contains(p.Stderr(), "tool=get_runtime_info") })
		})
	})
}

func TestCallLog(t *testing.T) {
	t.Parallel()
	fake, p, cs := e2e.Live(t, serve, mcptest.Modern, "write", nil)
	fake.Handle("send_private_msg", func(json.RawMessage) simulator.Reply { return simulator.Failed(100, "blocked") })
	mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_private_msg", "params": map[string]any{"user_id": 30001, "message": "private words here"}})
	// stderr arrives through a pipe: wait for the line.
	e2e.WaitFor(t, "the call's log line", func() bool { return strings.Contains(p.Stderr(), "tool=invoke_action") })
	var line string
	for _, l := range strings.Split(p.Stderr(), "\n") {
		if strings.Contains(l, "tool=invoke_action") {
			line = l
		}
	}
	for _, want := range []string{"action=send_private_msg", "outcome=failed", "kind=business", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %s", line, want)
		}
	}
	for _, never := range []string{"private words", "30001", "blocked", e2e.SecretToken} {
		if strings.Contains(p.Stderr(), never) {
			t.Errorf("stderr carries %q", never)
		}
	}
}
