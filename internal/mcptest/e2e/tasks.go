package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// TasksMeta is the _meta of a 2026-07-28 request from a client that
// advertises the Tasks extension (or, with ext false, does not).
func TasksMeta(ext bool) string {
	caps := `{}`
	if ext {
		caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	return fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`, caps)
}

// A TaskClient is a raw 2026-07-28 connection to one server with a task
// directory.
type TaskClient struct {
	Proc *mcptest.Proc // the server
	Raw  *mcptest.Raw  // the connection to it

	t  *testing.T
	id int
}

// StartTasks is a write-mode server on fake with task directory dir,
// started by start, and a raw connection to it.
func StartTasks(t *testing.T, start Starter, fake *simulator.Server, dir string, env ...string) *TaskClient {
	t.Helper()
	env = append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + SecretToken, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR=" + dir}, env...)
	p := start(t, mcptest.Modern, env...)
	t.Cleanup(func() { NoLeak(t, p) })
	return NewTaskClient(t, p)
}

// NewTaskClient is a raw connection to p, a server already started with a
// task directory.
func NewTaskClient(t *testing.T, p *mcptest.Proc) *TaskClient {
	return &TaskClient{Proc: p, Raw: p.Raw(), t: t}
}

// Call sends method with params (a JSON object without _meta) and the
// tasks meta, returning the whole response.
func (c *TaskClient) Call(method, params string, ext bool) map[string]any {
	c.t.Helper()
	c.id++
	p := strings.TrimSuffix(strings.TrimSpace(params), "}")
	if p != "{" {
		p += ","
	}
	p += `"_meta":` + TasksMeta(ext) + `}`
	return c.Raw.Call(c.id, method, p)
}

// Result returns a response's result, failing on an error response.
func (c *TaskClient) Result(m map[string]any) map[string]any {
	c.t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("no result: %v\nstderr:\n%s", m, c.Proc.Stderr())
	}
	return r
}

// Start calls invoke_action_background and returns the task handle.
func (c *TaskClient) Start(action string, params string) map[string]any {
	c.t.Helper()
	return c.Result(c.Call("tools/call", fmt.Sprintf(`{"name":"invoke_action_background","arguments":{"action":%q,"params":%s}}`, action, params), true))
}

// Get asks tasks/get for id once.
func (c *TaskClient) Get(id string) map[string]any {
	c.t.Helper()
	return c.Result(c.Call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, id), true))
}

// Wait polls id until it has ended, failing after a generous wait.
func (c *TaskClient) Wait(id string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		r := c.Get(id)
		if s := r["status"]; s != "working" {
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("task %s never ended", id)
	return nil
}

// Tools lists the names tools/list gives this client.
func (c *TaskClient) Tools(ext bool) []string {
	c.t.Helper()
	var names []string
	for _, tl := range c.Result(c.Call("tools/list", `{}`, ext))["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

// HangDownload makes the fake's test_download_stream send one frame and
// then hold the stream open until the client goes away.
func HangDownload(fake *simulator.Server) {
	fake.Handle("test_download_stream", func(json.RawMessage) simulator.Reply {
		return simulator.Reply{Frames: [][]byte{simulator.StreamOK(map[string]any{"type": "stream", "data_type": "data_chunk", "data": "Index-> 0"})}, Hang: true}
	})
}
