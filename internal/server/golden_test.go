package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/media"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestToolsGolden keeps every tool definition the server lists, so that a
// change to a name, description, schema or annotation shows up in review:
// one file per tool in testdata/tools (one per variant where the definition
// really differs by mode or client capabilities, named for what it differs
// by), and per mode and capability set an index of the tools listed, in
// order, by file. Run `go test ./internal/server -run Golden -update` to
// accept a change.
func TestToolsGolden(t *testing.T) {
	t.Parallel()
	forms := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	apps := &mcp.ClientCapabilities{Extensions: map[string]any{appsExtension: map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}
	withTasks := &mcp.ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}}
	var sets []toolSet
	for _, mode := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
		for _, cs := range []struct {
			name string
			caps *mcp.ClientCapabilities
		}{{"plain", nil}, {"forms", forms}, {"apps", apps}, {"tasks", withTasks}} {
			b := &backend.Backend{}
			opts := Options{Catalog: sharedCatalog, Mode: mode, Backend: b}
			if mode != config.ModeDocs {
				c, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
				if err != nil {
					t.Fatal(err)
				}
				b.Client = c
				withStores(t, b)
			}
			if mode == config.ModeWrite {
				b.Tasks = taskRunner(t)
			}
			about := fmt.Sprintf("%s mode, to a client with the %s capabilities", mode, cs.name)
			if cs.caps == nil {
				about = fmt.Sprintf("%s mode, to a client with no capabilities", mode)
			}
			sets = append(sets, toolSet{string(mode), cs.name, about, listTools(t, opts, cs.caps)})
		}
	}
	// The event tools, which need an events URL; listing them connects
	// nothing.
	client, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
	if err != nil {
		t.Fatal(err)
	}
	hub := events.New(events.Options{URL: "ws://127.0.0.1:9/event"})
	sets = append(sets, toolSet{string(config.ModeRead), "events", "read mode with an events URL, to a client with no capabilities", listTools(t, Options{Catalog: sharedCatalog, Mode: config.ModeRead, Backend: withStores(t, &backend.Backend{Client: client, Events: hub})}, nil)})
	if hub.State().Status != events.StatusNotConnected {
		t.Error("listing tools connected")
	}
	goldenTools(t, filepath.Join("testdata", "tools"), sets)
}

// A toolSet is the tools listed in one mode to a client with one
// capability set (caps names it; about says it in words).
type toolSet struct {
	mode, caps, about string
	tools             []*mcp.Tool
}

func (s toolSet) String() string { return s.mode + "-" + s.caps }

// listTools lists the tools of a server with opts to a client with caps.
func listTools(t *testing.T, opts Options, caps *mcp.ClientCapabilities) []*mcp.Tool {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := connect(t, s, &mcp.ClientOptions{Capabilities: caps}).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// goldenTools compares the definitions in sets with one golden file per
// tool variant in dir and an index per set, or rewrites them all with
// -update (removing the files no set uses any more).
func goldenTools(t *testing.T, dir string, sets []toolSet) {
	t.Helper()
	files := map[string][]byte{} // file name in dir -> content
	index := make([][]string, len(sets))
	for _, v := range toolVariants(t, sets) {
		files[v.file] = v.def
		for _, i := range v.sets {
			index[i] = append(index[i], v.file)
		}
	}
	for i, s := range sets {
		// Listing order, not the variants' order.
		byName := map[string]string{}
		for _, f := range index[i] {
			byName[strings.SplitN(f, ".", 2)[0]] = f
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "# the tools listed in %s, in order: the file of each one's definition\n", s.about)
		for _, tool := range s.tools {
			fmt.Fprintln(&b, byName[tool.Name])
		}
		files["index-"+s.String()+".txt"] = b.Bytes()
	}
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	present, err := os.ReadDir(dir)
	if err != nil && !*update {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	for _, e := range present {
		if _, ok := files[e.Name()]; ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if *update {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is no tool's definition any more (run with -update to remove it)", path)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		golden(t, filepath.Join("tools", name), files[name])
	}
}

// A toolVariant is one definition of a tool and the sets that list it.
type toolVariant struct {
	file string // name.json, or name.<what it differs by>.json
	def  []byte
	sets []int // indexes into the sets
}

// toolVariants groups each tool's definitions across sets. A tool listed
// the same everywhere is one file, name.json. Otherwise the definition the
// first set listing it has keeps name.json, and each other one is named
// for what its sets share: a capability set (name.apps.json), else a mode
// (name.write.json), else the first of them (name.write-tasks.json).
func toolVariants(t *testing.T, sets []toolSet) []toolVariant {
	t.Helper()
	var order []string
	variants := map[string][]*toolVariant{}
	for i, s := range sets {
		for _, tool := range s.tools {
			def, err := json.MarshalIndent(tool, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			def = append(def, '\n')
			vs, seen := variants[tool.Name]
			if !seen {
				order = append(order, tool.Name)
			}
			found := false
			for _, v := range vs {
				if bytes.Equal(v.def, def) {
					v.sets = append(v.sets, i)
					found = true
					break
				}
			}
			if !found {
				variants[tool.Name] = append(vs, &toolVariant{def: def, sets: []int{i}})
			}
		}
	}
	var out []toolVariant
	for _, name := range order {
		for k, v := range variants[name] {
			v.file = name + ".json"
			if k > 0 {
				v.file = name + "." + variantLabel(sets, v.sets) + ".json"
			}
			out = append(out, *v)
		}
	}
	return out
}

// variantLabel names what the sets at idx have in common.
func variantLabel(sets []toolSet, idx []int) string {
	same := func(f func(toolSet) string) bool {
		for _, i := range idx[1:] {
			if f(sets[i]) != f(sets[idx[0]]) {
				return false
			}
		}
		return true
	}
	first := sets[idx[0]]
	switch {
	case same(func(s toolSet) string { return s.caps }):
		return first.caps
	case same(func(s toolSet) string { return s.mode }):
		return first.mode
	}
	return first.String()
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

// withStores gives b a download directory and a picture decoder, as
// backend.Open does in read and write modes.
func withStores(tb testing.TB, b *backend.Backend) *backend.Backend {
	tb.Helper()
	store, err := transfer.NewStore(filepath.Join(tb.TempDir(), "downloads"), transfer.DefaultMaxFileBytes, transfer.DefaultDownloadQuotaBytes)
	if err != nil {
		tb.Fatal(err)
	}
	b.Downloads, b.Media = store, media.NewDecoder(0, 0)
	return b
}

// liveServer is a server in mode talking to the SnowLuma at endpoint, with
// clock now (nil for time.Now).
func liveServer(tb testing.TB, mode config.Mode, endpoint string, now func() time.Time) *mcp.Server {
	tb.Helper()
	client, err := transfer.New(transfer.Options{Endpoint: endpoint})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(Options{Catalog: sharedCatalog, Mode: mode, Backend: withStores(tb, &backend.Backend{Client: client}), Now: now})
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
	t.Parallel()
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeDocs})
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
