package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// End-to-end tests of the account-safety policy (README, Safety): what the
// fake SnowLuma receives is the proof of what the server sent.

// credentialActions are the catalog's sensitive actions with params that
// pass their schema.
var credentialActions = map[string]map[string]any{
	"get_cookies":         {"domain": "qun.qq.com"},
	"get_credentials":     {},
	"get_csrf_token":      {},
	"get_clientkey":       {},
	"get_rkey":            {},
	"get_rkey_server":     {},
	"request_decrypt_key": {"db_path": "/data/nt_msg.db"},
	"send_packet":         {"cmd": "OidbSvcTrpcTcp.0xfe1_2", "data": "0800", "rsp": true},
}

// secretAnswer is what the fake answers every credential action with.
const secretAnswer = `{"cookies":"p_skey=S3CRETSKEY; uin=o10001","bkn":987654321,"keys":[{"rkey":"&rkey=S3CRETRKEY","ttl":3600,"ok":true,"extra":null}]}`

func answerSecrets(fake *simulator.Server) {
	for name := range credentialActions {
		fake.Handle(name, func(json.RawMessage) simulator.Reply { return simulator.OK(json.RawMessage(secretAnswer)) })
	}
}

// never is an elicitation handler that must not be reached.
func never(t *testing.T) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("a form was shown")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
}

func TestSensitiveDeniedByDefault(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: never(t)})
		answerSecrets(fake)
		for name, params := range credentialActions {
			tools := []string{"invoke_action", "invoke_action_with_input"}
			if name != "request_decrypt_key" && name != "send_packet" { // the two writes
				tools = append(tools, "query_action", "query_action_with_input")
			}
			for _, tool := range tools {
				res, r := mcptest.CallTool(t, cs, tool, map[string]any{"action": name, "params": params})
				if !res.IsError || r.Diagnostics.Kind != "sensitive" || !strings.Contains(r.Diagnostics.Message, "nothing was sent") || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_SENSITIVE") {
					t.Errorf("%s %s: %+v", tool, name, r.Diagnostics)
				}
			}
		}
		// With a required param missing, the fence comes before the form.
		res, r := mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "request_decrypt_key"})
		if !res.IsError || r.Diagnostics.Kind != "sensitive" {
			t.Errorf("with_input, missing params: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 0 {
			t.Errorf("sent %v", got)
		}
		_, info := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
		if s := mcptest.Decode[map[string]any](t, info.Result)["safety"].(map[string]any); s["sensitive"] != "deny" || s["confirm"] != "none" ||
			s["send_min_interval_ms"] != float64(0) || s["allowed_groups"] != nil || s["audit"] != false {
			t.Errorf("runtime safety %v", s)
		}
		p.Close()
		if strings.Contains(strings.Join(p.Received(), "\n"), "S3CRET") {
			t.Error("a secret reached the client")
		}
	})
}

