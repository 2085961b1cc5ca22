package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/tasks"
)

func TestTasksCompleteAndList(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	dir := filepath.Join(t.TempDir(), "tasks")
	c := e2e.StartTasks(t, serve, fake, dir)

	if names := c.Tools(true); !slices.Contains(names, "invoke_action_background") || !slices.Contains(names, "list_tasks") {
		t.Fatalf("tools with the extension: %v", names)
	}
	if names := c.Tools(false); slices.Contains(names, "invoke_action_background") || slices.Contains(names, "list_tasks") {
		t.Errorf("tools without the extension: %v", names)
	}

	h := c.Start("test_download_stream", `{}`)
	if h["resultType"] != "task" || h["status"] != "working" || h["pollIntervalMs"] != float64(1000) || h["ttlMs"] != nil {
		t.Fatalf("handle: %v", h)
	}
	if _, present := h["ttlMs"]; !present {
		t.Error("ttlMs missing: it must be null")
	}
	id := h["taskId"].(string)
	end := c.Wait(id)
	if end["status"] != "completed" {
		t.Fatalf("ended %v", end)
	}
	saved := end["result"].(map[string]any)
	sc := saved["structuredContent"].(map[string]any)
	res := sc["result"].(map[string]any)
	if sc["diagnostics"].(map[string]any)["outcome"] != "success" || res["count"] != float64(10) {
		t.Errorf("saved result: %v", saved)
	}

	// An ordinary action is refused with nothing started.
	fake.Reset()
	r := c.Result(c.Call("tools/call", `{"name":"invoke_action_background","arguments":{"action":"get_status"}}`, true))
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), "not a stream action") || len(fake.Requests()) != 0 {
		t.Errorf("ordinary action: %v", r)
	}
	// Bad params are refused as invoke_action refuses them.
	r = c.Result(c.Call("tools/call", `{"name":"invoke_action_background","arguments":{"action":"download_file_stream","params":{"chunk_size":"big"}}}`, true))
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), "invalid_params") {
		t.Errorf("bad params: %v", r)
	}

	l := c.Result(c.Call("tools/call", `{"name":"list_tasks","arguments":{}}`, true))
	tasksList := l["structuredContent"].(map[string]any)["result"].(map[string]any)["tasks"].([]any)
	if len(tasksList) != 1 || tasksList[0].(map[string]any)["taskId"] != id || tasksList[0].(map[string]any)["status"] != "completed" {
		t.Errorf("list_tasks: %v", l)
	}

	// An unknown task, and tasks/update, are errors that say so.
	if m := c.Call("tasks/get", `{"taskId":"0123456789abcdef0123456789abcdef"}`, true); !strings.Contains(fmt.Sprint(m["error"]), "no task") {
		t.Errorf("unknown task: %v", m)
	}
	if m := c.Call("tasks/update", fmt.Sprintf(`{"taskId":%q,"inputResponses":{}}`, id), true); !strings.Contains(fmt.Sprint(m["error"]), "no outstanding input requests") {
		t.Errorf("tasks/update: %v", m)
	}
	// A client without the extension sees no task results.
	if m := c.Call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, id), false); m["error"] == nil {
		t.Errorf("tasks/get without the extension: %v", m)
	}

	// Private directory and files.
	for _, path := range []string{dir, filepath.Join(dir, "tasks"), filepath.Join(dir, "tasks", id+".json"), filepath.Join(dir, "scope.json")} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %#o", path, fi.Mode().Perm())
		}
	}
}

