package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
)

// CatalogURI is the resource holding the whole bundled catalog.
const CatalogURI = "snowluma://onebot/actions"

// addCatalogResource serves the catalog: its version, the categories with
// counts, and every action's full entry. The document is assembled once, on
// first read, since it never changes.
func addCatalogResource(s *mcp.Server, src catalogSource) {
	doc := sync.OnceValues(func() (string, error) {
		cat, err := src()
		if err != nil {
			return "", err
		}
		return catalogDocument(cat)
	})
	s.AddResource(&mcp.Resource{
		URI:         CatalogURI,
		Name:        "snowluma-actions",
		Title:       "SnowLuma OneBot action catalog",
		Description: "The bundled SnowLuma " + catalog.Version + " action catalog: version, categories with counts, and every action's full entry (parameters, constraints, flags, returnsSchema, examples, inputSchema).",
		MIMEType:    "application/json",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		text, err := doc()
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: CatalogURI, MIMEType: "application/json", Text: text}}}, nil
	})
}

// catalogDocument is the resource's text, {version, categories, actions},
// assembled from the entries get_action and list_categories answer with,
// so that no entry is encoded twice.
func catalogDocument(cat *catalog.Catalog) (string, error) {
	version, err := json.Marshal(cat.Version())
	if err != nil {
		return "", err
	}
	cats, err := cat.CategoriesJSON()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`{"version":`)
	b.Write(version)
	b.WriteString(`,"categories":`)
	b.Write(cats)
	b.WriteString(`,"actions":[`)
	for i, a := range cat.Actions() {
		full, err := a.JSON()
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(full)
	}
	b.WriteString("]}")
	return b.String(), nil
}
