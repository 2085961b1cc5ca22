package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/transfer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestToolsGolden keeps every tool definition the server lists, one golden
// file per mode and client capability set, so that a change to a name,
// description, schema or annotation shows up in review. Run
// `go test ./internal/server -run Golden -update` to accept a change.
func TestToolsGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		mode   Mode
		caps   *mcp.ClientCapabilities
	}{
		{"tools-docs.json", ModeDocs, nil},
		{"tools-read.json", ModeRead, nil},
		{"tools-write.json", ModeWrite, nil},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			opts := Options{Catalog: catalog.Preload(), Mode: tc.mode}
			if tc.mode != ModeDocs {
				c, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
				if err != nil {
					t.Fatal(err)
				}
				opts.Client = c
			}
			s, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			cs := connect(t, s, &mcp.ClientOptions{Capabilities: tc.caps})
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res.Tools, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, append(got, '\n'))
		})
	}
}

// connect attaches an in-memory go-sdk client with opts (nil for the
// defaults) to s.
func connect(tb testing.TB, s *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// liveServer is a server in mode talking to the SnowLuma at endpoint, with
// clock now (nil for time.Now).
func liveServer(tb testing.TB, mode Mode, endpoint string, now func() time.Time) *mcp.Server {
	tb.Helper()
	client, err := transfer.New(transfer.Options{Endpoint: endpoint})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(Options{Catalog: catalog.Preload(), Mode: mode, Client: client, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestCatalogIndexGolden keeps the action index of the catalog resource in
// a golden file, one action a line (name, category, read-only, stream,
// aliases), so that any change to the bundled catalog's facts shows up in
// review.
func TestCatalogIndexGolden(t *testing.T) {
	s, err := New(Options{Catalog: catalog.Preload(), Mode: ModeDocs})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: CatalogURI})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string
		Actions []catalog.Brief
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# SnowLuma %s: %d actions\n# name\tcategory\treadOnly\tstream\taliases\n", doc.Version, len(doc.Actions))
	for _, a := range doc.Actions {
		fmt.Fprintf(&b, "%s\t%s\t%v\t%v\t%s\n", a.Name, a.Category, a.ReadOnly, a.Stream, strings.Join(a.Aliases, ","))
	}
	golden(t, "actions-index.tsv", b.Bytes())
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date; run with -update and review the diff", path)
	}
}