func TestSensitiveRedactAndAllow(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		// Forms, so that the *_with_input tools are there; complete
		// params never ask.
		fake, p, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}}, "SNOWLUMA_MCP_SENSITIVE=redact")
		answerSecrets(fake)
		for _, tool := range []string{"query_action", "invoke_action", "query_action_with_input", "invoke_action_with_input"} {
			fake.Reset()
			answerSecrets(fake)
			res, r := mcptest.CallTool(t, cs, tool, map[string]any{"action": "get_cookies", "params": map[string]any{"domain": "qun.qq.com"}})
			if res.IsError || r.Diagnostics.Outcome != "success" {
				t.Fatalf("%s: %+v", tool, r.Diagnostics)
			}
			env := mcptest.Decode[envelope](t, r.Result)
			want := `{"cookies":"[redacted]","bkn":"[redacted]","keys":[{"rkey":"[redacted]","ttl":"[redacted]","ok":true,"extra":null}]}`
			if env.Status != "ok" || env.Retcode != "0" || !mcptest.SameJSON(env.Data, json.RawMessage(want)) {
				t.Errorf("%s: redacted answer %s", tool, r.Result)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 || reqs[0].Action != "get_cookies" || !mcptest.SameJSON(reqs[0].Params, json.RawMessage(`{"domain":"qun.qq.com"}`)) {
				t.Errorf("%s: sent %+v", tool, reqs)
			}
		}
		_, info := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
		if s := mcptest.Decode[map[string]any](t, info.Result)["safety"].(map[string]any); s["sensitive"] != "redact" {
			t.Errorf("runtime safety %v", s)
		}
		p.Close()
		if strings.Contains(strings.Join(p.Received(), "\n"), "S3CRET") {
			t.Error("a secret reached the client under redact")
		}

		fake, _, cs = e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_SENSITIVE=allow")
		answerSecrets(fake)
		_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_packet", "params": credentialActions["send_packet"]})
		if env := mcptest.Decode[envelope](t, r.Result); r.Diagnostics.Outcome != "success" || !mcptest.SameJSON(env.Data, json.RawMessage(secretAnswer)) {
			t.Errorf("allow: %+v %s", r.Diagnostics, r.Result)
		}
		if got := sent(fake); len(got) != 1 || got[0] != "send_packet" {
			t.Errorf("allow: sent %v", got)
		}
	})
}

// confirmer answers every form with result and records what it was shown.
type confirmer struct {
	mu     sync.Mutex
	seen   []*mcp.ElicitParams
	result *mcp.ElicitResult
}

func (c *confirmer) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, req.Params)
	return c.result, nil
}

func (c *confirmer) answer(r *mcp.ElicitResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.result, c.seen = r, nil
}

func (c *confirmer) forms() []*mcp.ElicitParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*mcp.ElicitParams(nil), c.seen...)
}

func confirmAnswer(v any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": v}}
}

var kick = map[string]any{"action": "set_group_kick", "params": map[string]any{"group_id": 20001, "user_id": 30001}}

