package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// formAnswer is a client's elicitation handler that answers params_json.
func formAnswer(paramsJSON string, seen *[]*mcp.ElicitParams, mu *sync.Mutex) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		*seen = append(*seen, req.Params)
		mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"params_json": paramsJSON}}, nil
	}
}

var partial = map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001}}

// TestInputWholeLoop runs the round as a host would: the go-sdk client's
// own machinery answers the form, modern clients through input_required and
// legacy ones through elicitation/create.
func TestInputWholeLoop(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		fake, p, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: formAnswer(`{"message":"Hello"}`, &seen, &mu)})
		_, r := mcptest.CallTool(t, cs, "invoke_action_with_input", partial)
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("%+v", r.Diagnostics)
		}
		reqs := fake.Requests()
		if len(reqs) != 1 || reqs[0].Action != "send_group_msg" || !mcptest.SameJSON(reqs[0].Params, json.RawMessage(`{"group_id":20001,"message":"Hello"}`)) {
			t.Errorf("sent %+v", reqs)
		}
		if len(seen) != 1 || !strings.Contains(seen[0].Message, "send_group_msg") || !strings.Contains(seen[0].Message, "message") {
			t.Fatalf("form: %+v", seen)
		}
		schema := mcptest.Decode[map[string]any](t, e2e.MustJSON(t, seen[0].RequestedSchema))
		if props, _ := schema["properties"].(map[string]any); len(props) != 1 || props["params_json"] == nil {
			t.Errorf("form schema %v", schema)
		}
		// The legacy round is the server's own elicitation/create request.
		sawElicit := false
		for _, l := range p.Received() {
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal([]byte(l), &m) == nil && m.Method == "elicitation/create" {
				sawElicit = true
			}
		}
		if sawElicit != (era == mcptest.Legacy) {
			t.Errorf("%s: elicitation/create sent: %v", era, sawElicit)
		}

		// Complete arguments skip the round.
		seen = nil
		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "direct"}})
		if r.Diagnostics.Outcome != "success" || len(seen) != 0 {
			t.Errorf("complete args: %+v, %d forms", r.Diagnostics, len(seen))
		}
	})
}

func TestInputNoElicitation(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "write", nil)
		res, r := mcptest.CallTool(t, cs, "invoke_action_with_input", partial)
		if !res.IsError || r.Diagnostics.Kind != "elicitation_unsupported" || !strings.Contains(r.Diagnostics.NextStep, "invoke_action") {
			t.Errorf("%+v", r.Diagnostics)
		}
		if len(fake.Requests()) != 0 {
			t.Error("something was sent")
		}
	})
}

// interim is the first, input-required round of a modern client whose
// multi-round-trip middleware is off.
func interim(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("not an input-required result: %+v", res)
	}
	return res
}

// answer resumes a continuation with an elicitation result.
func answer(t *testing.T, cs *mcp.ClientSession, tool string, args any, state string, er *mcp.ElicitResult) (*mcp.CallToolResult, mcptest.ToolResult) {
	t.Helper()
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{"params": er}})
	if err != nil {
		t.Fatal(err)
	}
	var tr mcptest.ToolResult
	if err := json.Unmarshal(e2e.MustJSON(t, res.StructuredContent), &tr); err != nil {
		t.Fatal(err)
	}
	return res, tr
}

func accept(paramsJSON string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"params_json": paramsJSON}}
}

