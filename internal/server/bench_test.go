package server

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
)

// BenchmarkQueryAction measures one query_action round trip through the
// MCP layer (in-memory transport) and real loopback HTTP to a fake SnowLuma:
// the overhead this server adds to a call.
func BenchmarkQueryAction(b *testing.B) {
	fake := fakesnowluma.Start(b)
	cs := benchSession(b, fake)
	params := &mcp.CallToolParams{Name: "query_action", Arguments: map[string]any{"action": "get_msg", "params": map[string]any{"message_id": -123456}}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkSearchKeywords measures a keyword search of the whole catalog
// through the MCP layer.
func BenchmarkSearchKeywords(b *testing.B) {
	cs := benchSession(b, fakesnowluma.Start(b))
	params := &mcp.CallToolParams{Name: "search_actions", Arguments: map[string]any{"query": "群 禁言", "match": "keywords"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSession(b *testing.B, fake *fakesnowluma.Server) *mcp.ClientSession {
	b.Helper()
	return connect(b, liveServer(b, ModeRead, fake.URL, nil), nil)
}
