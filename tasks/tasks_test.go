package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var scope = Scope{Mode: "write", Endpoint: "http://127.0.0.1:3000/", Token: "s3cret-token"}

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, scope, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func waitEnded(t *testing.T, s *Store, id string) *Record {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		r, err := s.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status.Ended() {
			return r
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %s never ended", id)
	return nil
}

func TestLifecycleAndPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks-dir")
	s := open(t, dir)
	var mu sync.Mutex
	var seen []Status
	r := NewRunner(s)
	r.OnChange(func(rec Record) { mu.Lock(); seen = append(seen, rec.Status); mu.Unlock() })
	rec, err := r.Start("invoke_action_background", "download_file_stream", func(ctx context.Context) (json.RawMessage, error) {
		// The record exists before the job runs.
		got, err := s.Get(rec0(t, s))
		if err != nil || got.Status != StatusWorking {
			return nil, fmt.Errorf("no working record before the job: %v", err)
		}
		return json.RawMessage(`{"ok":true}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	end := waitEnded(t, s, rec.ID)
	if end.Status != StatusCompleted || string(end.Result) != `{"ok":true}` {
		t.Fatalf("ended %+v", end)
	}
	r.Close()
	mu.Lock()
	if len(seen) != 2 || seen[0] != StatusWorking || seen[1] != StatusCompleted {
		t.Errorf("notifications %v", seen)
	}
	mu.Unlock()

	for path, want := range map[string]os.FileMode{
		dir:                            0o700,
		filepath.Join(dir, recordsDir): 0o700,
		filepath.Join(dir, scopeFile):  0o600,
		filepath.Join(dir, leaseFile):  0o600,
		s.path(rec.ID):                 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %#o, want %#o", path, fi.Mode().Perm(), want)
		}
	}
	// No credentials anywhere in the directory.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), scope.Token) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}

// rec0 returns the id of the only task in s.
func rec0(t *testing.T, s *Store) string {
	p, err := s.List("", 10)
	if err != nil || len(p.Tasks) != 1 {
		t.Errorf("list: %v %+v", err, p)
		return ""
	}
	return p.Tasks[0].ID
}

func TestLooseDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	if _, err := Open(dir, scope, Options{}); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("open of a 0755 directory: %v", err)
	}
	if _, err := Open("relative/dir", scope, Options{}); err == nil {
		t.Fatal("relative directory accepted")
	}
}

func TestLeaseAndScope(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	s := open(t, dir)
	if _, err := Open(dir, scope, Options{}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
		t.Fatalf("second open while leased: %v", err)
	}
	s.Close()
	for _, other := range []Scope{
		{Mode: "write", Endpoint: scope.Endpoint, Token: "another-token"},
		{Mode: "read", Endpoint: scope.Endpoint, Token: scope.Token},
		{Mode: "write", Endpoint: "http://127.0.0.1:4000/", Token: scope.Token},
	} {
		_, err := Open(dir, other, Options{})
		if !errors.Is(err, ErrScopeMismatch) || !strings.Contains(err.Error(), "choose a new private SNOWLUMA_MCP_TASK_DIR") || strings.Contains(err.Error(), other.Token) {
			t.Errorf("%+v: %v", other, err)
		}
	}
	s2, err := Open(dir, scope, Options{})
	if err != nil {
		t.Fatalf("reopen with the same scope: %v", err)
	}
	s2.Close()
}

func TestCorruptRecordReported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	s := open(t, dir)
	r := NewRunner(s)
	var ids []string
	for i := 0; i < 3; i++ {
		rec, err := r.Start("t", "a", func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
		if err != nil {
			t.Fatal(err)
		}
		waitEnded(t, s, rec.ID)
		ids = append(ids, rec.ID)
	}
	r.Close()
	s.Close()
	bad := map[string][]byte{ids[0]: []byte(`{"taskId":`), ids[1]: []byte(`{"taskId":"` + ids[2] + `"}`)}
	for id, b := range bad {
		if err := os.WriteFile(s.path(id), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s = open(t, dir)
	p, err := s.List("", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 1 || p.Tasks[0].ID != ids[2] || len(p.Corrupt) != 2 {
		t.Fatalf("list after corruption: %+v", p)
	}
	for id := range bad {
		_, err := s.Get(id)
		var ce *CorruptError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), id) {
			t.Errorf("get %s: %v", id, err)
		}
	}
	if _, err := s.Get("0123456789abcdef0123456789abcdef"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := s.Get("../../etc/passwd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("hostile id: %v", err)
	}
}

func TestListPaging(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	s, err := Open(dir, scope, Options{Now: func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var want []string
	for i := 0; i < 120; i++ {
		rec, err := s.create("", "t", "a")
		if err != nil {
			t.Fatal(err)
		}
		want = append([]string{rec.ID}, want...)
	}
	var got []string
	cursor := ""
	pages := 0
	for {
		p, err := s.List(cursor, 50)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range p.Tasks {
			got = append(got, r.ID)
			if r.Result != nil {
				t.Error("listing carries a result")
			}
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	if pages != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%d pages, %d tasks, order ok %v", pages, len(got), strings.Join(got, ",") == strings.Join(want, ","))
	}
	if _, err := s.List("garbage!", 10); !errors.Is(err, ErrBadCursor) {
		t.Errorf("bad cursor: %v", err)
	}
}

func TestBusyAndCancel(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "d"))
	r := NewRunner(s)
	defer r.Close()
	release := make(chan struct{})
	var ids []string
	for i := 0; i < MaxRunning; i++ {
		rec, err := r.Start("t", "a", func(ctx context.Context) (json.RawMessage, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-release:
				return json.RawMessage(`{"done":true}`), nil
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	if _, err := r.Start("t", "a", func(context.Context) (json.RawMessage, error) { return nil, nil }); !errors.Is(err, ErrBusy) {
		t.Fatalf("fifth task: %v", err)
	}
	if p, _ := s.List("", 10); len(p.Tasks) != MaxRunning {
		t.Errorf("a refused task left a record: %d", len(p.Tasks))
	}
	if r.Running() != MaxRunning {
		t.Errorf("running %d", r.Running())
	}
	rec, err := r.Cancel(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if end := waitEnded(t, s, ids[0]); end.Status != StatusCancelled {
		t.Errorf("cancelled task ended %s (%+v)", end.Status, rec)
	}
	close(release)
	for _, id := range ids[1:] {
		if end := waitEnded(t, s, id); end.Status != StatusCompleted {
			t.Errorf("%s ended %s", id, end.Status)
		}
	}
	if _, err := r.Cancel(ids[1]); err == nil || !strings.Contains(err.Error(), "already ended as completed") {
		t.Errorf("cancel of an ended task: %v", err)
	}
}

// TestCompletionWinsLateCancel: a job that finishes despite the
// cancellation is recorded completed.
func TestCompletionWinsLateCancel(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "d"))
	r := NewRunner(s)
	defer r.Close()
	started := make(chan struct{})
	rec, err := r.Start("t", "a", func(ctx context.Context) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		return json.RawMessage(`{"finished":"anyway"}`), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	r.Cancel(rec.ID)
	if end := waitEnded(t, s, rec.ID); end.Status != StatusCompleted {
		t.Errorf("ended %s", end.Status)
	}
}

func TestOversizedResultKeptAsFailure(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "d"))
	r := NewRunner(s)
	defer r.Close()
	big := json.RawMessage(`"` + strings.Repeat("x", MaxRecordBytes) + `"`)
	rec, err := r.Start("t", "a", func(context.Context) (json.RawMessage, error) { return big, nil })
	if err != nil {
		t.Fatal(err)
	}
	end := waitEnded(t, s, rec.ID)
	if end.Status != StatusFailed || !strings.Contains(end.Error, "over the 16 MiB") {
		t.Fatalf("oversized result: %s %s", end.Status, end.Error)
	}
}

// TestKilledMidTask: a process killed with SIGKILL while a task works
// leaves a store that the next Open reads; the task is failed with the
// unknown-outcome message and not run again.
func TestKilledMidTask(t *testing.T) {
	if os.Getenv("TASKS_CRASH_DIR") != "" {
		crashChild()
		return
	}
	dir := filepath.Join(t.TempDir(), "d")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledMidTask$")
	cmd.Env = append(os.Environ(), "TASKS_CRASH_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf) // the child prints the task id once it is working
	id := strings.TrimSpace(string(buf[:n]))
	cmd.Process.Kill()
	cmd.Wait()
	if !ValidID(id) {
		t.Fatalf("child said %q", id)
	}
	s := open(t, dir)
	rec, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusFailed || rec.Error != UnknownOutcome {
		t.Fatalf("after kill -9: %+v", rec)
	}
}

func crashChild() {
	s, err := Open(os.Getenv("TASKS_CRASH_DIR"), scope, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	r := NewRunner(s)
	_, err = r.Start("t", "upload_file_stream", func(ctx context.Context) (json.RawMessage, error) {
		p, _ := s.List("", 1)
		fmt.Println(p.Tasks[0].ID)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	if err != nil {
		os.Exit(4)
	}
	select {}
}

// TestRecordBot: a task started for a bot names it in its record, on disk
// and after the store is opened again; a record without one (one bot, or
// written before several bots) reads as the first bot's, "".
func TestRecordBot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks-dir")
	s := open(t, dir)
	r := NewRunner(s)
	alt, err := r.StartFor("alt", "invoke_action_background", "download_file_stream", func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	if err != nil {
		t.Fatal(err)
	}
	one, err := r.Start("invoke_action_background", "download_file_stream", func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	if err != nil {
		t.Fatal(err)
	}
	waitEnded(t, s, alt.ID)
	waitEnded(t, s, one.ID)
	r.Close()
	raw, err := os.ReadFile(s.path(one.ID))
	if err != nil || strings.Contains(string(raw), `"bot"`) {
		t.Errorf("a record of one bot names a bot (%v): %s", err, raw)
	}
	s.Close()
	again := open(t, dir)
	for id, want := range map[string]string{alt.ID: "alt", one.ID: ""} {
		got, err := again.Get(id)
		if err != nil || got.Bot != want {
			t.Errorf("task %s after reopening: bot %q (%v), want %q", id, got.Bot, err, want)
		}
	}
}