func TestInputModernRounds(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []*mcp.ElicitParams
	fake, p, cs := e2e.Live(t, serve, mcptest.Modern, "write", &mcp.ClientOptions{
		ElicitationHandler: formAnswer("{}", &seen, &mu),
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	const tool = "invoke_action_with_input"

	res := interim(t, cs, tool, partial)
	form, ok := res.InputRequests["params"].(*mcp.ElicitParams)
	if !ok || form.Mode != "form" || !strings.Contains(form.Message, "group_id") {
		t.Fatalf("input request: %+v", res.InputRequests)
	}
	if len(fake.Requests()) != 0 {
		t.Fatal("asking sent something")
	}
	res2, r := answer(t, cs, tool, partial, res.RequestState, accept(`{"message":"Hello"}`))
	if res2.IsError || r.Diagnostics.Outcome != "success" || len(fake.Requests()) != 1 {
		t.Fatalf("answer: %+v", r.Diagnostics)
	}

	// Every refused answer executes nothing and says why.
	fake.Reset()
	for _, tc := range []struct {
		name   string
		answer *mcp.ElicitResult
		kind   string
		say    string
	}{
		{"declined", &mcp.ElicitResult{Action: "decline"}, "declined", "declined"},
		{"cancelled", &mcp.ElicitResult{Action: "cancel"}, "cancelled", "cancelled"},
		{"not JSON", accept(`message: hi`), "invalid_answer", "not a JSON object"},
		{"array", accept(`["hi"]`), "invalid_answer", "not a JSON object"},
		{"extra field", accept(`{"message":"hi","auto_escape":true}`), "invalid_answer", "auto_escape was not asked for"},
		{"overwrite", accept(`{"message":"hi","group_id":666}`), "invalid_answer", "group_id was already provided"},
		{"action", accept(`{"message":"hi","action":"delete_friend"}`), "invalid_answer", "action cannot be set"},
		{"missing", accept(`{}`), "invalid_answer", "message is missing"},
		{"no field", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"other": "x"}}, "invalid_answer", "params_json"},
	} {
		first := interim(t, cs, tool, partial)
		res, r := answer(t, cs, tool, partial, first.RequestState, tc.answer)
		if !res.IsError || r.Diagnostics.Kind != tc.kind || !strings.Contains(r.Diagnostics.Message, tc.say) || !strings.Contains(r.Diagnostics.Message, "nothing was run") {
			t.Errorf("%s: %+v", tc.name, r.Diagnostics)
		}
	}

	// Forged, replayed and foreign states.
	first := interim(t, cs, tool, partial)
	// Swap one base64url character in the middle for another valid one, so
	// the state still decodes but no longer authenticates.
	tampered := []byte(first.RequestState)
	if mid := len(tampered) / 2; tampered[mid] == 'A' {
		tampered[mid] = 'B'
	} else {
		tampered[mid] = 'A'
	}
	for _, tc := range []struct {
		name  string
		tool  string
		args  any
		state string
		say   string
	}{
		{"tampered", tool, partial, string(tampered), "altered"},
		{"garbage", tool, partial, "not-a-state", "malformed"},
		{"other arguments", tool, map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20002}}, first.RequestState, "other arguments"},
		{"other tool", "query_action_with_input", partial, first.RequestState, ""},
	} {
		res, r := answer(t, cs, tc.tool, tc.args, tc.state, accept(`{"message":"hi"}`))
		if !res.IsError || (tc.say != "" && !strings.Contains(r.Diagnostics.Message, tc.say)) {
			t.Errorf("%s: %+v", tc.name, r.Diagnostics)
		}
		if tc.name != "other tool" && r.Diagnostics.Kind != "continuation" {
			t.Errorf("%s: kind %s", tc.name, r.Diagnostics.Kind)
		}
	}
	// A foreign tool's state, with that tool's own arguments.
	getMsg := map[string]any{"action": "get_msg"}
	q := interim(t, cs, "query_action_with_input", getMsg)
	res, r = answer(t, cs, tool, getMsg, q.RequestState, accept(`{"message_id":-5}`))
	if !res.IsError || r.Diagnostics.Kind != "continuation" || !strings.Contains(r.Diagnostics.Message, "another tool") {
		t.Errorf("foreign state: %+v", r.Diagnostics)
	}
	// The untouched state still works once, then is spent.
	res, r = answer(t, cs, tool, partial, first.RequestState, accept(`{"message":"once"}`))
	if res.IsError {
		t.Fatalf("genuine state refused: %+v", r.Diagnostics)
	}
	res, r = answer(t, cs, tool, partial, first.RequestState, accept(`{"message":"twice"}`))
	if !res.IsError || !strings.Contains(r.Diagnostics.Message, "already used") {
		t.Errorf("replay: %+v", r.Diagnostics)
	}
	if got := sent(fake); len(got) != 1 {
		t.Errorf("refused answers reached SnowLuma: %v", got)
	}
	// The binary writes its call lines from a queue, after the answers.
	e2e.WaitFor(t, "a log line for the input round", func() bool { return strings.Contains(p.Stderr(), "outcome=input_required") })
}

