package mcpseam_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
)

// The contract tests: each checks one behaviour of the go-sdk (SDKVersion)
// that a workaround of this package relies on, against the SDK itself, and
// fails by name when an upgrade changes it. The failure says which
// workaround to revisit.

// modernMeta is the per-request _meta of a 2026-07-28 client.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"contract","version":"1"}}`

// wire is the client's raw end of an SDK server on in-memory pipes.
type wire struct {
	t    *testing.T
	conn mcp.Connection
}

// serve runs s on in-memory pipes behind taps and returns the client's
// raw connection.
func serve(t *testing.T, s *mcp.Server, taps ...mcpseam.Tap) *wire {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, mcpseam.Wrap(st, taps...), nil)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close(); ss.Close(); cancel() })
	return &wire{t, cc}
}

// send writes a request (id > 0) or a notification (id 0) whose params
// are params with the 2026-07-28 _meta added.
func (w *wire) send(id int, method, params string) {
	w.t.Helper()
	p := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		w.t.Fatal(err)
	}
	p["_meta"] = json.RawMessage(modernMeta)
	raw, _ := json.Marshal(p)
	req := &jsonrpc.Request{Method: method, Params: raw}
	if id > 0 {
		req.ID, _ = jsonrpc.MakeID(float64(id))
	}
	if err := w.conn.Write(context.Background(), req); err != nil {
		w.t.Fatal(err)
	}
}

// next reads the next message, waiting at most ten seconds; what tells
// what the test waited for.
func (w *wire) next(what string) jsonrpc.Message {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, err := w.conn.Read(ctx)
	if err != nil {
		w.t.Fatalf("waiting for %s: %v", what, err)
	}
	return msg
}

// answer reads messages up to the response to id.
func (w *wire) answer(id int) *jsonrpc.Response {
	w.t.Helper()
	for {
		if r, ok := w.next("the answer").(*jsonrpc.Response); ok {
			if want, _ := jsonrpc.MakeID(float64(id)); r.ID != want {
				w.t.Fatalf("answer to %v, want %d", r.ID.Raw(), id)
			}
			return r
		}
	}
}

// call sends a request and returns its answer's result, failing on an error.
func (w *wire) call(id int, method, params string) json.RawMessage {
	w.t.Helper()
	w.send(id, method, params)
	r := w.answer(id)
	if r.Error != nil {
		w.t.Fatalf("%s: %v", method, r.Error)
	}
	return r.Result
}

func newServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "contract", Version: "1"}, nil)
}