func TestConfirmDestructive(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		c := &confirmer{}
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle}, "SNOWLUMA_MCP_CONFIRM=destructive")
		fake.Handle("set_group_kick", func(json.RawMessage) simulator.Reply { return simulator.OK(nil) })

		for _, tc := range []struct {
			name   string
			answer *mcp.ElicitResult
			kind   string
		}{
			{"declined", &mcp.ElicitResult{Action: "decline"}, "declined"},
			{"cancelled", &mcp.ElicitResult{Action: "cancel"}, "cancelled"},
			{"false", confirmAnswer(false), "not_confirmed"},
		} {
			c.answer(tc.answer)
			res, r := mcptest.CallTool(t, cs, "invoke_action", kick)
			if !res.IsError || r.Diagnostics.Kind != tc.kind || !strings.Contains(r.Diagnostics.Message, "nothing was run") {
				t.Errorf("%s: %+v", tc.name, r.Diagnostics)
			}
			if len(c.forms()) != 1 {
				t.Errorf("%s: %d forms", tc.name, len(c.forms()))
			}
		}
		if got := sent(fake); len(got) != 0 {
			t.Fatalf("refused confirmations sent %v", got)
		}

		c.answer(confirmAnswer(true))
		res, r := mcptest.CallTool(t, cs, "invoke_action", kick)
		if res.IsError || r.Diagnostics.Outcome != "success" {
			t.Fatalf("accepted: %+v", r.Diagnostics)
		}
		forms := c.forms()
		if len(forms) != 1 || forms[0].Mode != "form" {
			t.Fatalf("forms %+v", forms)
		}
		for _, want := range []string{"set_group_kick", "remove 30001 from group 20001", "Remove (kick)"} {
			if !strings.Contains(forms[0].Message, want) {
				t.Errorf("form message %q lacks %q", forms[0].Message, want)
			}
		}
		schema := mcptest.Decode[map[string]any](t, e2e.MustJSON(t, forms[0].RequestedSchema))
		props, _ := schema["properties"].(map[string]any)
		if len(props) != 1 || props["confirm"].(map[string]any)["type"] != "boolean" {
			t.Errorf("form schema %v", schema)
		}
		reqs := fake.Requests()
		if len(reqs) != 1 || reqs[0].Action != "set_group_kick" || !mcptest.SameJSON(reqs[0].Params, json.RawMessage(`{"group_id":20001,"user_id":30001}`)) {
			t.Errorf("sent %+v", reqs)
		}

		// A write that is not destructive runs without a form.
		fake.Reset()
		c.answer(confirmAnswer(false))
		_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}})
		if r.Diagnostics.Outcome != "success" || len(c.forms()) != 0 || len(fake.Requests()) != 1 {
			t.Errorf("plain write: %+v, %d forms", r.Diagnostics, len(c.forms()))
		}

		// *_with_input asks for the missing field and the confirmation in
		// one form.
		fake.Reset()
		fake.Handle("set_group_kick", func(json.RawMessage) simulator.Reply { return simulator.OK(nil) })
		partialKick := map[string]any{"action": "set_group_kick", "params": map[string]any{"group_id": 20001}}
		c.answer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"user_id": 30002, "confirm": false}})
		res, r = mcptest.CallTool(t, cs, "invoke_action_with_input", partialKick)
		if !res.IsError || r.Diagnostics.Kind != "not_confirmed" || len(fake.Requests()) != 0 {
			t.Errorf("with_input, confirm false: %+v", r.Diagnostics)
		}
		if f := c.forms(); len(f) != 1 || !strings.Contains(f[0].Message, "confirm") {
			t.Errorf("combined form %+v", f)
		} else if props := mcptest.Decode[map[string]any](t, e2e.MustJSON(t, f[0].RequestedSchema))["properties"].(map[string]any); props["user_id"] == nil || props["confirm"] == nil {
			t.Errorf("combined form fields %v", props)
		}
		c.answer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"user_id": 30002, "confirm": true}})
		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", partialKick)
		reqs = fake.Requests()
		if r.Diagnostics.Outcome != "success" || len(reqs) != 1 || !mcptest.SameJSON(reqs[0].Params, json.RawMessage(`{"group_id":20001,"user_id":30002}`)) {
			t.Errorf("with_input accepted: %+v, sent %+v", r.Diagnostics, reqs)
		}
		// Complete params through *_with_input: a confirmation-only round.
		fake.Reset()
		fake.Handle("set_group_kick", func(json.RawMessage) simulator.Reply { return simulator.OK(nil) })
		c.answer(&mcp.ElicitResult{Action: "decline"})
		if res, r := mcptest.CallTool(t, cs, "invoke_action_with_input", kick); !res.IsError || r.Diagnostics.Kind != "declined" {
			t.Errorf("with_input complete, declined: %+v", r.Diagnostics)
		}
		c.answer(confirmAnswer(true))
		if _, r := mcptest.CallTool(t, cs, "invoke_action_with_input", kick); r.Diagnostics.Outcome != "success" {
			t.Errorf("with_input complete, accepted: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 1 {
			t.Errorf("sent %v", got)
		}
	})
}

func TestConfirmUnavailable(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_CONFIRM=writes")
		send := map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}}
		res, r := mcptest.CallTool(t, cs, "invoke_action", send)
		if !res.IsError || r.Diagnostics.Kind != "confirmation_unavailable" || !strings.Contains(r.Diagnostics.Message, "SNOWLUMA_MCP_CONFIRM=writes") {
			t.Errorf("invoke_action: %+v", r.Diagnostics)
		}
		// The form tool is not this client's: hidden, and refused.
		if slices.Contains(e2e.ToolNames(t, cs), "invoke_action_with_input") {
			t.Error("invoke_action_with_input listed to a client without forms")
		}
		res, r = mcptest.CallTool(t, cs, "invoke_action_with_input", send)
		if !res.IsError || r.Diagnostics.Kind != "elicitation_unsupported" || r.Diagnostics.NextStep != "call invoke_action with complete params" {
			t.Errorf("invoke_action_with_input: %+v", r.Diagnostics)
		}
		// Reads need no confirmation.
		if _, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"}); r.Diagnostics.Outcome != "success" {
			t.Errorf("read: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 1 || got[0] != "get_status" {
			t.Errorf("sent %v", got)
		}
	})
}