func TestInputConcurrentAnswers(t *testing.T) {
	t.Parallel()
	fake, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}})
	const tool = "invoke_action_with_input"
	first := interim(t, cs, tool, partial)
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	succeeded := 0
	c := mcptest.Context(t)
	for i := range n {
		wg.Add(1)
		// Not answer(): its t.Fatal may only run on the test's goroutine.
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(c, &mcp.CallToolParams{Name: tool, Arguments: partial, RequestState: first.RequestState,
				InputResponses: mcp.InputResponseMap{"params": accept(fmt.Sprintf(`{"message":"try %d"}`, i))}})
			if err != nil {
				t.Errorf("answer %d: %v", i, err)
				return
			}
			if !res.IsError {
				mu.Lock()
				succeeded++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if succeeded != 1 || len(fake.Requests()) != 1 {
		t.Errorf("%d answers succeeded, %d requests sent; want exactly one", succeeded, len(fake.Requests()))
	}
}

func TestInputPendingLimit(t *testing.T) {
	t.Parallel()
	_, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}})
	const tool = "invoke_action_with_input"
	var first *mcp.CallToolResult
	for i := range 256 {
		res := interim(t, cs, tool, partial)
		if i == 0 {
			first = res
		}
	}
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: tool, Arguments: partial})
	if err != nil {
		t.Fatal(err)
	}
	var r mcptest.ToolResult
	json.Unmarshal(e2e.MustJSON(t, res.StructuredContent), &r)
	if !res.IsError || r.Diagnostics.Kind != "too_many_pending" || !strings.Contains(r.Diagnostics.Message, "256") {
		t.Fatalf("257th: %+v", r.Diagnostics)
	}
	// Answering one frees a place; nothing was evicted to make room.
	if res, r := answer(t, cs, tool, partial, first.RequestState, accept(`{"message":"hi"}`)); res.IsError {
		t.Fatalf("oldest continuation was evicted: %+v", r.Diagnostics)
	}
	interim(t, cs, tool, partial)
}

func TestInputGates(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		fake, _, cs := e2e.Live(t, serve, era, "read", &mcp.ClientOptions{ElicitationHandler: formAnswer(`{"message":"x"}`, &seen, &mu)})
		res, r := mcptest.CallTool(t, cs, "invoke_action_with_input", partial)
		if !res.IsError || r.Diagnostics.Kind != "mode_gate" {
			t.Errorf("invoke in read mode: %+v", r.Diagnostics)
		}
		res, r = mcptest.CallTool(t, cs, "query_action_with_input", partial)
		if !res.IsError || r.Diagnostics.Kind != "write_action" || !strings.Contains(r.Diagnostics.NextStep, "invoke_action_with_input") {
			t.Errorf("write action through query: %+v", r.Diagnostics)
		}
		// Ill-typed provided params are refused before anyone is asked.
		res, r = mcptest.CallTool(t, cs, "query_action_with_input", map[string]any{"action": "get_group_member_info", "params": map[string]any{"group_id": "abc"}})
		if !res.IsError || r.Diagnostics.Kind != "invalid_params" {
			t.Errorf("bad provided params: %+v", r.Diagnostics)
		}
		if len(seen) != 0 || len(fake.Requests()) != 0 {
			t.Errorf("%d forms, %d requests", len(seen), len(fake.Requests()))
		}
	})
}

// TestInputResumeParamsCheck: the answer goes through the same params check
// as every other path, in both eras (the go-sdk client answers the form
// through its own machinery). With the check on, a wrong answer names the
// field; with SNOWLUMA_MCP_VALIDATE_PARAMS=false the
// answer is sent as given, as invoke_action would send it.
func TestInputResumeParamsCheck(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		getMsg := map[string]any{"action": "get_msg"}
		// 0 fits the form's integer field (a form cannot say "not 0") but
		// not the catalog's schema.
		opts := &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"message_id": 0}, "", &seen, &mu)}

		fake, _, cs := e2e.Live(t, serve, era, "read", opts)
		res, r := mcptest.CallTool(t, cs, "query_action_with_input", getMsg)
		d := r.Diagnostics
		if !res.IsError || d.Kind != "invalid_answer" || !strings.Contains(d.Message, "params/message_id: ") || !strings.Contains(d.Message, "nothing was run") {
			t.Errorf("checked answer: %+v", d)
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("a refused answer sent %d requests", n)
		}

		fake, _, cs = e2e.Live(t, serve, era, "read", opts, "SNOWLUMA_MCP_VALIDATE_PARAMS=false")
		res, r = mcptest.CallTool(t, cs, "query_action_with_input", getMsg)
		if res.IsError {
			t.Fatalf("unchecked answer refused: %+v", r.Diagnostics)
		}
		got := fake.Requests()
		if len(got) != 1 || !mcptest.SameJSON(got[0].Params, json.RawMessage(`{"message_id":0}`)) {
			t.Errorf("unchecked answer: SnowLuma got %+v", got)
		}
	})
}

