package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/fakesnowluma"
)

// TestTasksKilledAndRestarted: a kill -9 mid-transfer leaves a store the
// next start reads; the task is failed with the unknown-outcome message and
// nothing is sent to SnowLuma again.
func TestTasksKilledAndRestarted(t *testing.T) {
	t.Parallel()
	fake := fakesnowluma.Start(t, fakesnowluma.WithToken(secretToken))
	hang(fake)
	dir := filepath.Join(t.TempDir(), "tasks")
	c := startTasksWith(t, spawn, fake, dir)
	id := c.start("test_download_stream", `{}`)["taskId"].(string)
	waitFor(t, "the task's request to reach SnowLuma", func() bool { return len(fake.Requests()) > 0 })
	c.p.Kill()
	sentBefore := len(fake.Requests())

	c2 := startTasks(t, fake, dir)
	end := c2.get(id)
	msg := fmt.Sprint(end["error"])
	if end["status"] != "failed" || !strings.Contains(msg, "unknown remote outcome") {
		t.Fatalf("after restart: %v", end)
	}
	time.Sleep(200 * time.Millisecond) // a replay, were there one, would have started by now
	if n := len(fake.Requests()); n != sentBefore {
		t.Errorf("the restart sent %d requests", n-sentBefore)
	}
}

func TestTasksLeaseAndScope(t *testing.T) {
	t.Parallel()
	fake := fakesnowluma.Start(t, fakesnowluma.WithToken(secretToken))
	dir := filepath.Join(t.TempDir(), "tasks")
	first := startTasksWith(t, spawn, fake, dir)
	first.tools(true) // running and holding the lease

	second := startTasks(t, fake, dir)
	if names := second.tools(true); has(names, "invoke_action_background") {
		t.Errorf("a second process lists the task tool: %v", names)
	}
	r := second.result(second.call("tools/call", `{"name":"invoke_action_background","arguments":{"action":"test_download_stream"}}`, true))
	want := fmt.Sprintf("process %d", first.p.Pid())
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), want) {
		t.Errorf("second process: %v (want %q)", r, want)
	}
	first.p.Close()
	second.p.Close()

	// Another token: the directory is refused and the message says what to do.
	other := startTasks(t, fake, dir, "SNOWLUMA_MCP_TOKEN=a-different-token")
	r = other.result(other.call("tools/call", `{"name":"list_tasks","arguments":{}}`, true))
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), "choose a new private SNOWLUMA_MCP_TASK_DIR") {
		t.Errorf("changed token: %v", r)
	}
	other.p.Close()
	if strings.Contains(other.p.Stderr(), "a-different-token") {
		t.Error("stderr holds the token")
	}
}