func textTool(name string, res *mcp.CallToolResult) (*mcp.Tool, mcp.ToolHandler) {
	return &mcp.Tool{Name: name, InputSchema: &jsonschema.Schema{Type: "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
}

// TestSeamSDKMiddlewareSeesMethodAndTypedRequest: receiving middleware is
// called once per request with its method name, the typed request and the
// typed result, which is what Dispatch dispatches on and what the wrappers
// of tools/list, resources/list, resources/read and initialize read.
func TestSeamSDKMiddlewareSeesMethodAndTypedRequest(t *testing.T) {
	t.Parallel()
	s := newServer()
	s.AddTool(textTool("t", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}))
	s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://r", Text: "r"}}}, nil
	})
	var mu sync.Mutex
	seen := map[string]string{}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			var kind string
			switch req.(type) {
			case *mcp.ListToolsRequest:
				_, ok := res.(*mcp.ListToolsResult)
				kind = map[bool]string{true: "tools", false: "?"}[ok]
			case *mcp.CallToolRequest:
				_, ok := res.(*mcp.CallToolResult)
				kind = map[bool]string{true: "call", false: "?"}[ok]
			case *mcp.ListResourcesRequest:
				_, ok := res.(*mcp.ListResourcesResult)
				kind = map[bool]string{true: "resources", false: "?"}[ok]
			case *mcp.ReadResourceRequest:
				_, ok := res.(*mcp.ReadResourceResult)
				kind = map[bool]string{true: "read", false: "?"}[ok]
			case *mcp.ServerRequest[*mcp.InitializeParams]:
				kind = "initialize"
			}
			mu.Lock()
			seen[method] += kind
			mu.Unlock()
			return res, err
		}
	})
	w := serve(t, s)
	w.call(1, "tools/list", `{}`)
	w.call(2, "tools/call", `{"name":"t","arguments":{}}`)
	w.call(3, "resources/list", `{}`)
	w.call(4, "resources/read", `{"uri":"test://r"}`)
	// initialize is a legacy request: no _meta.
	id, _ := jsonrpc.MakeID(float64(5))
	w.conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "initialize", Params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`)})
	w.answer(5)
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{"tools/list": "tools", "tools/call": "call", "resources/list": "resources", "resources/read": "read", "initialize": "initialize"}
	for method, kind := range want {
		if seen[method] != kind {
			t.Errorf("go-sdk %s: receiving middleware saw %s as %q, want once as %q: mcpseam.Dispatch and its wrappers need revisiting", mcpseam.SDKVersion, method, seen[method], kind)
		}
	}
}

// TestSeamSDKAddToolTakesStandInSchemas: AddTool takes a tool whose input
// schema is a *jsonschema.Schema of type object and nothing else, checks no
// arguments against it, and lists the tool as given, which is why the
// toolkit answers tools/list with its whole definitions (StandIn).
func TestSeamSDKAddToolTakesStandInSchemas(t *testing.T) {
	t.Parallel()
	whole := &mcp.Tool{Name: "t", Description: "d",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"required":["x"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"result":{}},"required":["result"]}`)}
	var got json.RawMessage
	s := newServer()
	s.AddTool(mcpseam.StandIn(whole), func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got = req.Params.Arguments
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	})
	w := serve(t, s)
	w.call(1, "tools/call", `{"name":"t","arguments":{"y":1}}`)
	if string(got) != `{"y":1}` {
		t.Errorf("go-sdk %s: the handler got arguments %s, want {\"y\":1} as sent: the SDK now checks arguments against the stand-in schema; revisit mcpseam.StandIn", mcpseam.SDKVersion, got)
	}
	var list struct {
		Tools []struct {
			InputSchema, OutputSchema json.RawMessage
		}
	}
	json.Unmarshal(w.call(2, "tools/list", `{}`), &list)
	if len(list.Tools) != 1 || string(list.Tools[0].InputSchema) != `{"type":"object"}` {
		t.Errorf("go-sdk %s: tools/list gave %+v, want the stand-in {\"type\":\"object\"} the tool was added with; revisit mcpseam.StandIn", mcpseam.SDKVersion, list.Tools)
	}
}

// TestSeamSDKPassesToolResultPointer: the *CallToolResult a handler returns,
// its Content set, reaches the receiving middleware as the same pointer,
// which is how a placeholder is found again (Dispatch.Placeholder).
func TestSeamSDKPassesToolResultPointer(t *testing.T) {
	t.Parallel()
	var d mcpseam.Dispatch
	task := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the substitute"}}}
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: &jsonschema.Schema{Type: "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return d.Placeholder(task), nil
	})
	d.Install(s)
	w := serve(t, s)
	res := w.call(1, "tools/call", `{"name":"t","arguments":{}}`)
	if !bytes.Contains(res, []byte("the substitute")) {
		t.Errorf("go-sdk %s: the answer %s is not the substitute: the SDK no longer hands the handler's *CallToolResult to the middleware as it is; revisit mcpseam.Dispatch.Placeholder", mcpseam.SDKVersion, res)
	}
}

