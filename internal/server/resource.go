package server

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
)

// CatalogURI is the resource holding the whole bundled catalog.
const CatalogURI = "snowluma://onebot/actions"

// addCatalogResource serves the catalog: its version, the categories with
// counts, and every action's full entry. The document is encoded once, on
// first read, since it never changes.
func addCatalogResource(s *mcp.Server, src catalogSource) {
	doc := sync.OnceValues(func() ([]byte, error) {
		cat, err := src()
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Version    string             `json:"version"`
			Categories []catalog.Category `json:"categories"`
			Actions    []*catalog.Action  `json:"actions"`
		}{cat.Version(), cat.Categories(), cat.Actions()})
	})
	s.AddResource(&mcp.Resource{
		URI:         CatalogURI,
		Name:        "snowluma-actions",
		Title:       "SnowLuma OneBot action catalog",
		Description: "The bundled SnowLuma " + catalog.Version + " action catalog: version, categories with counts, and every action's full entry (parameters, constraints, flags, returnsSchema, examples, inputSchema).",
		MIMEType:    "application/json",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		b, err := doc()
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: CatalogURI, MIMEType: "application/json", Text: string(b)}}}, nil
	})
}
