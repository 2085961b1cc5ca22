package server

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// modernRevision is the first revision without the initialize handshake.
const modernRevision = "2026-07-28"

// legacyOffer is the revision a legacy initialize at a revision this
// server does not serve is answered with: the newest legacy one served, as
// the go-sdk negotiates.
func legacyOffer() string {
	for _, v := range ProtocolVersions() {
		if v < modernRevision {
			return v
		}
	}
	return ""
}

// proposeOnInitialize lets a legacy initialize at a revision this server
// does not serve (2024-11-05, which older hosts still send) go on to the
// SDK, which answers with legacyOffer: in the legacy lifecycle the server
// proposes a revision it serves and the client decides whether to go on.
// It writes one line to log first, since a client that does not accept
// the offer only disconnects, and a host then shows just "disconnected".
// A 2026-07-28 request at a revision not served is still refused with
// -32022 by the SDK, as that revision defines.
func proposeOnInitialize(log io.Writer) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ir, ok := req.(*mcp.ServerRequest[*mcp.InitializeParams]); ok && ir.Params != nil {
				supported := ProtocolVersions()
				if v := ir.Params.ProtocolVersion; !slices.Contains(supported, v) {
					fmt.Fprintf(log, "%s: the client asked for MCP revision %q, which this server does not serve (it serves %s); answered initialize with %s, the newest legacy revision it serves: if the client does not accept it, update the client, or configure it for one of these revisions\n",
						Name, quote.Clip(v, 40), strings.Join(supported, ", "), legacyOffer())
				}
			}
			return next(ctx, method, req)
		}
	}
}
