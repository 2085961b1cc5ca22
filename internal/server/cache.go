package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogTTL is how long clients may reuse static catalog data: five
// minutes, as snowluma-mcp-features.md ("Protocol compatibility and catalog
// caching") sets it.
const catalogTTL = 300_000

// cacheHints applies the cache hints of the features document. The tool
// list depends on the mode and the client, and the resource list on what the
// client may see, so both are private; the bundled template list and the
// catalog resource are the same for everyone. With live events the resource
// list changes as resources come and go, and an event resource holds account
// events and connection state: both are private and immediately stale. Tool
// calls carry no hints.
func cacheHints(events bool) func(context.Context, mcp.Request, *mcp.Cacheable) {
	return func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
		switch req.(type) {
		case *mcp.ListToolsRequest:
			c.TTLMs, c.CacheScope = catalogTTL, "private"
		case *mcp.ListResourcesRequest:
			c.TTLMs, c.CacheScope = catalogTTL, "private"
			if events {
				c.TTLMs = 0
			}
		case *mcp.ListResourceTemplatesRequest:
			c.TTLMs, c.CacheScope = catalogTTL, "public"
		case *mcp.ReadResourceRequest:
			c.TTLMs, c.CacheScope = catalogTTL, "public"
			if isEventsRead(req) {
				c.TTLMs, c.CacheScope = 0, "private"
			}
		}
	}
}