// confirmRound resumes a confirmation with an answer.
func confirmRound(t *testing.T, cs *mcp.ClientSession, tool string, args any, state string, er *mcp.ElicitResult) (*mcp.CallToolResult, mcptest.ToolResult) {
	t.Helper()
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{"confirm": er}})
	if err != nil {
		t.Fatal(err)
	}
	var tr mcptest.ToolResult
	if err := json.Unmarshal(e2e.MustJSON(t, res.StructuredContent), &tr); err != nil {
		t.Fatal(err)
	}
	return res, tr
}

// TestConfirmReplayAndTamper drives the rounds by hand (a 2026-07-28
// client; a legacy client never sees the state).
func TestConfirmReplayAndTamper(t *testing.T) {
	t.Parallel()
	fake, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}},
		"SNOWLUMA_MCP_CONFIRM=destructive")
	fake.Handle("set_group_kick", func(json.RawMessage) simulator.Reply { return simulator.OK(nil) })
	first := interim(t, cs, "invoke_action", kick)
	if _, ok := first.InputRequests["confirm"].(*mcp.ElicitParams); !ok {
		t.Fatalf("input requests %+v", first.InputRequests)
	}
	tampered := []byte(first.RequestState)
	if mid := len(tampered) / 2; tampered[mid] == 'A' {
		tampered[mid] = 'B'
	} else {
		tampered[mid] = 'A'
	}
	other := map[string]any{"action": "set_group_kick", "params": map[string]any{"group_id": 20001, "user_id": 30009}}
	for _, tc := range []struct {
		name, state, say string
		args             any
	}{
		{"tampered", string(tampered), "altered", kick},
		{"other arguments", first.RequestState, "other arguments", other},
		{"no state", "", "without its requestState", kick},
	} {
		res, r := confirmRound(t, cs, "invoke_action", tc.args, tc.state, confirmAnswer(true))
		if !res.IsError || r.Diagnostics.Kind != "continuation" || !strings.Contains(r.Diagnostics.Message, tc.say) {
			t.Errorf("%s: %+v", tc.name, r.Diagnostics)
		}
	}
	// An answer that is not a boolean (the SDK's own client would not send
	// it) runs nothing and spends its state.
	odd := interim(t, cs, "invoke_action", kick)
	if res, r := confirmRound(t, cs, "invoke_action", kick, odd.RequestState, confirmAnswer("yes")); !res.IsError || r.Diagnostics.Kind != "invalid_answer" {
		t.Errorf("string confirm: %+v", r.Diagnostics)
	}
	if res, r := confirmRound(t, cs, "invoke_action", kick, first.RequestState, confirmAnswer(true)); res.IsError {
		t.Fatalf("genuine: %+v", r.Diagnostics)
	}
	res, r := confirmRound(t, cs, "invoke_action", kick, first.RequestState, confirmAnswer(true))
	if !res.IsError || r.Diagnostics.Kind != "continuation" || !strings.Contains(r.Diagnostics.Message, "already used") {
		t.Errorf("replayed: %+v", r.Diagnostics)
	}
	if got := sent(fake); len(got) != 1 {
		t.Errorf("sent %v, want exactly the accepted call", got)
	}
}