// typedAnswer is an elicitation handler that fills a form as a person would
// through a host's form: each typed field with its value from values, and
// params_json, when the form has it, with paramsJSON.
func typedAnswer(values map[string]any, paramsJSON string, seen *[]*mcp.ElicitParams, mu *sync.Mutex) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		*seen = append(*seen, req.Params)
		mu.Unlock()
		schema, _ := req.Params.RequestedSchema.(map[string]any)
		if schema == nil {
			b, _ := json.Marshal(req.Params.RequestedSchema)
			_ = json.Unmarshal(b, &schema)
		}
		content := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for name := range props {
			if name == "params_json" {
				content[name] = paramsJSON
			} else if v, ok := values[name]; ok {
				content[name] = v
			}
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}
}

// TestInputTypedFields: a missing parameter with a simple schema is asked
// as its own typed field (with the catalog's description as its title and
// the schema's bounds), a message stays in params_json, and the go-sdk
// client's answer in both eras runs the action with the values typed.
func TestInputTypedFields(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(
			map[string]any{"group_id": 20001, "message_id": -123456}, `{"message":"Hello"}`, &seen, &mu)})

		_, r := mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("send_group_msg: %+v", r.Diagnostics)
		}
		if reqs := fake.Requests(); len(reqs) != 1 || !mcptest.SameJSON(reqs[0].Params, json.RawMessage(`{"group_id":20001,"message":"Hello"}`)) {
			t.Errorf("sent %+v", reqs)
		}
		if len(seen) != 1 {
			t.Fatalf("%d forms", len(seen))
		}
		schema := mcptest.Decode[map[string]any](t, e2e.MustJSON(t, seen[0].RequestedSchema))
		props, _ := schema["properties"].(map[string]any)
		gid, _ := props["group_id"].(map[string]any)
		if len(props) != 2 || props["params_json"] == nil || gid["type"] != "integer" || gid["minimum"] != float64(1) ||
			!strings.Contains(fmt.Sprint(gid["title"]), "group") {
			t.Errorf("send_group_msg form: %v", schema)
		}
		if req, _ := schema["required"].([]any); len(req) != 2 {
			t.Errorf("required %v", schema["required"])
		}
		if !strings.Contains(seen[0].Message, "group_id") || !strings.Contains(seen[0].Message, "- message:") {
			t.Errorf("message %q", seen[0].Message)
		}

		// Only simple params: no params_json at all.
		fake.Reset()
		seen = nil
		_, r = mcptest.CallTool(t, cs, "query_action_with_input", map[string]any{"action": "get_msg"})
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("get_msg: %+v", r.Diagnostics)
		}
		if reqs := fake.Requests(); len(reqs) != 1 || string(reqs[0].Params) != `{"message_id":-123456}` {
			t.Errorf("sent %+v", reqs)
		}
		schema = mcptest.Decode[map[string]any](t, e2e.MustJSON(t, seen[0].RequestedSchema))
		props, _ = schema["properties"].(map[string]any)
		if mid, _ := props["message_id"].(map[string]any); len(props) != 1 || mid["type"] != "integer" {
			t.Errorf("get_msg form: %v", schema)
		}
	})
}

