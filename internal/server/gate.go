package server

import (
	"context"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The mode gate. Every tool is registered in every mode; a tool the mode
// does not allow is left out of tools/list and refused when called anyway.
// Hiding a tool is a courtesy; the refusal in its handler is the gate.

// needs reports the mode a tool requires: the query tools read from
// SnowLuma, the invoke tools may write. Other tools run in every mode.
func needs(tool string) Mode {
	switch tool {
	case "query_action", "query_action_with_input":
		return ModeRead
	case "invoke_action", "invoke_action_with_input":
		return ModeWrite
	}
	return ModeDocs
}

// allows reports whether mode m permits what mode need requires.
func (m Mode) allows(need Mode) bool {
	switch need {
	case ModeRead:
		return m == ModeRead || m == ModeWrite
	case ModeWrite:
		return m == ModeWrite
	}
	return true
}

// gate refuses tool when mode does not allow it. The refusal sends nothing.
func gate(mode Mode, tool string) (reply, bool) {
	need := needs(tool)
	if mode.allows(need) {
		return reply{}, true
	}
	return fail(KindModeGate, fmt.Sprintf("%s needs %s mode; this server runs in %s mode", tool, need, mode),
		"set SNOWLUMA_MCP_ENDPOINT and SNOWLUMA_MCP_MODE="+string(need)+" in the server's environment and restart it"), false
}

// hideTools leaves the tools mode does not allow out of tools/list. The tool
// list is one page (it is far below the SDK's page size), so filtering the
// page filters the list.
func hideTools(mode Mode) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				lr.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool { return !mode.allows(needs(t.Name)) })
			}
			return res, err
		}
	}
}
