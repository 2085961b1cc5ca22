package server_test

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

// TestCallPath records the project files one invoke_action call passes
// through on its way to SnowLuma, for a plain action and for a stream:
// while the fake holds the HTTP request, a dump of every goroutine is
// taken and the call's goroutine (the one inside transfer's Client) is
// read from the outermost frame inward. It logs the path (go test -run
// TestCallPath -v shows it) and fails if the pipeline part of it (from
// the first frame in internal/pipeline on) enters a file twice.
func TestCallPath(t *testing.T) {
	t.Parallel()
	for _, call := range []map[string]any{
		{"action": "get_status"},
		{"action": "download_file_stream", "params": map[string]any{"file": "f"}},
	} {
		t.Run(call["action"].(string), func(t *testing.T) {
			t.Parallel()
			callPathOf(t, call)
		})
	}
}

func callPathOf(t *testing.T, call map[string]any) {
	fake, _, cs := e2e.Live(t, serve, mcptest.Modern, "write", nil)
	held, release := make(chan struct{}), make(chan struct{})
	fake.Handle(call["action"].(string), func(json.RawMessage) fakesnowluma.Reply {
		close(held)
		<-release
		return fakesnowluma.Failed(1, "held for the dump")
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
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	path := callPath(t, string(buf))
	if path == nil {
		t.Fatal("no goroutine of the dump is inside transfer's client")
	}
	t.Logf("invoke_action %s passes %d project files: %s", call["action"], distinct(path), strings.Join(path, " → "))
	for i, f := range path {
		if !strings.HasPrefix(f, "internal/pipeline/") {
			continue
		}
		seen := map[string]bool{}
		for _, g := range path[i:] {
			if seen[g] {
				t.Errorf("the pipeline part enters %s twice: %s", g, strings.Join(path[i:], " → "))
			}
			seen[g] = true
		}
		break
	}
}

// callPath returns the project files, relative to the module's root, of
// the goroutine in dump that is inside transfer's client, from the
// outermost frame inward; a run of frames in one file counts once.
func callPath(t *testing.T, dump string) []string {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.ToSlash(filepath.Dir(filepath.Dir(filepath.Dir(self)))) + "/"
	for _, g := range strings.Split(dump, "\n\n") {
		if !strings.Contains(g, root+"transfer/") {
			continue
		}
		var files []string
		for _, line := range strings.Split(g, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, root) {
				continue
			}
			file, _, _ := strings.Cut(strings.TrimPrefix(line, root), ":")
			files = append(files, file)
		}
		var out []string
		for i := len(files) - 1; i >= 0; i-- {
			if len(out) == 0 || out[len(out)-1] != files[i] {
				out = append(out, files[i])
			}
		}
		return out
	}
	return nil
}

func distinct(files []string) int {
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
	}
	return len(seen)
}