// TestSeamSDKRunsEachRequestOnItsOwnGoroutine: the SDK starts a goroutine
// for each request it handles, so every call begins on a new, small stack,
// which is why Dispatch grows it once up front (reserveStack). When this
// fails, requests run on goroutines the SDK keeps, whose stacks stay grown:
// the reserve only costs its zeroing, and can go (measure).
func TestSeamSDKRunsEachRequestOnItsOwnGoroutine(t *testing.T) {
	t.Parallel()
	var ids []string
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: &jsonschema.Schema{Type: "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		buf := make([]byte, 64)
		head, _, _ := strings.Cut(string(buf[:runtime.Stack(buf, false)]), " [") // "goroutine 42 [running]:..."
		ids = append(ids, head)
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	})
	w := serve(t, s)
	for id := range 3 {
		w.call(id+1, "tools/call", `{"name":"t","arguments":{}}`) // one after another
	}
	if len(ids) != 3 || ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		t.Errorf("go-sdk %s: three calls ran on %q, not each on a goroutine of its own; revisit mcpseam.reserveStack", mcpseam.SDKVersion, ids)
	}
}

// TestSeamSDKEncodesResultViaMarshalJSON: a result the receiving middleware
// returns in place of the SDK's is encoded with its MarshalJSON, and the SDK
// sets a 2026-07-28 answer's resultType and serverInfo through the methods
// promoted from the embedded result, which is what PlainToolResult and
// EncodedRead rely on.
func TestSeamSDKEncodesResultViaMarshalJSON(t *testing.T) {
	t.Parallel()
	var d mcpseam.Dispatch // its Finish wraps every complete tool result in PlainToolResult
	s := newServer()
	s.AddTool(textTool("t", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "<b>&</b>"}}}))
	d.Install(s)
	w := serve(t, s)
	res := w.call(1, "tools/call", `{"name":"t","arguments":{}}`)
	var got struct {
		Content    []struct{ Text string }
		ResultType string         `json:"resultType"`
		Meta       map[string]any `json:"_meta"`
	}
	json.Unmarshal(res, &got)
	if !bytes.Contains(res, []byte(`"text":"<b>&</b>"`)) {
		t.Errorf("go-sdk %s: %s was not written by PlainToolResult.MarshalJSON (HTML escaped); revisit mcpseam.PlainToolResult", mcpseam.SDKVersion, res)
	}
	if got.ResultType != "complete" || got.Meta[mcp.MetaKeyServerInfo] == nil {
		t.Errorf("go-sdk %s: %s lacks the resultType or serverInfo the SDK sets: it no longer reaches the result embedded in a wrapper; revisit mcpseam.PlainToolResult and EncodedRead", mcpseam.SDKVersion, res)
	}
}

// TestSeamSDKEscapesHTMLInToolResults: the SDK's own encoding of a tool
// result writes '<', '>' and '&' as six-byte escapes, which is why tool
// results leave as PlainToolResult. When this fails, the SDK no longer
// does, and PlainToolResult is only a second encoder to remove (measure).
func TestSeamSDKEscapesHTMLInToolResults(t *testing.T) {
	t.Parallel()
	s := newServer()
	s.AddTool(textTool("t", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "<b>&</b>"}}, StructuredContent: json.RawMessage(`{"a":"<&>"}`)}))
	w := serve(t, s)
	res := w.call(1, "tools/call", `{"name":"t","arguments":{}}`)
	if !bytes.Contains(res, []byte(`\u003cb\u003e\u0026`)) || !bytes.Contains(res, []byte(`"\u003c\u0026\u003e"`)) {
		t.Errorf("go-sdk %s: the SDK wrote %s without HTML escapes: mcpseam.PlainToolResult may no longer earn its place", mcpseam.SDKVersion, res)
	}
}

// passing is a result whose MarshalJSON returns a stand-in, as EncodedRead
// does with Pass set.
type passing struct {
	*mcp.CallToolResult
	h *mcpseam.Handoff
}

func (p *passing) MarshalJSON() ([]byte, error) { return p.h.Pass([]byte(`{"content":[]}`)), nil }

// recorder is a tap that keeps the results the SDK writes.
type recorder struct {
	mu      sync.Mutex
	results []json.RawMessage
}

func (r *recorder) Connected(mcp.Connection)                               {}
func (r *recorder) Read(context.Context, *jsonrpc.Request) (consumed bool) { return false }
func (r *recorder) Write(msg jsonrpc.Message) jsonrpc.Message {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		r.mu.Lock()
		r.results = append(r.results, resp.Result)
		r.mu.Unlock()
	}
	return msg
}

