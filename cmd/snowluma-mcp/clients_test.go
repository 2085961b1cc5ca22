package main_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// The client helpers of the process tests: how they start a server on a
// fake SnowLuma, call it and read what it wrote. They are copies of the
// helpers of the behaviour tests in internal/server (*_client_test.go),
// since one test package cannot import another; keep the two in step.

// secretToken is the access token of every execution test; no result and no
// stderr line may ever contain it.
const secretToken = "tok-5ecret-DO-NOT-LEAK"

// liveOn starts a fake SnowLuma requiring secretToken and a snowluma-mcp in
// mode talking to it, started by start with client options and extra
// environment, and checks at the end that the token leaked nowhere.
func liveOn(t *testing.T, start starter, era mcptest.Era, mode string, opts *mcp.ClientOptions, env ...string) (*fakesnowluma.Server, *mcptest.Proc, *mcp.ClientSession) {
	t.Helper()
	fake := fakesnowluma.Start(t, fakesnowluma.WithToken(secretToken))
	// Send pacing is off unless a test sets it: most tests send to one
	// group back to back, and pacing has tests of its own (internal/server/safety_client_test.go).
	env = append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + secretToken, "SNOWLUMA_MCP_MODE=" + mode,
		"SNOWLUMA_MCP_DOWNLOAD_DIR=" + filepath.Join(t.TempDir(), "downloads"),
		"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0", "SNOWLUMA_MCP_SEND_PER_MINUTE=0"}, env...)
	p := start(t, era, env...)
	cs := p.Connect(opts)
	t.Cleanup(func() { noLeak(t, p) })
	return fake, p, cs
}

func noLeak(t *testing.T, p *mcptest.Proc) {
	t.Helper()
	p.Close() // so that stderr and stdout are complete
	for _, l := range p.Received() {
		if strings.Contains(l, secretToken) {
			t.Errorf("token in a server message: %.300s", l)
		}
	}
	if strings.Contains(p.Stderr(), secretToken) {
		t.Errorf("token on stderr")
	}
}

// waitFor polls cond until it holds, failing the test after a generous
// wait. It asserts an eventual state, never a duration.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(mcptest.Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hangingLive is a live server, started by start, whose SnowLuma never
// answers get_status.
func hangingLive(t *testing.T, start starter, era mcptest.Era, mode string) (*fakesnowluma.Server, *mcptest.Proc) {
	fake := fakesnowluma.Start(t, fakesnowluma.WithToken(secretToken))
	fake.Handle("get_status", func(json.RawMessage) fakesnowluma.Reply { return fakesnowluma.Reply{Hang: true} })
	p := start(t, era, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+secretToken, "SNOWLUMA_MCP_MODE="+mode)
	t.Cleanup(func() { noLeak(t, p) })
	return fake, p
}

