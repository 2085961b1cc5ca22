package mcpseam

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MethodDiscover is the 2026-07-28 request a client negotiates with
// before any other.
const MethodDiscover = "server/discover"

// DeclineDiscover is a wrapper (Dispatch.On(MethodDiscover, …)) that
// answers server/discover with Method not found (-32601), as a server of
// the legacy lifecycle does, without running the SDK's handler: a client
// that negotiates with server/discover then falls back to initialize. The
// server still serves requests that come at 2026-07-28 without it.
//
// The channel uses it to keep Claude Code in the legacy lifecycle: Claude
// Code picks 2026-07-28 when server/discover offers it, and on such a
// connection it has no path for notifications/claude/channel.
//
// A discover result that offers only legacy revisions would make the
// clients fall back too, but the SDK's handler records the session as a
// 2026-07-28 one, and a legacy initialize on the same connection is then
// refused as a duplicate (the go-sdk client probes on the one connection;
// Claude Code probes on a sibling process). So the SDK's handler must not
// run. It relies on the SDK (v1.8.0) writing a -32601 error a receiving
// middleware returns as the request's error response with that code (and
// its own message, `method not found: "server/discover"`), and on its
// client falling back to initialize after it
// (TestSeamSDKDeclinedDiscoverFallsBack).
func DeclineDiscover() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
		}
	}
}