// TestSeamSDKHandsMarshalJSONBytesToTransport: the bytes a result's
// MarshalJSON returns, a JSON string here, reach the connection's Write as
// the response's result, unchanged, and MarshalJSON runs once per answer,
// which is how Handoff's stand-ins reach the stdio transport and why none
// is left held.
func TestSeamSDKHandsMarshalJSONBytesToTransport(t *testing.T) {
	t.Parallel()
	h := &mcpseam.Handoff{}
	s := newServer()
	s.AddTool(textTool("t", &mcp.CallToolResult{Content: []mcp.Content{}}))
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok {
				return &passing{r, h}, err
			}
			return res, err
		}
	})
	rec := &recorder{}
	w := serve(t, s, rec)
	w.send(1, "tools/call", `{"name":"t","arguments":{}}`)
	w.answer(1)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.results) != 1 {
		t.Fatalf("%d results written", len(rec.results))
	}
	if held, ok := h.Take(rec.results[0]); !ok || string(held) != `{"content":[]}` {
		t.Fatalf("go-sdk %s: the transport was handed %s, not the stand-in MarshalJSON returned: revisit mcpseam.Handoff", mcpseam.SDKVersion, rec.results[0])
	}
	if n := h.Holding(); n != 0 {
		t.Errorf("go-sdk %s: MarshalJSON ran %d more times than the answer was written, and its stand-ins stay held: revisit mcpseam.Handoff", mcpseam.SDKVersion, n)
	}
}

// TestSeamSDKEncodeMessageWritesResultAfterID: jsonrpc.EncodeMessage
// writes a successful response as {"jsonrpc":"2.0","id":…,"result":…}
// with a compact result as it is, so Frame's line is byte for byte
// EncodeMessage's, for number and string ids and results that HTML
// escaping or a second compaction would change; other messages go through
// EncodeMessage.
func TestSeamSDKEncodeMessageWritesResultAfterID(t *testing.T) {
	t.Parallel()
	id := func(v any) jsonrpc.ID {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(7)), Result: json.RawMessage(`{"content":[{"type":"text","text":"{\"a\":\"<b>&\"}"}],"structuredContent":{"a":"<b>&"}}`)},
		&jsonrpc.Response{ID: id("req-\u2028\"x\"<&>"), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id(float64(-1)), Result: json.RawMessage(`{"tools":[]}`)},
		&jsonrpc.Response{ID: id(float64(3)), Error: errors.New("boom")},
		&jsonrpc.Response{ID: id(float64(4)), Result: json.RawMessage("{\n\"a\": 1\n}")},
		&jsonrpc.Request{ID: id(float64(5)), Method: "ping"},
	} {
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, 4 << 10} {
			head, result, err := mcpseam.Frame(msg, limit)
			got := head
			if result != nil {
				got = append(append(bytes.Clone(head), result...), '}')
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("go-sdk %s: Frame(%+v) = %s (%v), EncodeMessage writes %s: revisit mcpseam.Frame", mcpseam.SDKVersion, msg, got, err, want)
			}
			if bytes.IndexByte(got, '\n') >= 0 {
				t.Errorf("a line holds a newline: %q", got)
			}
		}
	}
}

// permissionParams is a custom notification's params.
type permissionParams struct {
	mcp.ParamsBase
	RequestID string `json:"request_id"`
}

type emptyResult struct{ mcp.ResultBase }