// TestInputTypedFieldsRefused: typed answers go through the same checks as
// params_json did; every refusal runs nothing.
func TestInputTypedFieldsRefused(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []*mcp.ElicitParams
	fake, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", &mcp.ClientOptions{
		ElicitationHandler: formAnswer("{}", &seen, &mu),
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
	})
	getMsg := map[string]any{"action": "get_msg"}
	sendGroup := map[string]any{"action": "send_group_msg"}
	for _, tc := range []struct {
		name    string
		tool    string
		args    map[string]any
		content map[string]any
		say     string
	}{
		{"wrong type", "query_action_with_input", getMsg, map[string]any{"message_id": "abc"}, "does not fit"},
		{"zero", "query_action_with_input", getMsg, map[string]any{"message_id": 0}, "does not fit"},
		{"fraction", "query_action_with_input", getMsg, map[string]any{"message_id": 1.5}, "does not fit"},
		{"missing", "query_action_with_input", getMsg, map[string]any{}, "message_id is missing"},
		{"typed field in params_json", "invoke_action_with_input", sendGroup, map[string]any{"group_id": 20001, "params_json": `{"message":"hi","group_id":1}`}, "group_id has its own field"},
		{"no params_json", "invoke_action_with_input", sendGroup, map[string]any{"group_id": 20001}, "params_json"},
		{"below minimum", "invoke_action_with_input", sendGroup, map[string]any{"group_id": 0, "params_json": `{"message":"hi"}`}, "does not fit"},
	} {
		first := interim(t, cs, tc.tool, tc.args)
		res, r := answer(t, cs, tc.tool, tc.args, first.RequestState, &mcp.ElicitResult{Action: "accept", Content: tc.content})
		if !res.IsError || r.Diagnostics.Kind != "invalid_answer" || !strings.Contains(r.Diagnostics.Message, tc.say) || !strings.Contains(r.Diagnostics.Message, "nothing was run") {
			t.Errorf("%s: %+v", tc.name, r.Diagnostics)
		}
	}
	if got := sent(fake); len(got) != 0 {
		t.Errorf("refused answers reached SnowLuma: %v", got)
	}
}

// TestFormsInChinese: the forms a person reads follow SNOWLUMA_MCP_LANG,
// and without it the locale (LC_ALL before LANG); the confirmation names the
// action by its Chinese summary too. What the model reads stays English.
func TestFormsInChinese(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		// Chinese from the locale alone.
		c := &confirmer{}
		fake, _, cs := e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: c.handle},
			"SNOWLUMA_MCP_CONFIRM=destructive", "LANG=zh_CN.UTF-8")
		fake.Handle("set_group_kick", func(json.RawMessage) simulator.Reply { return simulator.OK(nil) })
		c.answer(confirmAnswer(true))
		_, r := mcptest.CallTool(t, cs, "invoke_action", kick)
		if r.Diagnostics.Outcome != "success" {
			t.Fatalf("confirmed kick: %+v", r.Diagnostics)
		}
		forms := c.forms()
		if len(forms) != 1 || !strings.HasPrefix(forms[0].Message, "把成员踢出群 set_group_kick：把 30001 踢出群 20001。允许执行吗？") {
			t.Fatalf("confirmation %+v", forms)
		}
		props := mcptest.Decode[map[string]any](t, e2e.MustJSON(t, forms[0].RequestedSchema))["properties"].(map[string]any)
		if f, _ := props["confirm"].(map[string]any); f["title"] != "执行" {
			t.Errorf("confirm field %v", props)
		}

		// SNOWLUMA_MCP_LANG wins over the locale, both ways.
		var mu sync.Mutex
		var seen []*mcp.ElicitParams
		_, _, cs = e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"group_id": 20001}, `{"message":"你好"}`, &seen, &mu)},
			"SNOWLUMA_MCP_LANG=zh", "LC_ALL=en_US.UTF-8")
		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
		if r.Diagnostics.Outcome != "success" || len(seen) != 1 {
			t.Fatalf("zh form: %+v, %d forms", r.Diagnostics, len(seen))
		}
		if msg := seen[0].Message; !strings.HasPrefix(msg, "send_group_msg 还缺 2 个参数。请填写 group_id。请在 params_json 中") {
			t.Errorf("zh form message %q", msg)
		}
		props = mcptest.Decode[map[string]any](t, e2e.MustJSON(t, seen[0].RequestedSchema))["properties"].(map[string]any)
		if f, _ := props["params_json"].(map[string]any); f["title"] != "参数（JSON 对象）" {
			t.Errorf("zh params_json field %v", f)
		}
		if tr := e2e.MustJSON(t, r); strings.ContainsFunc(string(tr), func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff && r != '你' && r != '好' }) {
			t.Errorf("the result a model reads is not English: %s", tr)
		}

		seen = nil
		_, _, cs = e2e.Live(t, serve, era, "write", &mcp.ClientOptions{ElicitationHandler: typedAnswer(map[string]any{"group_id": 20001}, `{"message":"hi"}`, &seen, &mu)},
			"SNOWLUMA_MCP_LANG=en", "LC_ALL=zh_CN.UTF-8")
		_, r = mcptest.CallTool(t, cs, "invoke_action_with_input", map[string]any{"action": "send_group_msg"})
		if r.Diagnostics.Outcome != "success" || len(seen) != 1 || !strings.HasPrefix(seen[0].Message, "send_group_msg needs 2 more parameters.") {
			t.Errorf("en form: %+v %+v", r.Diagnostics, seen)
		}
	})
}

