package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

func archiveEnv(fake *simulator.Server, path string, group int64) []string {
	return []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_MODE=read",
		"SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL(), "SNOWLUMA_MCP_ARCHIVE=" + path, fmt.Sprint("SNOWLUMA_MCP_ARCHIVE_GROUPS=", group)}
}

// TestArchiveKilledDuringIngest: a kill -9 while messages pour in loses no
// message a reader had already seen (committed) and leaves a file that
// opens, passes SQLite's integrity check and serves the next start; a
// second process on a held file is refused with the file named, while its
// other tools work.
func TestArchiveKilledDuringIngest(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
	g := fake.WorldGroups()[0].ID
	path := filepath.Join(t.TempDir(), "archive", "a.db")
	env := archiveEnv(fake, path, g)
	// A plain build: what is on trial is the file under kill -9, not the
	// process's concurrency (the archive's tests race-check that), and
	// SQLite in a race-built process ingests several times slower.
	p := mcptest.Spawn(t, plainBinary(t), mcptest.Modern, env...)
	cs := p.Connect(nil)
	e2e.WaitFor(t, "the event connection", func() bool { return len(fake.EventConns()) > 0 && fake.EventConns()[0].Open() })

	// A second process on the same file: refused, naming it; the rest works.
	second := serve(t, mcptest.Legacy, env...)
	cs2 := second.Connect(nil)
	_, r := mcptest.CallTool(t, cs2, "list_chats", map[string]any{})
	if r.Diagnostics.Kind != "archive" || !strings.Contains(r.Diagnostics.Message, path) || !strings.Contains(r.Diagnostics.Message, "another snowluma-mcp") {
		t.Errorf("second process: %+v", r.Diagnostics)
	}
	if _, r := mcptest.CallTool(t, cs2, "search_actions", map[string]any{"query": "群消息"}); r.Diagnostics.Outcome != "success" {
		t.Errorf("second process, search_actions: %+v", r.Diagnostics)
	}
	second.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load() && i < 20000; i++ {
			fake.WorldSay(g, 424242, fmt.Sprint("压力测试消息 ", i), 0, true)
		}
	}()
	type page struct {
		Messages []struct {
			MessageID int64 `json:"message_id"`
		} `json:"messages"`
	}
	var seen []int64
	e2e.WaitFor(t, "200 messages archived", func() bool {
		_, r := mcptest.CallTool(t, cs, "read_messages", map[string]any{"group_id": g, "limit": 200})
		if r.Diagnostics.Outcome != "success" {
			return false
		}
		pg := mcptest.Decode[page](t, r.Result)
		seen = seen[:0]
		for _, m := range pg.Messages {
			seen = append(seen, m.MessageID)
		}
		return len(seen) == 200
	})
	// mark_read is local state: read mode allows it.
	if _, r := mcptest.CallTool(t, cs, "mark_read", map[string]any{"group_id": g, "message_id": seen[0]}); r.Diagnostics.Outcome != "success" {
		t.Errorf("mark_read in read mode: %+v", r.Diagnostics)
	}
	p.Kill() // while the pusher still pours
	stop.Store(true)
	wg.Wait()

	ctx := context.Background()
	s, err := archive.Open(ctx, archive.Options{Path: path, Groups: archive.Selection{All: true}})
	if err != nil {
		t.Fatalf("the file after kill -9: %v", err)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("integrity after kill -9: %v", err)
	}
	for _, id := range seen {
		if _, err := s.Read(ctx, archive.Chat{Group: true, ID: g}, nil, nil, &archive.Position{MessageID: id}, 1); err != nil {
			t.Fatalf("message %d, seen before the kill, is gone: %v", id, err)
		}
	}
	s.Close()

	// The next start serves the file.
	p = serve(t, mcptest.Legacy, env...)
	cs = p.Connect(nil)
	if _, r := mcptest.CallTool(t, cs, "read_messages", map[string]any{"group_id": g, "around": seen[0], "limit": 1}); r.Diagnostics.Outcome != "success" {
		t.Fatalf("restart after kill -9: %+v", r.Diagnostics)
	}
	e2e.NoLeak(t, p)
}

// TestDoctorArchive: doctor reports what an archive holds, and a corrupt
// one as a failure with its fix.
func TestDoctorArchive(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
	dir := t.TempDir()
	path := filepath.Join(dir, "a.db")
	s, err := archive.Open(context.Background(), archive.Options{Path: path, Groups: archive.Selection{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	s.Ingest(context.Background(), [][]byte{[]byte(`{"post_type":"message","message_type":"group","message_id":1,"group_id":5,"user_id":6,"time":1764547200,"message":"hi"}`)})
	s.Close()
	base := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*", "SNOWLUMA_MCP_LANG=en"}
	_, _, f := doctor(t, append(base, "SNOWLUMA_MCP_ARCHIVE="+path)...)
	if a := f["archive"]; a.Verdict != "ok" || !strings.Contains(a.Detail, "1 messages in 1 chats") || !strings.Contains(a.Detail, "group:5 2025-12-01T00:00:00Z") {
		t.Errorf("doctor on an archive: %+v", a)
	}
	bad := filepath.Join(dir, "bad.db")
	os.WriteFile(bad, []byte(strings.Repeat("junk", 2000)), 0o600)
	code, _, f := doctor(t, append(base, "SNOWLUMA_MCP_ARCHIVE="+bad)...)
	if a := f["archive"]; code == 0 || a.Verdict != "fail" || !strings.Contains(a.Detail, bad) || !strings.Contains(a.Fix, "move the file aside") {
		t.Errorf("doctor on a corrupt archive: %d %+v", code, a)
	}
}