// TestSeamSDKCannotReceiveCustomNotifications: a custom method registered
// with AddReceivingCustomMethod is a request; sent as a notification (Claude
// Code's notifications/claude/channel/permission_request), it never reaches
// its handler, which is why the channel takes it off the wire with a Tap.
// When this fails, the SDK can receive it and the channel's Tap can give
// way to a custom method.
func TestSeamSDKCannotReceiveCustomNotifications(t *testing.T) {
	t.Parallel()
	const method = "notifications/claude/channel/permission_request"
	var mu sync.Mutex
	var got []string
	s := newServer()
	if err := mcp.AddReceivingCustomMethod(s, method, func(_ context.Context, _ *mcp.ServerSession, p *permissionParams) (*emptyResult, error) {
		mu.Lock()
		got = append(got, p.RequestID)
		mu.Unlock()
		return &emptyResult{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := serve(t, s)
	w.send(0, method, `{"request_id":"abcde"}`)
	// Notifications are handled in order, before the next request.
	w.call(1, "tools/list", `{}`)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 0 {
		t.Errorf("go-sdk %s: the custom notification reached its handler (%v): the SDK can now receive custom notifications; claudechannel's Tap may give way to AddReceivingCustomMethod", mcpseam.SDKVersion, got)
	}
}

// TestSeamSDKEndsListenOfUnknownNotifications: a subscriptions/listen
// request that asks only for notifications the SDK does not know (the
// Tasks extension's taskIds, "claude/channel") is answered at once,
// ending the stream, which is why internal/listen keeps such a request from
// the SDK and acknowledges it itself.
func TestSeamSDKEndsListenOfUnknownNotifications(t *testing.T) {
	t.Parallel()
	s := newServer()
	w := serve(t, s)
	w.send(1, "subscriptions/listen", `{"notifications":{"taskIds":["t1"],"claude/channel":true}}`)
	for {
		msg := w.next("the SDK to end a listen stream of unknown notifications (if it now keeps it open, revisit internal/listen)")
		if r, ok := msg.(*jsonrpc.Response); ok {
			if want, _ := jsonrpc.MakeID(float64(1)); r.ID != want {
				t.Fatalf("answer to %v", r.ID.Raw())
			}
			return
		}
	}
}

// TestSeamSDKAcknowledgesListenWithSubscriptionID: the SDK's first message
// on a listen stream is notifications/subscriptions/acknowledged carrying
// the stream's request id as _meta's io.modelcontextprotocol/subscriptionId,
// which is what internal/listen merges the task ids and flags it honours
// into.
func TestSeamSDKAcknowledgesListenWithSubscriptionID(t *testing.T) {
	t.Parallel()
	s := mcp.NewServer(&mcp.Implementation{Name: "contract", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	w := serve(t, s)
	w.send(7, "subscriptions/listen", `{"notifications":{"toolsListChanged":true,"taskIds":["t1"]}}`)
	msg := w.next("the acknowledgement")
	req, ok := msg.(*jsonrpc.Request)
	var p struct {
		Meta          map[string]any             `json:"_meta"`
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if ok {
		json.Unmarshal(req.Params, &p)
	}
	if !ok || req.Method != "notifications/subscriptions/acknowledged" || p.Meta["io.modelcontextprotocol/subscriptionId"] != float64(7) || string(p.Notifications["toolsListChanged"]) != "true" {
		t.Errorf("go-sdk %s: the first message of a listen stream is %+v, want notifications/subscriptions/acknowledged with subscriptionId 7: revisit internal/listen's mergeAck", mcpseam.SDKVersion, msg)
	}
	if strings.Contains(string(req.Params), "taskIds") {
		t.Logf("the SDK now acknowledges taskIds itself: %s", req.Params)
	}
}

// TestSeamSDKVersionIsTheOneChecked: the go-sdk go.mod requires is the
// release the comments and contract tests of this package name. An
// upgrade fails here first: run the contract tests against it, revisit
// what they name, and update SDKVersion and the comments.
func TestSeamSDKVersionIsTheOneChecked(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fields) < 2 || fields[0] != "github.com/modelcontextprotocol/go-sdk" {
			continue
		}
		if fields[1] != mcpseam.SDKVersion {
			t.Errorf("go.mod requires go-sdk %s, but the seam was checked against %s: review every workaround of internal/mcpseam against the new release", fields[1], mcpseam.SDKVersion)
		}
		return
	}
	t.Fatal("go.mod does not require github.com/modelcontextprotocol/go-sdk")
}
