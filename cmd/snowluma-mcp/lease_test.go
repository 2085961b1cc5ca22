package main_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestTasksKilledAndRestarted: a kill -9 mid-transfer leaves a store the
// next start reads; the task is failed with the unknown-outcome message and
// nothing is sent to SnowLuma again.
func TestTasksKilledAndRestarted(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	e2e.HangDownload(fake)
	dir := filepath.Join(t.TempDir(), "tasks")
	c := e2e.StartTasks(t, spawn, fake, dir)
	id := c.Start("test_download_stream", `{}`)["taskId"].(string)
	e2e.WaitFor(t, "the task's request to reach SnowLuma", func() bool { return len(fake.Requests()) > 0 })
	c.Proc.Kill()
	sentBefore := len(fake.Requests())

	c2 := e2e.StartTasks(t, serve, fake, dir)
	end := c2.Get(id)
	msg := fmt.Sprint(end["error"])
	if end["status"] != "failed" || !strings.Contains(msg, "unknown remote outcome") {
		t.Fatalf("after restart: %v", end)
	}
	// A barrier, not a wait: the store marks the task failed before the
	// server answers anything, so a replay would be under way before this
	// read is answered. SnowLuma must then have seen the read and nothing
	// else since the kill.
	barrier := c2.Result(c2.Call("tools/call", `{"name":"query_action","arguments":{"action":"get_status"}}`, false))
	if barrier["isError"] == true {
		t.Fatalf("the barrier read failed: %v", barrier)
	}
	var since []string
	for _, r := range fake.Requests()[sentBefore:] {
		since = append(since, r.Action)
	}
	if !slices.Equal(since, []string{"get_status"}) {
		t.Errorf("after the restart SnowLuma saw %v, want only the barrier read", since)
	}
}

func TestTasksLeaseAndScope(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	dir := filepath.Join(t.TempDir(), "tasks")
	first := e2e.StartTasks(t, spawn, fake, dir)
	first.Tools(true) // running and holding the lease

	second := e2e.StartTasks(t, serve, fake, dir)
	if names := second.Tools(true); slices.Contains(names, "invoke_action_background") {
		t.Errorf("a second process lists the task tool: %v", names)
	}
	r := second.Result(second.Call("tools/call", `{"name":"invoke_action_background","arguments":{"action":"test_download_stream"}}`, true))
	want := fmt.Sprintf("process %d", first.Proc.Pid())
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), want) {
		t.Errorf("second process: %v (want %q)", r, want)
	}
	first.Proc.Close()
	second.Proc.Close()

	// Another token: the directory is refused and the message says what to do.
	other := e2e.StartTasks(t, serve, fake, dir, "SNOWLUMA_MCP_TOKEN=a-different-token")
	r = other.Result(other.Call("tools/call", `{"name":"list_tasks","arguments":{}}`, true))
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), "choose a new private SNOWLUMA_MCP_TASK_DIR") {
		t.Errorf("changed token: %v", r)
	}
	other.Proc.Close()
	if strings.Contains(other.Proc.Stderr(), "a-different-token") {
		t.Error("stderr holds the token")
	}
}
