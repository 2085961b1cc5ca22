package main_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
// message a reader had already seen, none sent before the newest one search
// had shown (the feed stores in order, and commits before anything is
// visible), nor the bot's own send once answered; and it leaves a file that
// opens, passes SQLite's integrity check and serves the next start; a
// second process on a held file is refused with the file named, while its
// other tools work.
func TestArchiveKilledDuringIngest(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
	g := fake.WorldGroups()[0].ID
	path := filepath.Join(t.TempDir(), "archive", "a.db")
	env := append(archiveEnv(fake, path, g), "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0", "SNOWLUMA_MCP_SEND_PER_MINUTE=0")
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

	// The pusher sends at its own pace, waiting on the socket as SnowLuma
	// does: every message sent reaches the server.
	ec := simtest.EventConn(t, fake, 0)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var sentMu sync.Mutex
	var sent []int64 // in the order sent
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load() && i < 20000; i++ {
			m, ev := fake.WorldSayEvent(g, 424242, fmt.Sprint("压力测试消息 ", i))
			if ec.Send(string(ev)) != nil {
				return
			}
			sentMu.Lock()
			sent = append(sent, m.ID)
			sentMu.Unlock()
		}
	}()
	type page struct {
		Messages []struct {
			MessageID int64 `json:"message_id"`
		} `json:"messages"`
	}
	var seen []int64
	e2e.WaitFor(t, "200 messages archived", func() bool {
		_, r := mcptest.CallTool(t, cs, "read_messages", map[string]any{"group_id": g, "limit": 200, "format": "fields"})
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
	// The bot's own send: archived before its answer comes back.
	_, r = mcptest.CallTool(t, cs, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": g,
		"message": []any{map[string]any{"type": "text", "data": map[string]any{"text": "杀进程前的自己的消息"}}}}})
	if r.Diagnostics.Outcome != "success" {
		t.Fatalf("send: %+v", r.Diagnostics)
	}
	own := mcptest.Decode[struct {
		Data struct {
			MessageID int64 `json:"message_id"`
		} `json:"data"`
	}](t, r.Result).Data.MessageID
	// What search shows last: everything sent before it must survive.
	var newest int64
	e2e.WaitFor(t, "search to show a message", func() bool {
		_, r := mcptest.CallTool(t, cs, "search_messages", map[string]any{"query": "压力测试消息", "group_id": g, "limit": 1, "format": "fields"})
		pg := mcptest.Decode[page](t, r.Result)
		if len(pg.Messages) == 1 {
			newest = pg.Messages[0].MessageID
		}
		return newest != 0
	})
	// mark_read is local state.
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
	sentMu.Lock()
	before := slices.Index(sent, newest)
	if before < 0 {
		t.Fatalf("search showed %d, which the pusher never sent", newest)
	}
	mustHold := append(append(slices.Clone(sent[:before+1]), seen...), own)
	sentMu.Unlock()
	for _, id := range mustHold {
		if _, err := s.Read(ctx, archive.Chat{Group: true, ID: g}, nil, nil, &archive.Position{MessageID: id}, 1); err != nil {
			t.Fatalf("message %d, shown (or sent before one shown) before the kill, is gone: %v", id, err)
		}
	}
	t.Logf("kill -9 after search showed the %dth message sent: all %d held", before+1, len(mustHold))
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
	// Times in UTC, whatever the machine's zone (SNOWLUMA_MCP_TZ).
	base := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_ARCHIVE_GROUPS=*", "SNOWLUMA_MCP_LANG=en", "SNOWLUMA_MCP_TZ=UTC"}
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

// ingestEnv reads a number from variable name, def when unset:
// TestArchiveIngestEndToEnd sends 20,000 messages at 10,000 a second in
// every run; SNOWLUMA_MCP_TEST_INGEST (such as 100000) and
// SNOWLUMA_MCP_TEST_INGEST_RATE give the figures of docs/performance.md.
func ingestEnv(t *testing.T, name string, def int) int {
	n := def
	if v := os.Getenv(name); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 3 {
			t.Fatalf("%s=%q: want a number of at least 3", name, v)
		}
	}
	return n
}

// TestArchiveIngestEndToEnd: messages to three groups at 10,000 a second,
// through the real binary's WebSocket from the fake SnowLuma (which waits
// on the socket as SnowLuma's does, never dropping), are every one
// archived, in the file once the server has stopped, with no gap marker;
// the server's peak memory stays bounded whatever the count.
func TestArchiveIngestEndToEnd(t *testing.T) {
	t.Parallel()
	total := ingestEnv(t, "SNOWLUMA_MCP_TEST_INGEST", 20000)
	rate := ingestEnv(t, "SNOWLUMA_MCP_TEST_INGEST_RATE", 10000) // a second
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
	groups := fake.WorldGroups()[:3]
	path := filepath.Join(t.TempDir(), "archive", "a.db")
	env := []string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken, "SNOWLUMA_MCP_MODE=read",
		"SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL(), "SNOWLUMA_MCP_ARCHIVE=" + path,
		fmt.Sprintf("SNOWLUMA_MCP_ARCHIVE_GROUPS=%d,%d,%d", groups[0].ID, groups[1].ID, groups[2].ID)}
	p := mcptest.Spawn(t, plainBinary(t), mcptest.Modern, env...)
	cs := p.Connect(nil)
	ec := simtest.EventConn(t, fake, 0)
	e2e.WaitFor(t, "the event connection", ec.Open)

	// What the world held before: the backfill brings some of it.
	sent := map[int64]bool{}
	start := time.Now()
	for i := 0; i < total; i++ {
		if ahead := time.Duration(i)*time.Second/time.Duration(rate) - time.Since(start); ahead > time.Millisecond {
			time.Sleep(ahead)
		}
		g := groups[i%3].ID
		m, ev := fake.WorldSayEvent(g, 424242+int64(i%7), fmt.Sprint("端到端消息 ", i))
		if err := ec.Send(string(ev)); err != nil {
			t.Fatalf("sending message %d: %v", i, err)
		}
		sent[m.ID] = true
	}
	took := time.Since(start)
	type chats struct {
		Chats []struct {
			Messages int64 `json:"messages"`
		} `json:"chats"`
	}
	e2e.WaitFor(t, "every message archived", func() bool {
		_, r := mcptest.CallTool(t, cs, "list_chats", map[string]any{})
		var n int64
		for _, c := range mcptest.Decode[chats](t, r.Result).Chats {
			n += c.Messages
		}
		return n >= int64(total)
	})
	stored := time.Since(start)
	rss := p.PeakRSS()
	cs.Close()
	p.Close()

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT msg FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	held := 0
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		if sent[id] {
			held++
		}
	}
	rows.Close()
	var gaps int
	db.QueryRow(`SELECT count(*) FROM gaps`).Scan(&gaps)
	if held != total || gaps != 0 {
		t.Errorf("%d of %d messages sent were archived, %d gap markers; want all and none", held, total, gaps)
	}
	t.Logf("%d messages to 3 groups: sent in %v (%.0f/s asked %d/s), all stored after %v (%.0f msg/s end to end); peak RSS %.1f MiB",
		total, took.Round(time.Millisecond), float64(total)/took.Seconds(), rate, stored.Round(time.Millisecond), float64(total)/stored.Seconds(), float64(rss)/(1<<20))
	if rss >= 128<<20 {
		t.Errorf("peak RSS %d bytes, want under 128 MiB", rss)
	}
}
