package main_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// sharedPassword is the password the shared archive's URL carries in
// TestSharedArchiveEndToEnd (the throwaway cluster trusts its socket, so
// any password logs in): it must appear in no output.
const sharedPassword = "E2e-pw-9QxZ"

// sharedArchiveURL creates a schema of its own in the database
// SNOWLUMA_MCP_TEST_POSTGRES names and returns a URL of it with
// sharedPassword; without the variable the test is skipped (failed
// under CI).
func sharedArchiveURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv("SNOWLUMA_MCP_TEST_POSTGRES")
	if base == "" {
		msg := "no PostgreSQL: set SNOWLUMA_MCP_TEST_POSTGRES=postgres://user@127.0.0.1:5432/db (.ci/run starts a throwaway one) to run the shared archive's end-to-end test"
		if reference.UnderCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("e2e_%x", rand.Uint64())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c, err := pgx.Connect(ctx, base); err == nil {
			c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), sharedPassword)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestSharedArchiveEndToEnd: two server processes, each with its own
// SnowLuma (two bots' connections), ingest into one PostgreSQL database
// at once, and a third process's search_messages finds both bots'
// messages once each; a kill -9 of a writer loses nothing search had
// shown; a reader's mark of one bot's chat of a group leaves another
// bot's chat of it unread. The URL's password appears in no stderr,
// doctor output, audit line, error or get_runtime_info.
func TestSharedArchiveEndToEnd(t *testing.T) {
	t.Parallel()
	dbURL := sharedArchiveURL(t)
	fakeA := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
	// B is another account: its login and its events name it.
	const botB = 20002
	fakeB := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3), simulator.WithSelfID(botB, "BotB"))
	fakeC := simtest.Start(t, simulator.WithToken(e2e.SecretToken), simulator.WithWorld(3))
	gA, gB := fakeA.WorldGroups()[0].ID, fakeB.WorldGroups()[1].ID
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	envA := append(archiveEnv(fakeA, dbURL, gA), "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_AUDIT_FILE="+audit,
		"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=0", "SNOWLUMA_MCP_SEND_PER_MINUTE=0", "SNOWLUMA_MCP_ARCHIVE_READER=alice")
	envB := append(archiveEnv(fakeB, dbURL, gB), "SNOWLUMA_MCP_ARCHIVE_READER=bob")
	pA := mcptest.Spawn(t, plainBinary(t), mcptest.Modern, envA...)
	pB := mcptest.Spawn(t, plainBinary(t), mcptest.Legacy, envB...)
	csA, _ := pA.Connect(nil), pB.Connect(nil)
	e2e.WaitFor(t, "both event connections", func() bool {
		return len(fakeA.EventConns()) > 0 && fakeA.EventConns()[0].Open() && len(fakeB.EventConns()) > 0 && fakeB.EventConns()[0].Open()
	})

	// Both bots' messages pour in at once; A's pusher goes on until the
	// kill.
	const each = 300
	var stop atomic.Bool
	var mu sync.Mutex
	sent := map[int64][]int64{} // group: ids in the order sent
	var wg sync.WaitGroup
	push := func(fake *simulator.Server, g int64, endless bool) {
		defer wg.Done()
		ec := simtest.EventConn(t, fake, 0)
		for i := 0; (i < each || endless) && !stop.Load() && i < 20000; i++ {
			m, ev := fake.WorldSayEvent(g, 424242, fmt.Sprint("共享归档测试 ", g, " ", i))
			frame := string(ev)
			if fake == fakeB {
				frame = strings.Replace(frame, fmt.Sprintf(`"self_id":%d`, simulator.SelfID), fmt.Sprintf(`"self_id":%d`, botB), 1)
			}
			if ec.Send(frame) != nil {
				return
			}
			mu.Lock()
			sent[g] = append(sent[g], m.ID)
			mu.Unlock()
		}
	}
	wg.Add(2)
	go push(fakeA, gA, true)
	go push(fakeB, gB, false)

	// A write through A: the audit line and the archived own send.
	_, r := mcptest.CallTool(t, csA, "invoke_action", map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": gA,
		"message": []any{map[string]any{"type": "text", "data": map[string]any{"text": "共享归档里自己的消息"}}}}})
	if r.Diagnostics.Outcome != "success" {
		t.Fatalf("send: %+v", r.Diagnostics)
	}

	// The third process reads what both wrote.
	envC := append(archiveEnv(fakeC, dbURL, gA), fmt.Sprintf("SNOWLUMA_MCP_ARCHIVE_GROUPS=%d,%d", gA, gB), "SNOWLUMA_MCP_ARCHIVE_READER=carol")
	pC := mcptest.Spawn(t, plainBinary(t), mcptest.Modern, envC...)
	csC := pC.Connect(nil)
	type page struct {
		Messages []struct {
			MessageID int64  `json:"message_id"`
			GroupID   int64  `json:"group_id"`
			Text      string `json:"text"`
		} `json:"messages"`
		NextCursor string `json:"next_cursor"`
	}
	search := func(group int64) map[int64]int {
		found := map[int64]int{}
		args := map[string]any{"query": "共享归档测试", "limit": 100, "format": "fields"}
		if group != 0 {
			args["group_id"] = group
		}
		for {
			_, r := mcptest.CallTool(t, csC, "search_messages", args)
			if r.Diagnostics.Outcome != "success" {
				t.Fatalf("search_messages: %+v", r.Diagnostics)
			}
			pg := mcptest.Decode[page](t, r.Result)
			for _, m := range pg.Messages {
				found[m.GroupID*1_000_000_000+m.MessageID]++
			}
			if pg.NextCursor == "" {
				return found
			}
			args["cursor"] = pg.NextCursor
		}
	}
	e2e.WaitFor(t, "B's messages all archived and A's first", func() bool {
		f := search(gB)
		return len(f) == each && len(search(gA)) >= 50
	})
	// Each of B's once, and A's, in one search over both.
	found := search(0)
	mu.Lock()
	bSent := slices.Clone(sent[gB])
	mu.Unlock()
	for _, id := range bSent {
		if n := found[gB*1_000_000_000+id]; n != 1 {
			t.Fatalf("bot B's message %d found %d times", id, n)
		}
	}
	for k, n := range found {
		if n != 1 {
			t.Fatalf("message %d found %d times", k, n)
		}
	}

	// What search shows last of A: everything A was sent before it
	// survives a kill -9 of A.
	var newest int64
	e2e.WaitFor(t, "search to show A's newest", func() bool {
		_, r := mcptest.CallTool(t, csC, "search_messages", map[string]any{"query": "共享归档测试", "group_id": gA, "limit": 1, "format": "fields"})
		if pg := mcptest.Decode[page](t, r.Result); len(pg.Messages) == 1 {
			newest = pg.Messages[0].MessageID
		}
		return newest != 0
	})
	pA.Kill()
	stop.Store(true)
	wg.Wait()
	ctx := context.Background()
	s, err := archive.Open(ctx, archive.Options{Path: dbURL, Groups: archive.Selection{All: true}, SelfID: simulator.SelfID})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	before := slices.Index(sent[gA], newest)
	if before < 0 {
		t.Fatalf("search showed %d, which A's pusher never sent", newest)
	}
	mustHold := slices.Clone(sent[gA][:before+1])
	mu.Unlock()
	for _, id := range mustHold {
		if _, err := s.Read(ctx, archive.Chat{Group: true, ID: gA}, nil, nil, &archive.Position{MessageID: id}, 1); err != nil {
			t.Fatalf("A's message %d, sent before one search showed, is gone after kill -9: %v", id, err)
		}
	}
	t.Logf("kill -9 of writer A after search showed its %dth message: all held; B's %d found once each", before+1, len(bSent))

	// Two bots wrote: B's messages are in B's chat of its group, A's in
	// A's (chats are keyed by bot, group and peer; C's bot backfilled its
	// own chats, which hold none of them).
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var bots []string
	rows, err := conn.Query(ctx, `SELECT DISTINCT c.bot, c.peer FROM messages m JOIN chats c ON c.id = m.chat WHERE m.text LIKE '共享归档测试%' ORDER BY c.bot`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b, g int64
		if err := rows.Scan(&b, &g); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, fmt.Sprint(b, ":", g))
	}
	if want := []string{fmt.Sprint(simulator.SelfID, ":", gA), fmt.Sprint(botB, ":", gB)}; rows.Err() != nil || !slices.Equal(bots, want) {
		t.Errorf("the chats the messages are stored in: %v (%v), want %v", bots, rows.Err(), want)
	}

	// Read marks are per bot's chat: C's bot keeps a chat of B's group of
	// its own (its backfill); carol marking it read leaves B's chat of the
	// group unread for her.
	e2e.WaitFor(t, "C's bot's own chat of B's group, marked read", func() bool {
		_, r := mcptest.CallTool(t, csC, "mark_read", map[string]any{"group_id": gB})
		return r.Diagnostics.Outcome == "success"
	})
	var marks []string
	rows, err = conn.Query(ctx, `SELECT c.bot, coalesce(k.read_key, 0) > 0 FROM chats c LEFT JOIN marks k ON k.chat = c.id AND k.reader = 'carol'
		WHERE c.grp AND c.peer = $1 ORDER BY c.bot`, gB)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b int64
		var read bool
		if err := rows.Scan(&b, &read); err != nil {
			t.Fatal(err)
		}
		marks = append(marks, fmt.Sprint(b, ":", read))
	}
	if want := []string{fmt.Sprint(simulator.SelfID, ":true"), fmt.Sprint(botB, ":false")}; rows.Err() != nil || !slices.Equal(marks, want) {
		t.Errorf("carol's read marks of B's group per bot: %v (%v), want %v", marks, rows.Err(), want)
	}

	// The password is in nothing shown.
	_, r = mcptest.CallTool(t, csC, "get_runtime_info", map[string]any{})
	info := string(r.Result)
	if !strings.Contains(info, "search_path") {
		t.Errorf("get_runtime_info does not name the archive: %s", info)
	}
	_, docText, findings := doctor(t, append(envC, "SNOWLUMA_MCP_LANG=en")...)
	_, docJSON, _ := runBinary(t, []string{"doctor", "--json"}, envC...)
	if a := findings["archive"]; a.Verdict != "ok" || !strings.Contains(a.Detail, "xxxxx@") {
		t.Errorf("doctor on the shared archive (reachable, this schema, every privilege): %+v", a)
	}
	auditText, err := os.ReadFile(audit)
	if err != nil || len(auditText) == 0 {
		t.Errorf("no audit line: %v", err)
	}
	pC.Close()
	pB.Close()
	for name, out := range map[string]string{"A's stderr": pA.Stderr(), "B's stderr": pB.Stderr(), "C's stderr": pC.Stderr(),
		"get_runtime_info": info, "doctor": docText, "doctor --json": docJSON, "the audit file": string(auditText)} {
		if strings.Contains(out, sharedPassword) {
			t.Errorf("%s shows the archive's password:\n%s", name, out)
		}
	}
	// A wrong login: refused, the password not in the refusal either.
	bad := strings.Replace(dbURL, "://"+mustUser(t, dbURL)+":", "://nosuchrole:", 1)
	code, docBad, docBadErr := runBinary(t, []string{"doctor"}, append(envC, "SNOWLUMA_MCP_ARCHIVE="+bad)...)
	if code == 0 || !strings.Contains(docBad, "nosuchrole") || strings.Contains(docBad+docBadErr, sharedPassword) {
		t.Errorf("doctor with a refused login (exit %d):\n%s\n%s", code, docBad, docBadErr)
	}
}

func mustUser(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		t.Fatalf("no user in the test URL")
	}
	return p.User.Username()
}
