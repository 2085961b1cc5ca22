package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// TestKindsResource: the failure vocabulary, which the output schemas leave
// out, is listed and readable as a resource in every mode, and is exactly
// outcome.Kinds; get_runtime_info's description points at it.
func TestKindsResource(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeDocs})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	ctx := context.Background()
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lr.Resources, func(r *mcp.Resource) bool { return r.URI == KindsURI && r.MIMEType == "application/json" }) {
		t.Fatalf("%s not listed: %+v", KindsURI, lr.Resources)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: KindsURI})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []outcome.KindDoc
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &kinds); err != nil || !slices.Equal(kinds, outcome.Kinds()) {
		t.Errorf("the resource is not the vocabulary (%v): %.300s", err, rr.Contents[0].Text)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools.Tools, func(tool *mcp.Tool) bool { return tool.Name == "get_runtime_info" })
	if i < 0 || !strings.Contains(tools.Tools[i].Description, KindsURI) {
		t.Errorf("get_runtime_info's description does not point at %s", KindsURI)
	}
}
