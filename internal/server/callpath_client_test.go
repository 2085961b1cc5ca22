package server_test

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

// maxCallPathFiles is how many of the project's files a tool call may pass
// through on its way in, from the dispatch to the HTTP request to SnowLuma.
const maxCallPathFiles = 7

// TestCallPathIsShort: while SnowLuma holds an invoke_action request, the
// goroutine that serves the call passes at most maxCallPathFiles project
// files and enters none twice (one dispatch, no middleware that only looks
// at the request), read from a dump of every goroutine. It logs the path.
func TestCallPathIsShort(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "write", nil)
		held, release := make(chan struct{}), make(chan struct{})
		fake.Handle("send_group_msg", func(json.RawMessage) fakesnowluma.Reply {
			held <- struct{}{}
			<-release
			return fakesnowluma.OK(map[string]any{"message_id": 1})
		})
		done := make(chan struct{})
		go func() {
			defer close(done)
			mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "path"}})
		}()
		select {
		case <-held:
		case <-done:
			t.Fatal("the call ended before SnowLuma saw it")
		}
		paths := callPaths(t)
		close(release)
		<-done
		if len(paths) == 0 {
			t.Fatal("no goroutine in the dump serves a tool call that waits on SnowLuma")
		}
		for _, path := range paths {
			t.Logf("the way in: %s", strings.Join(path, " → "))
			if len(path) > maxCallPathFiles {
				t.Errorf("a call passes %d project files on its way in, more than %d: %s", len(path), maxCallPathFiles, strings.Join(path, " → "))
			}
			for i, f := range path {
				if slices.Contains(path[:i], f) {
					t.Errorf("a call enters %s twice on its way in: %s", f, strings.Join(path, " → "))
				}
			}
		}
	})
}

// callPaths reads a dump of every goroutine and returns, for each one that
// serves a tool call waiting on SnowLuma's HTTP answer, the project files
// its stack passes from the outermost frame in, as paths relative to the
// module; consecutive frames of one file are one entry. Tests running in
// parallel may be waiting on SnowLuma too: every such path counts.
func callPaths(t *testing.T) [][]string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(self))) + "/"
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var paths [][]string
	for _, g := range strings.Split(string(buf), "\n\n") {
		var files []string // innermost first
		lines := strings.Split(g, "\n")
		for i, line := range lines {
			if !strings.HasPrefix(line, "\t") || (i > 0 && strings.HasPrefix(lines[i-1], "created by ")) {
				continue
			}
			file, _, _ := strings.Cut(strings.TrimPrefix(line, "\t"), ":")
			rel, ok := strings.CutPrefix(file, root)
			if !ok || strings.HasSuffix(rel, "_test.go") {
				continue
			}
			files = append(files, rel)
		}
		slices.Reverse(files)
		inTransfer := slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, "transfer/") })
		inTool := slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, "internal/server/toolkit/") })
		if !inTransfer || !inTool {
			continue
		}
		var path []string
		for _, f := range files {
			if len(path) == 0 || path[len(path)-1] != f {
				path = append(path, f)
			}
		}
		paths = append(paths, path)
	}
	return paths
}
