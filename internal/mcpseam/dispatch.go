package mcpseam

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodCallTool is the method whose results leave through Finish.
const methodCallTool = "tools/call"

// A Dispatch is the server's one receiving middleware: a request meets the
// one wrapper registered for its method (On), or none, rather than every
// wrapper of every feature in turn; and every tools/call result leaves
// through Finish. With GrowStack set it gives each request its stack at
// once (stack.go). The zero value is ready to use.
//
// It relies on the SDK (v1.8.0) calling receiving middleware once per
// request with the request's method name and its typed request, and
// encoding whatever result the middleware returns
// (TestSeamSDKMiddlewareSeesMethodAndTypedRequest).
type Dispatch struct {
	// Pass, when set before Install, hands every complete tool result to
	// the transport past the SDK's encoder (PlainToolResult.Pass): the
	// binary sets its stdio transport, which its one session runs on.
	Pass Passer
	// GrowStack, when set before Install, grows the stack of the
	// goroutine the SDK starts for each request once, up front
	// (reserveStack): a speed trick, not a gap in the SDK.
	GrowStack bool

	mu        sync.Mutex
	on        map[string]mcp.Middleware
	installed bool
	subs      substitutes
}

// On makes mw the wrapper of every request of method; it sees the request
// on its way in and the result on its way out. A second wrapper for the
// same method runs inside the first. Call On before Install.
func (d *Dispatch) On(method string, mw mcp.Middleware) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.installed {
		panic("mcpseam: Dispatch.On after Install")
	}
	if d.on == nil {
		d.on = map[string]mcp.Middleware{}
	}
	if outer := d.on[method]; outer != nil {
		inner := mw
		mw = func(next mcp.MethodHandler) mcp.MethodHandler { return outer(inner(next)) }
	}
	d.on[method] = mw
}

// Install adds the dispatch to s as its receiving middleware. Call it
// once, after every On.
func (d *Dispatch) Install(s *mcp.Server) {
	d.mu.Lock()
	d.installed = true
	d.mu.Unlock()
	s.AddReceivingMiddleware(d.middleware)
}

func (d *Dispatch) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	d.mu.Lock()
	handlers := make(map[string]mcp.MethodHandler, len(d.on))
	for method, mw := range d.on {
		handlers[method] = mw(next)
	}
	d.mu.Unlock()
	grow := d.GrowStack
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if grow {
			reserveStack(0)
		}
		h := handlers[method]
		if h == nil {
			h = next
		}
		res, err := h(ctx, method, req)
		if method == methodCallTool && err == nil {
			return d.Finish(res), nil
		}
		return res, err
	}
}

// Placeholder returns the tool result a tool handler returns to answer its
// call with res instead, a result that is not a CallToolResult (such as a
// task handle, resultType "task"): Finish puts res in its place.
func (d *Dispatch) Placeholder(res mcp.Result) *mcp.CallToolResult { return d.subs.hold(res) }

// Finish is what a tools/call result becomes on the wire: the result a
// placeholder stands for, or a complete tool result encoded by
// PlainToolResult. An input-required result is left to the SDK, which
// answers legacy clients' elicitation with it.
func (d *Dispatch) Finish(res mcp.Result) mcp.Result {
	r, ok := res.(*mcp.CallToolResult)
	if !ok {
		return res
	}
	if sub, found := d.subs.take(r); found {
		return sub
	}
	if r.InputRequests == nil && r.RequestState == "" {
		return &PlainToolResult{CallToolResult: r, Pass: d.Pass}
	}
	return r
}

// substitutes holds the results placeholders stand for.
//
// It relies on the SDK (v1.8.0) handing the very *CallToolResult a tool
// handler returned, when its Content is not nil, to the receiving
// middleware: callTool copies only a result whose Content is nil
// (TestSeamSDKPassesToolResultPointer).
type substitutes struct{ m sync.Map }

func (s *substitutes) hold(res mcp.Result) *mcp.CallToolResult {
	// Content is set so that the SDK passes this very value on.
	placeholder := &mcp.CallToolResult{Content: []mcp.Content{}}
	s.m.Store(placeholder, res)
	return placeholder
}

func (s *substitutes) take(r *mcp.CallToolResult) (mcp.Result, bool) {
	held, found := s.m.LoadAndDelete(r)
	if !found {
		return nil, false
	}
	return held.(mcp.Result), true
}
