package server

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refuseUnsupportedInitialize answers a legacy initialize at a revision this
// server does not serve with UnsupportedProtocolVersion (-32022) and the
// supported list, the same answer a 2026-07-28-style request at such a
// revision gets from the SDK. Serving 2024-11-05 would send results (output
// schemas, structured content) that revision does not define.
func refuseUnsupportedInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ir, ok := req.(*mcp.ServerRequest[*mcp.InitializeParams]); ok && ir.Params != nil {
			supported := ProtocolVersions()
			if v := ir.Params.ProtocolVersion; !slices.Contains(supported, v) {
				data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: supported, Requested: v})
				return nil, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version", Data: data}
			}
		}
		return next(ctx, method, req)
	}
}
