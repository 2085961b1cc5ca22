package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// A ProgressLog records the progress notifications a client receives.
type ProgressLog struct {
	mu    sync.Mutex
	notes []*mcp.ProgressNotificationParams
	first chan struct{} // closed at the first notification
	once  sync.Once
}

// NewProgressLog is an empty log; connect with its Options.
func NewProgressLog() *ProgressLog { return &ProgressLog{first: make(chan struct{})} }

// Options are client options that record progress notifications in l.
func (l *ProgressLog) Options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		l.mu.Lock()
		l.notes = append(l.notes, r.Params)
		l.mu.Unlock()
		l.once.Do(func() { close(l.first) })
	}}
}

// All is the notifications recorded so far.
func (l *ProgressLog) All() []*mcp.ProgressNotificationParams {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), l.notes...)
}

// WaitFirst waits for the first notification, failing after a generous wait.
func (l *ProgressLog) WaitFirst(t *testing.T) {
	t.Helper()
	select {
	case <-l.first:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress notification arrived")
	}
}

// CallWithProgress calls invoke_action with a progress token. It reports
// every problem as an error, never through t, so that it can run on a
// goroutine of its own.
func CallWithProgress(ctx context.Context, cs *mcp.ClientSession, token string, args any) (*mcp.CallToolResult, mcptest.ToolResult, error) {
	params := &mcp.CallToolParams{Name: "invoke_action", Arguments: args}
	if token != "" {
		params.SetProgressToken(token)
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return nil, mcptest.ToolResult{}, err
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var tr mcptest.ToolResult
	if err := json.Unmarshal(raw, &tr); err != nil {
		return nil, mcptest.ToolResult{}, fmt.Errorf("structuredContent %s: %w", raw, err)
	}
	return res, tr, nil
}

// CheckProgressLines checks, on the wire, every progress notification the
// server wrote for token: values strictly increase, total is the size when
// given, and none comes after the response to the call (the calls of these
// tests run one at a time). It returns the values.
func CheckProgressLines(t *testing.T, p *mcptest.Proc, token string, total int64) []float64 {
	t.Helper()
	var values []float64
	answered := false
	for _, line := range p.Received() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProgressToken any     `json:"progressToken"`
				Progress      float64 `json:"progress"`
				Total         *int64  `json:"total"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		if m.Method == "notifications/progress" && m.Params.ProgressToken == token {
			if answered {
				t.Errorf("progress after the result: %s", line)
			}
			if len(values) > 0 && m.Params.Progress <= values[len(values)-1] {
				t.Errorf("progress %v after %v", m.Params.Progress, values[len(values)-1])
			}
			if (total > 0) != (m.Params.Total != nil) || (m.Params.Total != nil && *m.Params.Total != total) {
				t.Errorf("total %v, want %d", m.Params.Total, total)
			}
			values = append(values, m.Params.Progress)
		}
		// Calls in these tests run one at a time: the first response after
		// the token's first notification answers the call that sent it.
		if m.Result != nil && len(values) > 0 {
			answered = true
		}
	}
	return values
}

// Saved is the result of a download to a file.
type Saved struct {
	Saved *struct {
		Path     string `json:"path"`
		FileName string `json:"file_name"`
		Bytes    int64  `json:"bytes"`
		SHA256   string `json:"sha256"`
		Chunks   int64  `json:"chunks"`
	} `json:"saved"`
	Terminal json.RawMessage `json:"terminal"`
}

// SentResult is the result of an upload from a file.
type SentResult struct {
	Sent struct {
		InputFile string `json:"input_file"`
		Bytes     int64  `json:"bytes"`
		SHA256    string `json:"sha256"`
		Chunks    int64  `json:"chunks"`
		StreamID  string `json:"stream_id"`
	} `json:"sent"`
	Terminal struct {
		Data struct {
			FilePath string `json:"file_path"`
			SHA256   string `json:"sha256"`
		} `json:"data"`
	} `json:"terminal"`
}

// FileHash is the SHA-256 of the file at path, in hex.
func FileHash(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ContentHash is the SHA-256, in hex, of the fake's content for seed and
// size (simulator.Content).
func ContentHash(seed uint64, size int64) string {
	h := sha256.New()
	io.Copy(h, simulator.Content(seed, size))
	return hex.EncodeToString(h.Sum(nil))
}

// Names lists a directory, hidden files included; a missing one is empty.
func Names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
