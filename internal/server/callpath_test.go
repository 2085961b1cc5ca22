package server_test

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// maxCallPathFiles is how many of the project's files a call of an action,
// a stream's included, may pass on its way in, from the dispatch to the
// HTTP request to SnowLuma (issue 33).
const maxCallPathFiles = 7

// TestCallPath reads the project files one invoke_action call passes on
// its way to SnowLuma, for a plain action and for a stream, in both eras:
// while the fake holds the HTTP request, a dump of every goroutine is
// taken, and each goroutine that serves a tool call and waits in transfer
// is read from the outermost frame inward. No call enters a file twice
// (one dispatch, no middleware that only looks at the request, one
// pipeline pass), and a plain action's call passes at most
// maxCallPathFiles files. It logs the paths (go test -run TestCallPath -v
// shows them). Tests running in parallel may be waiting on SnowLuma too:
// every path in the dump is held to the same rules.
func TestCallPath(t *testing.T) {
	// Not parallel with the other tests: the dump holds every goroutine of
	// the test process, and another test's call waiting in transfer (a
	// channel prompt sent from inside a confirmation) is not this call.
	// Go runs the tests that do call t.Parallel only after this one.
	for _, call := range []map[string]any{
		{"action": "get_status"},
		{"action": "download_file_stream", "params": map[string]any{"file": "f"}},
	} {
		t.Run(call["action"].(string), func(t *testing.T) {
			t.Parallel()
			mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
				callPathOf(t, era, call)
			})
		})
	}
}

func callPathOf(t *testing.T, era mcptest.Era, call map[string]any) {
	fake, _, cs := e2e.Live(t, serve, era, "write", nil)
	held, release := make(chan struct{}), make(chan struct{})
	fake.Handle(call["action"].(string), func(json.RawMessage) simulator.Reply {
		close(held)
		<-release
		return simulator.Failed(1, "held for the dump")
	})
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: "invoke_action", Arguments: call})
		done <- err
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("the call ended before SnowLuma answered: %v", err)
	}
	paths := callPaths(dump())
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	stream := call["action"] != "get_status"
	found := false
	logged := map[string]bool{}
	for _, path := range paths {
		isStream := slices.Contains(path, "transfer/download.go")
		found = found || isStream == stream
		if line := strings.Join(path, " → "); isStream == stream && !logged[line] {
			logged[line] = true
			t.Logf("invoke_action %s passes %d project files: %s", call["action"], len(path), line)
		}
		for i, f := range path {
			if slices.Contains(path[:i], f) {
				t.Errorf("a call enters %s twice on its way in: %s", f, strings.Join(path, " → "))
			}
		}
		if len(path) > maxCallPathFiles {
			t.Errorf("a call passes %d project files on its way in, more than %d: %s", len(path), maxCallPathFiles, strings.Join(path, " → "))
		}
	}
	if !found {
		t.Fatalf("no goroutine of the dump serves the %s call inside transfer", call["action"])
	}
}

// dump is the stacks of every goroutine.
func dump() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// callPaths returns, for each goroutine of dump that serves a tool call
// (it is in internal/server/toolkit) and waits in transfer's HTTP request
// to SnowLuma, the project
// files its stack passes from the outermost frame in, relative to the
// module's root; a run of frames in one file, with no other frame between
// them, is one entry.
func callPaths(dump string) [][]string {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.ToSlash(filepath.Dir(filepath.Dir(filepath.Dir(self)))) + "/"
	var paths [][]string
	for _, g := range strings.Split(dump, "\n\n") {
		var frames []string // innermost first; "" for a frame outside the project
		lines := strings.Split(g, "\n")
		for i, line := range lines {
			if !strings.HasPrefix(line, "\t") || i == 0 || strings.HasPrefix(lines[i-1], "created by ") {
				continue
			}
			if strings.HasPrefix(lines[i-1], "net/http.") {
				// The request has left the project: a later frame of the
				// project is the transport calling back into it (an
				// httptrace hook), not the call's way in.
				frames = frames[:0]
				continue
			}
			file, _, _ := strings.Cut(strings.TrimPrefix(line, "\t"), ":")
			rel, ok := strings.CutPrefix(filepath.ToSlash(file), root)
			if !ok || strings.HasSuffix(rel, "_test.go") {
				rel = ""
			}
			frames = append(frames, rel)
		}
		slices.Reverse(frames)
		inTransfer := slices.ContainsFunc(frames, func(f string) bool { return strings.HasPrefix(f, "transfer/") })
		inTool := slices.ContainsFunc(frames, func(f string) bool { return strings.HasPrefix(f, "internal/server/toolkit/") })
		// A call on its way in waits in the HTTP client for SnowLuma's
		// answer; a call of a parallel subtest that is already reading its
		// answer is on its way out.
		waiting := strings.Contains(g, "net/http.(*Client).Do(")
		if !inTransfer || !inTool || !waiting {
			continue
		}
		// A file is entered once for each run of its frames; a frame of
		// the SDK or the standard library between two of a file's frames
		// makes the second a new entry.
		var path []string
		for i, f := range frames {
			if f != "" && (i == 0 || frames[i-1] != f) {
				path = append(path, f)
			}
		}
		paths = append(paths, path)
	}
	return paths
}
