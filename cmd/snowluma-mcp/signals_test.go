package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/tasks"
)

// TestSignalsEndPromptly: SIGTERM or SIGINT during a call SnowLuma never
// answers, or during a stream that trickles, cancels the call and exits
// with status 0, leaving stdout on a complete message (the harness checks
// every line).
func TestSignalsEndPromptly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		sig    os.Signal
		stream bool
	}{
		{"SIGTERM hanging call", syscall.SIGTERM, false},
		{"SIGINT hanging call", os.Interrupt, false},
		{"SIGTERM trickling stream", syscall.SIGTERM, true},
		{"SIGINT trickling stream", os.Interrupt, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
				fake, p := e2e.HangingLive(t, spawn, era, "write")
				frames := make([][]byte, 2000)
				for i := range frames {
					frames[i] = simulator.StreamOK(json.RawMessage(`{"type":"stream","data_type":"data_chunk","data":"tick"}`))
				}
				fake.Handle("test_download_stream", func(json.RawMessage) simulator.Reply {
					return simulator.Reply{Frames: frames, FrameDelay: 20 * time.Millisecond}
				})
				action := "get_status"
				if tc.stream {
					action = "test_download_stream"
				}
				progress := e2e.NewProgressLog()
				cs := p.Connect(progress.Options())
				done := make(chan error, 1)
				go func() {
					_, _, err := e2e.CallWithProgress(context.Background(), cs, "sig-1", map[string]any{"action": action})
					done <- err
				}()
				e2e.WaitFor(t, "the request to reach SnowLuma", func() bool { return len(fake.Requests()) == 1 })
				if tc.stream {
					progress.WaitFirst(t) // frames are arriving
				}
				p.Signal(tc.sig)
				st := p.Wait(10 * time.Second)
				if st == nil {
					t.Fatal("the process is still running 10 s after the signal")
				}
				if st.ExitCode() != 0 {
					t.Errorf("exit status %d, want 0", st.ExitCode())
				}
				if err := mcptest.Await(t, "the interrupted call to return", done); err == nil {
					t.Error("the interrupted call returned a result")
				}
				stderr := p.Stderr()
				if !strings.Contains(stderr, "cancelling 1 request(s) in flight") {
					t.Errorf("stderr lacks the shutdown line:\n%s", stderr)
				}
				// The call ended through its cancelled context (with its
				// HTTP request), not by being abandoned.
				if !strings.Contains(stderr, "kind=cancelled") || strings.Contains(stderr, "abandoned") {
					t.Errorf("the call was not cancelled:\n%s", stderr)
				}
			})
		})
	}
}

// TestSignalDuringDownloadLeavesNothing: SIGTERM mid-download cancels the
// call, whose partial file goes with it, before the process exits.
func TestSignalDuringDownloadLeavesNothing(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		dir := filepath.Join(t.TempDir(), "downloads")
		progress := e2e.NewProgressLog()
		fake, p, cs := e2e.Live(t, spawn, era, "write", progress.Options(), "SNOWLUMA_MCP_DOWNLOAD_DIR="+dir)
		fake.AddFile("stuck", simulator.File{Name: "stuck.bin", Size: 1 << 20, Seed: 6, Stall: true, StallAfter: 4})
		go e2e.CallWithProgress(context.Background(), cs, "sig-1", map[string]any{"action": "download_file_stream", "params": map[string]any{"file": "stuck"}})
		progress.WaitFirst(t)
		if len(e2e.Names(t, dir)) != 1 {
			t.Fatalf("no partial file while downloading: %v", e2e.Names(t, dir))
		}
		p.Signal(syscall.SIGTERM)
		st := p.Wait(10 * time.Second)
		if st == nil || st.ExitCode() != 0 {
			t.Fatalf("after SIGTERM: %v", st)
		}
		if got := e2e.Names(t, dir); len(got) != 0 {
			t.Errorf("the process exited leaving %v", got)
		}
	})
}

// TestTasksSIGTERM: a signal stops running transfers and records them as
// failed with the unknown-outcome message before the process exits.
func TestTasksSIGTERM(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	e2e.HangDownload(fake)
	dir := filepath.Join(t.TempDir(), "tasks")
	c := e2e.StartTasks(t, spawn, fake, dir)
	id := c.Start("test_download_stream", `{}`)["taskId"].(string)
	e2e.WaitFor(t, "the task's request to reach SnowLuma", func() bool { return len(fake.Requests()) > 0 })
	c.Proc.Signal(syscall.SIGTERM)
	if st := c.Proc.Wait(10 * time.Second); st == nil || st.ExitCode() != 0 {
		t.Fatalf("exit after SIGTERM: %v", st)
	}
	store, err := tasks.Open(dir, tasks.Scope{Mode: "write", Endpoint: fake.URL, Token: e2e.SecretToken}, tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rec, err := store.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != tasks.StatusFailed || !strings.Contains(rec.Error, "unknown remote outcome") {
		t.Errorf("after SIGTERM: %s %q", rec.Status, rec.Error)
	}
}