// TestInputTypedFieldsUnchecked: with SNOWLUMA_MCP_VALIDATE_PARAMS=false a
// typed field answered against the form's own schema (a string for an
// integer field, a fraction, a value under the field's minimum) is still
// refused and nothing is sent: turning the catalog check off is for params
// a newer SnowLuma accepts, not for answers that break the form. The
// answers come from a raw client, since the go-sdk client checks its own
// answers against the form. A 2026-07-28 answer comes back in the
// continuation and is refused by the server's own check; a legacy one is
// refused by the go-sdk server before the tool sees it.
func TestInputTypedFieldsUnchecked(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		p := serve(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken, "SNOWLUMA_MCP_MODE=write",
			"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0", "SNOWLUMA_MCP_VALIDATE_PARAMS=false")
		t.Cleanup(func() { e2e.NoLeak(t, p) })
		raw, params := e2e.RawSession(t, p, era, `{"elicitation":{"form":{}}}`)
		id := 0
		// call runs tool for action and answers its form with content.
		call := func(tool, action, content string) map[string]any {
			t.Helper()
			id++
			args := fmt.Sprintf(`{"name":%q,"arguments":{"action":%q}}`, tool, action)
			if era == mcptest.Modern {
				first := e2e.Result(t, raw.Call(id, "tools/call", params(args)))
				state, _ := first["requestState"].(string)
				if state == "" {
					t.Fatalf("%s: not an input-required result: %v", action, first)
				}
				id++
				return e2e.Result(t, raw.Call(id, "tools/call", params(fmt.Sprintf(
					`{"name":%q,"arguments":{"action":%q},"requestState":%q,"inputResponses":{"params":{"action":"accept","content":%s}}}`,
					tool, action, state, content))))
			}
			raw.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, args))
			for {
				m := raw.Next()
				if m["method"] == "elicitation/create" {
					raw.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":%s}}`, e2e.MustJSON(t, m["id"]), content))
					continue
				}
				if got, ok := m["id"].(float64); ok && int(got) == id {
					if e, ok := m["error"].(map[string]any); ok {
						// The go-sdk server checks a legacy client's
						// answer against the form itself and fails the
						// call before the tool runs.
						return map[string]any{"sdkError": e["message"]}
					}
					return e2e.Result(t, m)
				}
			}
		}
		for _, tc := range []struct {
			name, tool, action, content, say string
		}{
			{"a string for an integer", "invoke_action_with_input", "set_group_ban", `{"group_id":20001,"user_id":"not-a-number"}`,
				"user_id does not fit its form field: must be an integer, not a string"},
			{"a fraction", "query_action_with_input", "get_msg", `{"message_id":1.5}`, "message_id does not fit its form field: must be a whole number"},
			{"under the minimum", "invoke_action_with_input", "set_group_ban", `{"group_id":0,"user_id":30001}`,
				"group_id does not fit its form field: must be at least 1"},
			{"a boolean for an integer", "query_action_with_input", "get_msg", `{"message_id":true}`, "must be an integer, not a boolean"},
		} {
			r := call(tc.tool, tc.action, tc.content)
			if e, ok := r["sdkError"].(string); ok {
				if era != mcptest.Legacy || !strings.Contains(e, "does not match requested schema") {
					t.Errorf("%s: %s", tc.name, e)
				}
				continue
			}
			d, _ := r["structuredContent"].(map[string]any)["diagnostics"].(map[string]any)
			msg, _ := d["message"].(string)
			if r["isError"] != true || d["kind"] != "invalid_answer" || !strings.Contains(msg, tc.say) || !strings.Contains(msg, "nothing was run") {
				t.Errorf("%s: %v", tc.name, d)
			}
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("refused answers sent %d requests: %v", n, sent(fake))
		}
		// A well-typed answer is still sent unchecked.
		r := call("query_action_with_input", "get_msg", `{"message_id":0}`)
		if r["isError"] == true || len(fake.Requests()) != 1 {
			t.Errorf("a well-typed answer: %v", r)
		}
	})
}