func TestSendPacing(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		// A minute between sends to one target: no test run is that slow,
		// so the second send to a target is always refused.
		fake, _, cs := e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=60000", "SNOWLUMA_MCP_SEND_PER_MINUTE=3")
		fake.Handle("send_msg", func(json.RawMessage) simulator.Reply { return simulator.OK(json.RawMessage(`{"message_id":1}`)) })
		send := func(action string, params map[string]any) mcptest.ToolResult {
			t.Helper()
			_, r := mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": action, "params": params})
			return r
		}
		limited := func(r mcptest.ToolResult, what string) {
			t.Helper()
			if r.Diagnostics.Kind != "rate_limited" || r.Diagnostics.RetryAfterMS <= 0 || r.Diagnostics.RetryAfterMS > 60000 || !strings.Contains(r.Diagnostics.Message, "nothing was sent") {
				t.Errorf("%s: %+v", what, r.Diagnostics)
			}
		}
		if r := send("send_group_msg", map[string]any{"group_id": 20001, "message": "one"}); r.Diagnostics.Outcome != "success" {
			t.Fatalf("first: %+v", r.Diagnostics)
		}
		limited(send("send_group_msg", map[string]any{"group_id": 20001, "message": "two"}), "same group")
		limited(send("send_msg", map[string]any{"message_type": "group", "group_id": 20001, "message": "two"}), "same group through send_msg")
		if r := send("send_group_msg", map[string]any{"group_id": 20002, "message": "other"}); r.Diagnostics.Outcome != "success" {
			t.Errorf("another group: %+v", r.Diagnostics)
		}
		if r := send("send_private_msg", map[string]any{"user_id": 30001, "message": "dm"}); r.Diagnostics.Outcome != "success" {
			t.Errorf("a user: %+v", r.Diagnostics)
		}
		// Three sends in this minute: the per-minute budget is spent.
		limited(send("send_private_msg", map[string]any{"user_id": 30002, "message": "dm"}), "per minute")
		// Reads are not paced.
		if _, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"}); r.Diagnostics.Outcome != "success" {
			t.Errorf("read: %+v", r.Diagnostics)
		}
		reqs := fake.Requests()
		want := []string{`{"group_id":20001,"message":"one"}`, `{"group_id":20002,"message":"other"}`, `{"user_id":30001,"message":"dm"}`, `{}`}
		if len(reqs) != len(want) {
			t.Fatalf("sent %d requests: %v", len(reqs), sent(fake))
		}
		for i, w := range want {
			if !mcptest.SameJSON(reqs[i].Params, json.RawMessage(w)) {
				t.Errorf("request %d: %s %s, want %s", i, reqs[i].Action, reqs[i].Params, w)
			}
		}
		_, info := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
		if s := mcptest.Decode[map[string]any](t, info.Result)["safety"].(map[string]any); s["send_min_interval_ms"] != float64(60000) || s["send_per_minute"] != float64(3) {
			t.Errorf("runtime safety %v", s)
		}
	})
}