// tasksMeta is the _meta of a 2026-07-28 request from a client that
// advertises the Tasks extension (or, with ext false, does not).
func tasksMeta(ext bool) string {
	caps := `{}`
	if ext {
		caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	return fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`, caps)
}

// taskClient is a raw 2026-07-28 connection to one server with a task
// directory.
type taskClient struct {
	t   *testing.T
	p   *mcptest.Proc
	raw *mcptest.Raw
	id  int
}

// startTasksWith is a write-mode server on fake with task directory dir,
// started by start.
func startTasksWith(t *testing.T, start starter, fake *fakesnowluma.Server, dir string, env ...string) *taskClient {
	t.Helper()
	env = append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + secretToken, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR=" + dir}, env...)
	p := start(t, mcptest.Modern, env...)
	t.Cleanup(func() { noLeak(t, p) })
	return &taskClient{t: t, p: p, raw: p.Raw()}
}

// call sends method with params (a JSON object without _meta) and the
// tasks meta, returning the whole response.
func (c *taskClient) call(method, params string, ext bool) map[string]any {
	c.t.Helper()
	c.id++
	p := strings.TrimSuffix(strings.TrimSpace(params), "}")
	if p != "{" {
		p += ","
	}
	p += `"_meta":` + tasksMeta(ext) + `}`
	return c.raw.Call(c.id, method, p)
}

// result returns a response's result, failing on an error response.
func (c *taskClient) result(m map[string]any) map[string]any {
	c.t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("no result: %v\nstderr:\n%s", m, c.p.Stderr())
	}
	return r
}

// start calls invoke_action_background and returns the task handle.
func (c *taskClient) start(action string, params string) map[string]any {
	c.t.Helper()
	return c.result(c.call("tools/call", fmt.Sprintf(`{"name":"invoke_action_background","arguments":{"action":%q,"params":%s}}`, action, params), true))
}

// get polls tasks/get for id.
func (c *taskClient) get(id string) map[string]any {
	c.t.Helper()
	return c.result(c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, id), true))
}

// wait polls id until it has ended.
func (c *taskClient) wait(id string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r := c.get(id)
		if s := r["status"]; s != "working" {
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("task %s never ended", id)
	return nil
}

// tools lists the names tools/list gives this client.
func (c *taskClient) tools(ext bool) []string {
	c.t.Helper()
	var names []string
	for _, tl := range c.result(c.call("tools/list", `{}`, ext))["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hang makes the fake's test_download_stream send one frame and then hold
// the stream open until the client goes away.
func hang(fake *fakesnowluma.Server) {
	fake.Handle("test_download_stream", func(json.RawMessage) fakesnowluma.Reply {
		return fakesnowluma.Reply{Frames: [][]byte{fakesnowluma.StreamOK(map[string]any{"type": "stream", "data_type": "data_chunk", "data": "Index-> 0"})}, Hang: true}
	})
}

// rawSession attaches a raw connection ready for requests in era (a legacy
// one after initialize with the given client capabilities) and returns it
// with a function that makes a request's params for the era: for
// 2026-07-28 it adds the _meta fields with the same capabilities.
func rawSession(t *testing.T, p *mcptest.Proc, era mcptest.Era, caps string) (*mcptest.Raw, func(params string) string) {
	t.Helper()
	raw := p.Raw()
	if era == mcptest.Legacy {
		result(t, raw.Call(1000, "initialize", `{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}`))
		raw.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return raw, func(params string) string { return params }
	}
	meta := fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`, caps)
	return raw, func(params string) string {
		if params == "{}" {
			return `{"_meta":` + meta + `}`
		}
		return `{"_meta":` + meta + `,` + strings.TrimPrefix(params, "{")
	}
}

// answered reports whether the server wrote a response with id.
func answered(p *mcptest.Proc, id float64) bool {
	for _, l := range p.Received() {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["id"] == id && m["method"] == nil {
			return true
		}
	}
	return false
}

// auditLines reads the audit file's records.
func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, mcptest.Decode[map[string]any](t, sc.Bytes()))
	}
	return out
}

// progressLog records the progress notifications a client receives.
type progressLog struct {
	mu    sync.Mutex
	notes []*mcp.ProgressNotificationParams
	first chan struct{} // closed at the first notification
	once  sync.Once
}

func newProgressLog() *progressLog { return &progressLog{first: make(chan struct{})} }

func (l *progressLog) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		l.mu.Lock()
		l.notes = append(l.notes, r.Params)
		l.mu.Unlock()
		l.once.Do(func() { close(l.first) })
	}}
}

// waitFirst waits for the first notification, failing after a generous wait.
func (l *progressLog) waitFirst(t *testing.T) {
	t.Helper()
	select {
	case <-l.first:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress notification arrived")
	}
}

