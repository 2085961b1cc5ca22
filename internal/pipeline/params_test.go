package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
)

// TestBrokenCatalogSchemaIsInternal: a catalog inputSchema that does not
// compile is the server's defect (kind internal), not the caller's params,
// and nothing is sent.
func TestBrokenCatalogSchemaIsInternal(t *testing.T) {
	a := &catalog.Action{Brief: catalog.Brief{Name: "broken"}, InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":7}}}`)}
	b := &backend.Backend{}
	x := New(Options{Backend: b})
	_, r := x.checkParams(a, json.RawMessage(`{"x":1}`))
	if r == nil || r.Diag.Kind != "internal" || !r.IsError {
		t.Fatalf("broken schema: %+v", r)
	}
	b.SkipParamsCheck = true
	if errs, r := x.checkParams(a, json.RawMessage(`{"x":1}`)); errs != nil || r != nil {
		t.Errorf("with the check off: %v %+v", errs, r)
	}
}
