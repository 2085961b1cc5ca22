package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// CatalogURI is the resource holding the whole bundled catalog.
const CatalogURI = "snowluma://onebot/actions"

// addCatalogResource serves the catalog: its version, the categories with
// counts, and every action's full entry. The document is assembled once, on
// first read, since it never changes.
//
// The document's answer is encoded once as well, without HTML escaping:
// each read copies the encoded contents after the rest of the result
// (mcpseam.EncodedRead, a wrapper of resources/read on dispatch), and with
// pass set (Speed.PassEncoded) hands the whole answer to the transport.
func addCatalogResource(s *mcp.Server, dispatch *mcpseam.Dispatch, src catalogSource, pass mcpseam.Passer) {
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
	var contents sync.Once
	var encoded []byte // the contents array of every catalog answer
	dispatch.On("resources/read", func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.ReadResourceResult)
			if !ok || err != nil || len(r.Contents) != 1 || r.Contents[0].URI != CatalogURI {
				return res, err
			}
			contents.Do(func() { encoded, _ = mcpseam.PlainJSON(r.Contents) })
			if encoded == nil {
				return res, err // the SDK encodes it
			}
			return &mcpseam.EncodedRead{ReadResourceResult: r, Contents: encoded, Pass: pass}, nil
		}
	})
}

// KindsURI is the resource listing the failure kinds diagnostics.kind
// takes, with what each means and what to do: the vocabulary the output
// schemas leave out so as not to repeat it in every tool.
const KindsURI = toolkit.KindsURI

// addKindsResource serves the failure vocabulary, outcome.Kinds, as JSON.
func addKindsResource(s *mcp.Server) error {
	doc, err := toolkit.KindsJSON()
	if err != nil {
		return fmt.Errorf("failure kinds: %w", err)
	}
	text := string(doc)
	s.AddResource(&mcp.Resource{
		URI:         KindsURI,
		Name:        "snowluma-mcp-failure-kinds",
		Title:       "snowluma-mcp failure kinds",
		Description: "Every diagnostics.kind a tool result may carry: [{kind, meaning, fix}].",
		MIMEType:    "application/json",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: KindsURI, MIMEType: "application/json", Text: text}}}, nil
	})
	return nil
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