func TestTargetAllowlist(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		c := &confirmer{}
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle},
			"SNOWLUMA_MCP_ALLOWED_GROUPS=20001, 20003", "SNOWLUMA_MCP_ALLOWED_USERS=30001")
		for _, name := range []string{"get_group_info", "set_group_kick_members", "send_msg"} {
			fake.Handle(name, func(json.RawMessage) simulator.Reply { return simulator.OK(json.RawMessage(`{}`)) })
		}
		refused := []struct {
			tool, action string
			params       map[string]any
			names        string
		}{
			{"query_action", "get_group_info", map[string]any{"group_id": 20002}, "group:20002"},
			{"invoke_action", "set_group_kick_members", map[string]any{"group_id": 20001, "user_id": []any{30001, 30002}}, "user:30002"},
			{"invoke_action", "send_msg", map[string]any{"message_type": "private", "user_id": 30002, "message": "hi"}, "user:30002"},
			{"invoke_action", "send_msg", map[string]any{"group_id": 20002, "message": "hi"}, "group:20002"},
		}
		for _, tc := range refused {
			res, r := mcptest.CallTool(t, cs, tc.tool, map[string]any{"action": tc.action, "params": tc.params})
			if !res.IsError || r.Diagnostics.Kind != "target_not_allowed" || !strings.Contains(r.Diagnostics.Message, tc.names) {
				t.Errorf("%s %v: %+v", tc.action, tc.params, r.Diagnostics)
			}
		}
		// An answer to a form cannot bring in another target either.
		c.answer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"group_id": 20002}})
		if res, r := mcptest.CallTool(t, cs, "query_action_with_input", map[string]any{"action": "get_group_info"}); !res.IsError || r.Diagnostics.Kind != "target_not_allowed" {
			t.Errorf("with_input answer: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 0 {
			t.Fatalf("refused calls sent %v", got)
		}
		// get_group_info's answer holds group 20003's name, written by its
		// admins: the writes elsewhere after it are put to a person, who
		// says yes (the send gate, issue 49).
		c.answer(confirmAnswer(true))
		allowed := []map[string]any{
			{"action": "get_group_info", "params": map[string]any{"group_id": 20003}},
			{"action": "set_group_kick_members", "params": map[string]any{"group_id": 20001, "user_id": []any{30001}}},
			{"action": "send_msg", "params": map[string]any{"message_type": "private", "user_id": 30001, "message": "hi"}},
			{"action": "get_status"},
		}
		for _, args := range allowed {
			if _, r := mcptest.CallTool(t, cs, "invoke_action", args); r.Diagnostics.Outcome != "success" {
				t.Errorf("%v: %+v", args, r.Diagnostics)
			}
		}
		if got := sent(fake); strings.Join(got, ",") != "get_group_info,set_group_kick_members,send_msg,get_status" {
			t.Errorf("sent %v", got)
		}
		_, info := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
		s := mcptest.Decode[map[string]any](t, info.Result)["safety"].(map[string]any)
		if !mcptest.SameJSON(e2e.MustJSON(t, s["allowed_groups"]), json.RawMessage(`[20001,20003]`)) || !mcptest.SameJSON(e2e.MustJSON(t, s["allowed_users"]), json.RawMessage(`[30001]`)) {
			t.Errorf("runtime safety %v", s)
		}

		// Without the params check, ids as strings or fractions still meet
		// the allowlist: a string is read as the id it spells, and what is
		// not an id is refused.
		fake, _, cs = e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_VALIDATE_PARAMS=false", "SNOWLUMA_MCP_ALLOWED_GROUPS=20001")
		for params, say := range map[string]string{`{"group_id":"20002"}`: "group:20002", `{"group_id":20001.5}`: "not an id", `{"group_id":[20001,"x"]}`: "not an id"} {
			res, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_group_info", "params": json.RawMessage(params)})
			if !res.IsError || r.Diagnostics.Kind != "target_not_allowed" || !strings.Contains(r.Diagnostics.Message, say) {
				t.Errorf("%s: %+v", params, r.Diagnostics)
			}
		}
		if got := sent(fake); len(got) != 0 {
			t.Errorf("sent %v", got)
		}
	})
}

// auditLine is one line of the audit file.
type auditLine struct {
	Time        string  `json:"time"`
	Tool        string  `json:"tool"`
	Action      string  `json:"action"`
	Groups      []int64 `json:"groups"`
	Users       []int64 `json:"users"`
	Outcome     string  `json:"outcome"`
	Kind        string  `json:"kind"`
	Traceparent string  `json:"traceparent"`
}

