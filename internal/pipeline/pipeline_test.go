package pipeline

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// TestImports: the pipeline knows no MCP and no adapter. Nothing it
// depends on, directly or through another package, is a go-sdk package or
// a package of internal/server: the house has no arrow back up.
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/snowluma/snowluma-mcp/internal/outcome") {
		t.Fatalf("go list -deps does not list the pipeline's own imports: %q", deps)
	}
	for _, path := range deps {
		switch {
		case strings.HasPrefix(path, "github.com/modelcontextprotocol/"):
			t.Errorf("the pipeline depends on the go-sdk (%s)", path)
		case strings.HasPrefix(path, "github.com/snowluma/snowluma-mcp/internal/server"):
			t.Errorf("the pipeline depends on an adapter package (%s)", path)
		}
	}
}

// TestRead: a feature's read runs through the pipeline with one call: it
// reaches SnowLuma and is judged, and the pipeline's steps apply to it
// (the credential fence here); a write or an unknown action is refused
// as the server's defect, with nothing sent.
func TestRead(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t)
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := seal.New(seal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := New(Options{Backend: &backend.Backend{Client: client}, Catalog: catalog.Preload(), Sealer: sealer})
	c := &Call{Tool: "test"}

	r := x.Read(context.Background(), c, "get_status", nil)
	if r.Diag.Outcome != outcome.OutcomeSuccess || !strings.Contains(string(r.Result.(json.RawMessage)), `"online":true`) {
		t.Errorf("get_status: %+v", r)
	}
	for action, kind := range map[string]outcome.Kind{
		"get_cookies":    outcome.KindSensitive, // the default policy denies credentials
		"send_group_msg": outcome.KindInternal,
		"drop_database":  outcome.KindInternal,
	} {
		if r := x.Read(context.Background(), c, action, json.RawMessage(`{"group_id":1,"message":"hi"}`)); r.Diag.Kind != kind || !r.IsError {
			t.Errorf("%s: %+v", action, r.Diag)
		}
	}
	if got := fake.Requests(); len(got) != 1 || got[0].Action != "get_status" {
		t.Errorf("SnowLuma received %+v", got)
	}
}
