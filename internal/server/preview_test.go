package server

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// showsApps needs the extension and, in its settings, the panel's MIME type.
func TestShowsApps(t *testing.T) {
	t.Parallel()
	ext := func(settings any) *mcp.ClientCapabilities {
		return &mcp.ClientCapabilities{Extensions: map[string]any{appsExtension: settings}}
	}
	for _, tc := range []struct {
		name string
		caps *mcp.ClientCapabilities
		want bool
	}{
		{"no capabilities", nil, false},
		{"no extensions", &mcp.ClientCapabilities{}, false},
		{"other extension", &mcp.ClientCapabilities{Extensions: map[string]any{"io.example/other": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}, false},
		{"no settings", ext(map[string]any{}), false},
		{"null settings", ext(nil), false},
		{"other type", ext(map[string]any{"mimeTypes": []string{"text/html"}}), false},
		{"mimeTypes not a list", ext(map[string]any{"mimeTypes": "text/html;profile=mcp-app"}), false},
		{"decoded from JSON", ext(map[string]any{"mimeTypes": []any{"text/plain", "text/html;profile=mcp-app"}}), true},
		{"typed", ext(map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}), true},
	} {
		if got := showsApps(tc.caps); got != tc.want {
			t.Errorf("%s: showsApps %v, want %v", tc.name, got, tc.want)
		}
	}
}