func TestAuditFile(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		fake, p, cs := e2e.Live(t, serve, era, "write", nil, "SNOWLUMA_MCP_AUDIT_FILE="+path, "SNOWLUMA_MCP_ALLOWED_GROUPS=20001")
		fake.Handle("set_group_kick_members", func(json.RawMessage) simulator.Reply { return simulator.Failed(100, "not admin") })
		const text = "audit-must-not-see-this"
		calls := []map[string]any{
			{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": text}},
			{"action": "get_status"}, // a read: not recorded
			{"action": "send_group_msg", "params": map[string]any{"group_id": 20002, "message": text}},
			{"action": "set_group_kick_members", "params": map[string]any{"group_id": 20001, "user_id": []any{30001, 30002}}},
			{"action": "get_cookies"}, // a read, and refused: not recorded
		}
		for _, args := range calls {
			mcptest.CallTool(t, cs, "invoke_action", args)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), text) || strings.Contains(string(b), e2e.SecretToken) {
			t.Errorf("audit file holds a payload or the token:\n%s", b)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		want := []auditLine{
			{Tool: "invoke_action", Action: "send_group_msg", Groups: []int64{20001}, Users: []int64{}, Outcome: "success"},
			{Tool: "invoke_action", Action: "send_group_msg", Groups: []int64{20002}, Users: []int64{}, Outcome: "failed", Kind: "target_not_allowed"},
			{Tool: "invoke_action", Action: "set_group_kick_members", Groups: []int64{20001}, Users: []int64{30001, 30002}, Outcome: "failed", Kind: "business"},
		}
		if len(lines) != len(want) {
			t.Fatalf("%d lines:\n%s", len(lines), b)
		}
		for i, l := range lines {
			var got auditLine
			dec := json.NewDecoder(strings.NewReader(l))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("line %d %q: %v", i, l, err)
			}
			if got.Time == "" || len(got.Traceparent) != 55 {
				t.Errorf("line %d lacks time or traceparent: %s", i, l)
			}
			got.Time, got.Traceparent = "", ""
			if mustJSONString(t, got) != mustJSONString(t, want[i]) {
				t.Errorf("line %d: %s, want %+v", i, l, want[i])
			}
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("audit file mode %v, %v", fi.Mode(), err)
		}

		// The file can no longer be written (a directory took its place;
		// a mode change would not stop root): writes are refused, reads go on.
		fake.Reset()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		res, r := mcptest.CallTool(t, cs, "invoke_action", calls[0])
		if !res.IsError || r.Diagnostics.Kind != "audit_failed" || !strings.Contains(r.Diagnostics.Message, "was not run") || strings.Contains(r.Diagnostics.Message, path) {
			t.Errorf("unwritable audit: %+v", r.Diagnostics)
		}

		if _, r := mcptest.CallTool(t, cs, "query_action", map[string]any{"action": "get_status"}); r.Diagnostics.Outcome != "success" {
			t.Errorf("read with an unwritable audit: %+v", r.Diagnostics)
		}
		if got := sent(fake); len(got) != 1 || got[0] != "get_status" {
			t.Errorf("sent %v", got)
		}
		p.Close() // so that stderr is complete
		if !strings.Contains(p.Stderr(), "is a directory") {
			t.Errorf("stderr does not say why the audit failed")
		}
	})
}

func mustJSONString(t *testing.T, v any) string { return string(e2e.MustJSON(t, v)) }

// TestSafetyFlagsShown checks that the catalog's safety flags reach the
// client through get_action, list_actions and the catalog resource.
func TestSafetyFlagsShown(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		cs := docsSession(t, era)
		_, r := mcptest.CallTool(t, cs, "get_action", map[string]any{"name": "get_cookies"})
		if a := mcptest.Decode[map[string]any](t, r.Result); a["sensitive"] != true || a["destructive"] != nil {
			t.Errorf("get_action get_cookies: sensitive %v destructive %v", a["sensitive"], a["destructive"])
		}
		_, r = mcptest.CallTool(t, cs, "list_actions", map[string]any{"read_only": false, "limit": 200})
		flags := map[string]map[string]any{}
		for _, a := range mcptest.Decode[struct {
			Actions []map[string]any `json:"actions"`
		}](t, r.Result).Actions {
			flags[a["name"].(string)] = a
		}
		if flags["set_group_kick"]["destructive"] != true || flags["send_group_msg"]["send"] != true || flags["request_decrypt_key"]["sensitive"] != true {
			t.Errorf("list_actions flags: %v %v %v", flags["set_group_kick"], flags["send_group_msg"], flags["request_decrypt_key"])
		}
		if _, ok := flags["set_group_card"]["destructive"]; ok {
			t.Error("an unflagged entry shows destructive")
		}
		res, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: "snowluma://onebot/actions"})
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Actions []map[string]any `json:"actions"`
		}
		if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range doc.Actions {
			if a["sensitive"] == true {
				n++
			}
		}
		if n != len(credentialActions) {
			t.Errorf("resource: %d sensitive actions, want %d", n, len(credentialActions))
		}
	})
}
