package pipeline

import (
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// TestImports: the pipeline knows no MCP and no adapter. Its own files
// import neither the go-sdk nor a package of internal/server.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case strings.HasPrefix(path, "github.com/modelcontextprotocol/"):
				t.Errorf("%s imports the go-sdk (%s)", name, path)
			case strings.Contains(path, "/internal/server"):
				t.Errorf("%s imports an adapter package (%s)", name, path)
			}
		}
	}
}

// TestRead: a feature's read runs through the pipeline with one call: it
// reaches SnowLuma and is judged, and the pipeline's steps apply to it
// (the credential fence here); a write or an unknown action is refused
// as the server's defect, with nothing sent.
func TestRead(t *testing.T) {
	t.Parallel()
	fake := simulator.Start(t)
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
