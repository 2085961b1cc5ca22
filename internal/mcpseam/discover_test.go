package mcpseam_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
)

// TestSeamSDKDeclinedDiscoverFallsBack: the *jsonrpc.Error a receiving
// middleware returns for server/discover is the answer, code and all, as
// DeclineDiscover needs; the SDK's client then falls back to initialize
// on the same connection; and a discover answered by the SDK's own
// handler makes that initialize a duplicate, which is why DeclineDiscover
// does not trim the SDK's result instead.
func TestSeamSDKDeclinedDiscoverFallsBack(t *testing.T) {
	t.Parallel()
	declining := func() *mcp.Server {
		s := newServer()
		d := &mcpseam.Dispatch{}
		d.On(mcpseam.MethodDiscover, mcpseam.DeclineDiscover())
		d.Install(s)
		return s
	}

	w := serve(t, declining())
	w.send(1, mcpseam.MethodDiscover, `{}`)
	if r := w.answer(1); r.Error == nil {
		t.Fatalf("DeclineDiscover: server/discover answered %s, not the middleware's error", r.Result)
	} else if we, ok := r.Error.(*jsonrpc.Error); !ok || we.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("DeclineDiscover: the error's code did not survive: %#v", r.Error)
	}
	// Requests at 2026-07-28 are still served.
	w.call(2, "tools/list", `{}`)

	connect := func(s *mcp.Server) (*mcp.ClientSession, error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	}
	cs, err := connect(declining())
	if err != nil {
		t.Fatalf("DeclineDiscover: the SDK's client did not fall back to initialize: %v", err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v >= "2026-07-28" {
		t.Fatalf("DeclineDiscover: the SDK's client negotiated %s", v)
	}

	// The alternative: the SDK's own discover result, trimmed to legacy
	// revisions. Its handler has recorded the session by then.
	trimmed := newServer()
	trimmed.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if d, ok := res.(*mcp.DiscoverResult); ok {
				d.SupportedVersions = []string{"2025-11-25"}
			}
			return res, err
		}
	})
	if cs, err := connect(trimmed); err == nil {
		cs.Close()
		t.Log("DeclineDiscover: a trimmed discover result now lets a legacy initialize follow on the same connection; the SDK's handler could run")
	}
}
