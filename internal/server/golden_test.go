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
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestToolsGolden keeps every tool definition the server lists, one golden
// file per mode and client capability set, so that a change to a name,
// description, schema or annotation shows up in review. Run
// `go test ./internal/server -run Golden -update` to accept a change.
func TestToolsGolden(t *testing.T) {
	forms := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	apps := &mcp.ClientCapabilities{Extensions: map[string]any{appsExtension: map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}
	withTasks := &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}}
	for _, mode := range []Mode{ModeDocs, ModeRead, ModeWrite} {
		for _, cs := range []struct {
			name string
			caps *mcp.ClientCapabilities
		}{{"plain", nil}, {"forms", forms}, {"apps", apps}, {"tasks", withTasks}} {
			name := fmt.Sprintf("tools-%s-%s.json", mode, cs.name)
			t.Run(name, func(t *testing.T) {
				b := &backend.Backend{}
				opts := Options{Catalog: catalog.Preload(), Mode: mode, Backend: b}
				if mode != ModeDocs {
					c, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
					if err != nil {
						t.Fatal(err)
					}
					b.Client = c
				}
				if mode == ModeWrite {
					b.Tasks = taskRunner(t)
				}
				s, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				res, err := connect(t, s, &mcp.ClientOptions{Capabilities: cs.caps}).ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				got, err := json.MarshalIndent(res.Tools, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				golden(t, name, append(got, '\n'))
			})
		}
	}
}

// taskRunner is a runner over a fresh task directory.
func taskRunner(t *testing.T) *tasks.Runner {
	t.Helper()
	store, err := tasks.Open(filepath.Join(t.TempDir(), "tasks"), tasks.Scope{Mode: "write", Endpoint: "http://127.0.0.1:9/"}, tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := tasks.NewRunner(store)
	t.Cleanup(func() { r.Close(); store.Close() })
	return r
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
	s, err := New(Options{Catalog: catalog.Preload(), Mode: mode, Backend: &backend.Backend{Client: client}, Now: now})
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
		t.Errorf("%s is out of date (run with -update to accept):\n%s", path, unifiedDiff(path, string(want), string(got)))
	}
}

// unifiedDiff renders the line differences from want to got as a unified
// diff with three lines of context, from a longest-common-subsequence table
// (the golden files are small enough for its quadratic cost).
func unifiedDiff(name, want, got string) string {
	a, b := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
		ai   int
		bi   int
	}
	var ops []line
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, line{' ', a[i], i, j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, line{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, line{'+', b[j], i, j})
			j++
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s (golden)\n+++ %s (got)\n", name, name)
	const context = 3
	for k := 0; k < len(ops); {
		if ops[k].op == ' ' {
			k++
			continue
		}
		start := max(0, k-context)
		end := k
		for end < len(ops) {
			if ops[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].op == ' ' {
				run++
			}
			if run-end > 2*context || run == len(ops) {
				end = min(len(ops), end+context)
				break
			}
			end = run
		}
		fmt.Fprintf(&out, "@@ -%d +%d @@\n", ops[start].ai+1, ops[start].bi+1)
		for _, l := range ops[start:end] {
			out.WriteByte(l.op)
			out.WriteString(strings.TrimSuffix(l.text, "\n"))
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}
