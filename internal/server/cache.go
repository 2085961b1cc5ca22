package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogTTL is how long clients may reuse static catalog data: five
// minutes, as snowluma-mcp-features.md ("Protocol compatibility and catalog
// caching") sets it.
const catalogTTL = 300_000

// setCacheable applies the cache hints of the features document. The tool
// list depends on the mode and the client, and the resource list on what the
// client may see, so both are private; the bundled template list and the
// catalog resource are the same for everyone. Tool calls carry no hints.
func setCacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ListToolsRequest, *mcp.ListResourcesRequest:
		c.TTLMs, c.CacheScope = catalogTTL, "private"
	case *mcp.ListResourceTemplatesRequest:
		c.TTLMs, c.CacheScope = catalogTTL, "public"
	case *mcp.ReadResourceRequest:
		c.TTLMs, c.CacheScope = catalogTTL, "public"
	}
}