// callWithProgress calls invoke_action with a progress token. It reports
// every problem as an error, never through t, so that it can run on a
// goroutine of its own.
func callWithProgress(ctx context.Context, cs *mcp.ClientSession, token string, args any) (*mcp.CallToolResult, mcptest.ToolResult, error) {
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

// fileHash is the SHA-256 of the file at path.
func fileHash(t *testing.T, path string) string {
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

func contentHash(seed uint64, size int64) string {
	h := sha256.New()
	io.Copy(h, fakesnowluma.Content(seed, size))
	return hex.EncodeToString(h.Sum(nil))
}

type saved struct {
	Saved *struct {
		Path     string `json:"path"`
		FileName string `json:"file_name"`
		Bytes    int64  `json:"bytes"`
		SHA256   string `json:"sha256"`
		Chunks   int64  `json:"chunks"`
	} `json:"saved"`
	Terminal json.RawMessage `json:"terminal"`
}

// names lists a directory, hidden files included.
func names(t *testing.T, dir string) []string {
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

// checkProgressLines checks, on the wire, every progress notification the
// server wrote for token: values strictly increase, total is the size when
// given, and none comes after the response to the call (the calls of these
// tests run one at a time).
func checkProgressLines(t *testing.T, p *mcptest.Proc, token string, total int64) []float64 {
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

type sentResult struct {
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

// eventsRead is an event resource read.
type eventsRead struct {
	Events []struct {
		Cursor string          `json:"cursor"`
		Event  json.RawMessage `json:"event"`
	} `json:"events"`
	Status             string  `json:"status"`
	StatusReason       string  `json:"status_reason"`
	NextCursor         string  `json:"next_cursor"`
	OldestCursor       *string `json:"oldest_cursor"`
	DroppedEvents      int64   `json:"dropped_events"`
	Gap                bool    `json:"gap"`
	NotificationFailed bool    `json:"notification_failed"`
}

func subscribeEvents(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	if args["self_id"] == nil {
		args["self_id"] = fakesnowluma.SelfID
	}
	res, r := mcptest.CallTool(t, cs, "subscribe_events", args)
	if res.IsError {
		t.Fatalf("subscribe_events %v: %+v", args, r.Diagnostics)
	}
	out := mcptest.Decode[struct {
		URI    string `json:"uri"`
		Status string `json:"status"`
	}](t, r.Result)
	if !strings.HasPrefix(out.URI, eventsPrefix) || strings.Contains(out.URI, "?") || out.Status != "connected" {
		t.Fatalf("subscribe_events: %s", r.Result)
	}
	return out.URI
}

// waitRead polls uri until cond holds, failing after a generous wait.
func waitRead(t *testing.T, cs *mcp.ClientSession, uri string, what string, cond func(eventsRead) bool) eventsRead {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r := mustRead(t, cs, uri)
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held: %d events, status %s (%s)", what, len(r.Events), r.Status, r.StatusReason)
		}
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(mcptest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startTasks serves a write-mode server on fake with task directory dir.
func startTasks(t *testing.T, fake *fakesnowluma.Server, dir string, env ...string) *taskClient {
	t.Helper()
	env = append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + secretToken, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR=" + dir}, env...)
	p := serve(t, mcptest.Modern, env...)
	t.Cleanup(func() { noLeak(t, p) })
	return &taskClient{t: t, p: p, raw: p.Raw()}
}

const eventsPrefix = "snowluma://onebot/events/"

// readEvents reads uri, checking the cache hint of 2026-07-28 answers.
func readEvents(t *testing.T, cs *mcp.ClientSession, uri string) (eventsRead, error) {
	t.Helper()
	res, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return eventsRead{}, err
	}
	if cs.InitializeResult().ProtocolVersion == string(mcptest.Modern) && (res.TTLMs != 0 || res.CacheScope != "private") {
		t.Errorf("event read cache hint %d %q, want 0 private", res.TTLMs, res.CacheScope)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || res.Contents[0].URI != uri {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return mcptest.Decode[eventsRead](t, json.RawMessage(res.Contents[0].Text)), nil
}

func mustRead(t *testing.T, cs *mcp.ClientSession, uri string) eventsRead {
	t.Helper()
	r, err := readEvents(t, cs, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return r
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", m)
	}
	return r
}