func TestTasksCancel(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	e2e.HangDownload(fake)
	c := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"))
	id := c.Start("test_download_stream", `{}`)["taskId"].(string)
	r := c.Result(c.Call("tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, id), true))
	if r["taskId"] != id {
		t.Fatalf("cancel: %v", r)
	}
	if end := c.Wait(id); end["status"] != "cancelled" {
		t.Errorf("after cancel: %v", end)
	}
	// Cancelling an ended task says it has ended.
	if m := c.Call("tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, id), true); !strings.Contains(fmt.Sprint(m["error"]), "already ended") {
		t.Errorf("second cancel: %v", m)
	}

	// A cancellation racing a completion: the task ends in one final state,
	// and tasks/get agrees with what cancel answered.
	fake.Handle("test_download_stream", nil)
	fake = simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	c2 := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"))
	for i := 0; i < 5; i++ {
		id := c2.Start("test_download_stream", `{}`)["taskId"].(string)
		m := c2.Call("tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, id), true)
		end := c2.Wait(id)
		switch end["status"] {
		case "cancelled":
			if m["error"] != nil {
				t.Errorf("cancelled task, but cancel answered %v", m)
			}
		case "completed":
			if m["error"] != nil && !strings.Contains(fmt.Sprint(m["error"]), "already ended as completed") {
				t.Errorf("completed task, cancel answered %v", m)
			}
		default:
			t.Errorf("race ended %v", end)
		}
	}
}

func TestTasksLimitAndBusy(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	e2e.HangDownload(fake)
	c := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"))
	for i := 0; i < tasks.MaxRunning; i++ {
		c.Start("test_download_stream", `{}`)
	}
	r := c.Result(c.Call("tools/call", `{"name":"invoke_action_background","arguments":{"action":"test_download_stream"}}`, true))
	sc := fmt.Sprint(r["structuredContent"])
	if r["isError"] != true || !strings.Contains(sc, "kind:busy") || !strings.Contains(sc, "4 background tasks") {
		t.Errorf("fifth task: %v", r)
	}
	info := c.Result(c.Call("tools/call", `{"name":"get_runtime_info","arguments":{}}`, true))
	ri := info["structuredContent"].(map[string]any)["result"].(map[string]any)
	if ri["tasks_enabled"] != true || ri["tasks"].(map[string]any)["running"] != float64(4) {
		t.Errorf("runtime info: %v", ri)
	}
}

func TestTasksCorruptAndPaging(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	dir := filepath.Join(t.TempDir(), "tasks")
	// 120 finished tasks recorded by an earlier run of the same
	// configuration, through the store's own API.
	store, err := tasks.Open(dir, tasks.Scope{Mode: "write", Endpoint: fake.URL, Token: e2e.SecretToken}, tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runner := tasks.NewRunner(store)
	var ids []string
	for i := 0; i < 120; i++ {
		rec, err := runner.Start("invoke_action_background", "test_download_stream", func(context.Context) (json.RawMessage, error) {
			return json.RawMessage(`{"content":[],"structuredContent":{}}`), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, "the task to end", func() bool { return runner.Running() == 0 })
		ids = append(ids, rec.ID)
	}
	runner.Close()
	store.Close()
	corrupt := ids[7]
	if err := os.WriteFile(filepath.Join(dir, "tasks", corrupt+".json"), []byte(`{"taskId":"trunc`), 0o600); err != nil {
		t.Fatal(err)
	}

	c := e2e.StartTasks(t, serve, fake, dir)
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		args := `{}`
		if cursor != "" {
			args = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		r := c.Result(c.Call("tools/call", `{"name":"list_tasks","arguments":`+args+`}`, true))
		page := r["structuredContent"].(map[string]any)["result"].(map[string]any)
		pages++
		for _, e := range page["tasks"].([]any) {
			seen[e.(map[string]any)["taskId"].(string)] = true
		}
		bad, _ := page["corrupted"].([]any)
		if len(bad) != 1 || !strings.Contains(fmt.Sprint(bad[0]), corrupt) {
			t.Errorf("page %d corrupted: %v", pages, bad)
		}
		next, _ := page["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if pages != 3 || len(seen) != 119 || seen[corrupt] {
		t.Errorf("%d pages, %d tasks, corrupt listed %v", pages, len(seen), seen[corrupt])
	}
	if m := c.Call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, corrupt), true); !strings.Contains(fmt.Sprint(m["error"]), corrupt) {
		t.Errorf("corrupt task: %v", m)
	}
	if r := c.Get(ids[8]); r["status"] != "completed" {
		t.Errorf("a sound task next to the corrupt one: %v", r)
	}
}

// TestTasksLegacyClient: a legacy client never sees the task tools and is
// refused the task methods.
func TestTasksLegacyClient(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	p := serve(t, mcptest.Legacy, "SNOWLUMA_MCP_ENDPOINT="+fake.URL, "SNOWLUMA_MCP_TOKEN="+e2e.SecretToken,
		"SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TASK_DIR="+filepath.Join(t.TempDir(), "tasks"))
	t.Cleanup(func() { e2e.NoLeak(t, p) })
	raw := p.Raw()
	raw.Call(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"clientInfo":{"name":"raw","version":"1"}}`)
	raw.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	list := raw.Call(2, "tools/list", `{}`)
	if strings.Contains(fmt.Sprint(list), "invoke_action_background") || strings.Contains(fmt.Sprint(list), "list_tasks") {
		t.Errorf("legacy tools/list: %v", list)
	}
	r := raw.Call(3, "tools/call", `{"name":"invoke_action_background","arguments":{"action":"test_download_stream"}}`)
	if !strings.Contains(fmt.Sprint(r), "kind:capability") {
		t.Errorf("legacy call: %v", r)
	}
	if m := raw.Call(4, "tasks/get", `{"taskId":"0123456789abcdef0123456789abcdef"}`); !strings.Contains(fmt.Sprint(m["error"]), "2026-07-28 clients only") {
		t.Errorf("legacy tasks/get: %v", m)
	}
	if len(fake.Requests()) != 0 {
		t.Error("something reached SnowLuma")
	}
}

// TestTasksListen: a subscriptions/listen stream that asks for a task's id
// is acknowledged with it and gets notifications/tasks for each change,
// carrying the stream's subscription id; an id the store does not hold is
// left out of the acknowledgement.
func TestTasksListen(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	e2e.HangDownload(fake)
	c := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"))
	id := c.Start("test_download_stream", `{}`)["taskId"].(string)

	c.Raw.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"taskIds":[%q,"0123456789abcdef0123456789abcdef"]},"_meta":%s}}`, id, e2e.TasksMeta(true)))
	ack := c.Raw.Next()
	if ack["method"] != "notifications/subscriptions/acknowledged" || !strings.Contains(fmt.Sprint(ack["params"]), "taskIds:["+id+"]") ||
		!strings.Contains(fmt.Sprint(ack["params"]), "subscriptionId:listen-1") {
		t.Fatalf("ack: %v", ack)
	}
	c.Raw.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":900,"method":"tasks/cancel","params":{"taskId":%q,"_meta":%s}}`, id, e2e.TasksMeta(true)))
	// The cancel's answer and the status notifications arrive in either
	// order; read both.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		m := c.Raw.Next()
		if m["method"] != "notifications/tasks" {
			continue
		}
		p := m["params"].(map[string]any)
		if p["taskId"] != id || p["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"] != "listen-1" {
			t.Fatalf("notification: %v", m)
		}
		if p["status"] == "cancelled" {
			return
		}
	}
	t.Fatal("no notifications/tasks with the cancelled status")
}

// TestTasksConfirmFirst: under SNOWLUMA_MCP_CONFIRM=writes a background
// transfer asks the person first, like invoke_action, and only an accepted
// answer starts the task.
func TestTasksConfirmFirst(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	c := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"), "SNOWLUMA_MCP_CONFIRM=writes")
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`
	call := `{"name":"invoke_action_background","arguments":{"action":"test_download_stream"},"_meta":` + meta
	ask := c.Result(c.Raw.Call(901, "tools/call", call+`}`))
	state, _ := ask["requestState"].(string)
	if ask["resultType"] != "input_required" || state == "" {
		t.Fatalf("first round: %v", ask)
	}
	if len(fake.Requests()) != 0 {
		t.Fatal("asking sent something")
	}
	decline := c.Result(c.Raw.Call(902, "tools/call", call+fmt.Sprintf(`,"requestState":%q,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":false}}}}`, state)))
	if decline["isError"] != true || !strings.Contains(fmt.Sprint(decline["structuredContent"]), "not_confirmed") {
		t.Fatalf("confirm false: %v", decline)
	}
	ask = c.Result(c.Raw.Call(903, "tools/call", call+`}`))
	state = ask["requestState"].(string)
	h := c.Result(c.Raw.Call(904, "tools/call", call+fmt.Sprintf(`,"requestState":%q,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}}`, state)))
	if h["resultType"] != "task" {
		t.Fatalf("accepted: %v", h)
	}
	if end := c.Wait(h["taskId"].(string)); end["status"] != "completed" {
		t.Errorf("task: %v", end)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("SnowLuma got %d requests, want the one accepted", n)
	}
}

// TestTasksDownloadAndUpload: a background download is saved to disk and
// an automatic upload sent, each reaching completed with the saved result
// their invoke_action call would have had.
func TestTasksDownloadAndUpload(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	const size = 3<<20 + 777
	fake.AddFile("big", simulator.File{Name: "big.bin", Size: size, Seed: 42})
	h := sha256.New()
	io.Copy(h, simulator.Content(42, size))
	wantDown := hex.EncodeToString(h.Sum(nil))
	root, file := uploadSetup(t, 2<<20+5)
	wantUp := e2e.FileHash(t, file)
	downloads := filepath.Join(t.TempDir(), "downloads")
	c := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"), "SNOWLUMA_MCP_UPLOAD_ROOT="+root, "SNOWLUMA_MCP_DOWNLOAD_DIR="+downloads)

	down := c.Start("download_file_stream", `{"file_id":"big"}`)["taskId"].(string)
	up := c.Result(c.Call("tools/call", fmt.Sprintf(`{"name":"invoke_action_background","arguments":{"action":"upload_file_stream","params":{"filename":"holiday.jpg"},"execution":{"input_file":%q}}}`, file), true))
	if up["resultType"] != "task" {
		t.Fatalf("upload handle: %v", up)
	}
	saved := c.Wait(down)
	if saved["status"] != "completed" {
		t.Fatalf("download task: %v", saved)
	}
	res := saved["result"].(map[string]any)["structuredContent"].(map[string]any)["result"].(map[string]any)["saved"].(map[string]any)
	if res["sha256"] != wantDown || res["bytes"] != float64(size) || !strings.HasPrefix(res["path"].(string), downloads) {
		t.Errorf("download saved %v", res)
	}
	if got := e2e.FileHash(t, res["path"].(string)); got != wantDown {
		t.Errorf("file on disk hashes to %s", got)
	}
	sentTask := c.Wait(up["taskId"].(string))
	if sentTask["status"] != "completed" {
		t.Fatalf("upload task: %v", sentTask)
	}
	sent := sentTask["result"].(map[string]any)["structuredContent"].(map[string]any)["result"].(map[string]any)["sent"].(map[string]any)
	ups := fake.Uploads()
	if len(ups) != 1 || sent["sha256"] != wantUp || ups[0].SHA256 != wantUp || sent["input_file"] != file {
		t.Errorf("upload sent %v; SnowLuma has %+v", sent, ups)
	}
	// A path outside the root is refused with nothing started.
	r := c.Result(c.Call("tools/call", `{"name":"invoke_action_background","arguments":{"action":"upload_file_stream","execution":{"input_file":"/etc/passwd"}}}`, true))
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), "path_refused") {
		t.Errorf("outside the root: %v", r)
	}
	l := c.Result(c.Call("tools/call", `{"name":"list_tasks","arguments":{}}`, true))
	if n := len(l["structuredContent"].(map[string]any)["result"].(map[string]any)["tasks"].([]any)); n != 2 {
		t.Errorf("%d tasks listed, want the two started", n)
	}
}

// TestRefusedLaunchIsAudited: a background call refused because the most
// tasks are running starts nothing, and its audit line says so.
func TestRefusedLaunchIsAudited(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	e2e.HangDownload(fake)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	c := e2e.StartTasks(t, serve, fake, filepath.Join(t.TempDir(), "tasks"), "SNOWLUMA_MCP_AUDIT_FILE="+audit)
	for range tasks.MaxRunning {
		if r := c.Start("test_download_stream", `{}`); r["resultType"] != "task" {
			t.Fatalf("start: %v", r)
		}
	}
	r := c.Start("test_download_stream", `{}`)
	if r["isError"] != true || !strings.Contains(fmt.Sprint(r["structuredContent"]), "busy") {
		t.Fatalf("one task too many: %v", r)
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"outcome":"failed","kind":"busy"`) {
		t.Errorf("no audit line for the refused launch:\n%s", b)
	}
}
