package archive

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// openShared opens an archive of the PostgreSQL database url as bot.
func openShared(t testing.TB, url string, bot int64, mod func(*Options)) *Store {
	t.Helper()
	o := Options{Path: url, Groups: Selection{All: true}, Users: Selection{All: true}, SelfID: bot}
	if mod != nil {
		mod(&o)
	}
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSharedWriters: four servers of two bots write one database at once
// (each bot's messages twice, as two servers of it would, and each bot's
// backfill repeating them): every message is stored once, and a third
// server's search finds both bots' messages once each.
func TestSharedWriters(t *testing.T) {
	t.Parallel()
	url := newSchema(t)
	ctx := context.Background()
	const perBot = 400
	base := time.Now().Add(-time.Hour).Unix()
	frames := func(bot int64) [][]byte {
		var out [][]byte
		for i := range int64(perBot) {
			out = append(out, groupMsg(100+bot%2, 2, bot*100000+i, base+i, fmt.Sprintf("共享归档 bot%d 第%d条", bot, i)))
		}
		return out
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for _, bot := range []int64{1, 2, 1, 2} {
		s := openShared(t, url, bot, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fs := frames(bot)
			for i := 0; i < len(fs); i += 50 {
				if _, err := s.Ingest(ctx, fs[i:i+50]); err != nil {
					errs <- err
					return
				}
			}
			// A backfill of the same chat finds them all held.
			h := &history{msgs: map[Chat][][]byte{}, ids: map[Chat][]int64{}, window: 1000}
			c := Chat{Group: true, ID: 100 + bot%2}
			for i := range int64(perBot) {
				h.add(c, bot*100000+i, base+i, fmt.Sprintf("共享归档 bot%d 第%d条", bot, i))
			}
			if res, err := s.Backfill(ctx, h, c); err != nil || res.Added != 0 {
				errs <- fmt.Errorf("bot %d backfill: %+v %v", bot, res, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	reader := openShared(t, url, 3, nil)
	sum, err := reader.Summary(ctx)
	if err != nil || sum.Messages != 2*perBot {
		t.Fatalf("stored %d, want %d once each: %v", sum.Messages, 2*perBot, err)
	}
	seen := map[string]int{}
	for cursor := ""; ; {
		got, next, err := reader.Search(ctx, Query{Text: "共享归档", Limit: MaxSearch, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			seen[m.Text]++
		}
		if cursor = next; next == "" {
			break
		}
	}
	if len(seen) != 2*perBot {
		t.Fatalf("search found %d distinct messages, want %d", len(seen), 2*perBot)
	}
	for text, n := range seen {
		if n != 1 {
			t.Fatalf("%q found %d times", text, n)
		}
	}
}

// TestSharedSchema: servers starting together on a new database migrate
// it once; a schema newer than this build's is refused with ProblemNewer;
// a database holding another program's messages table is refused.
func TestSharedSchema(t *testing.T) {
	t.Parallel()
	url := newSchema(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(ctx, Options{Path: url, Groups: Selection{All: true}})
			if err != nil {
				errs <- err
				return
			}
			s.Close()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a server starting with others: %v", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows, version int
	if err := conn.QueryRow(ctx, `SELECT count(*), max(version) FROM snowluma_mcp_schema`).Scan(&rows, &version); err != nil || rows != 1 || version != PostgresSchemaVersion {
		t.Fatalf("schema table: %d rows, version %d, %v", rows, version, err)
	}
	if _, err := conn.Exec(ctx, `UPDATE snowluma_mcp_schema SET version = $1`, PostgresSchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, Options{Path: url})
	var ae *Error
	if !errors.As(err, &ae) || ae.Problem != ProblemNewer || !strings.Contains(err.Error(), "newer than this build") {
		t.Fatalf("newer schema: %v", err)
	}

	foreign := newSchema(t)
	fc, err := pgx.Connect(ctx, foreign)
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close(ctx)
	if _, err := fc.Exec(ctx, `CREATE TABLE messages (x int)`); err != nil {
		t.Fatal(err)
	}
	if _, err = Open(ctx, Options{Path: foreign}); !errors.As(err, &ae) || ae.Problem != ProblemForeign {
		t.Fatalf("foreign: %v", err)
	}
}

// TestSharedPrune: retention passes of two servers at once remove each
// old message once, between them, without failing.
func TestSharedPrune(t *testing.T) {
	t.Parallel()
	url := newSchema(t)
	ctx := context.Background()
	now := time.Now()
	a := openShared(t, url, 1, func(o *Options) { o.Days = 7; o.Now = func() time.Time { return now } })
	b := openShared(t, url, 1, func(o *Options) { o.Days = 7; o.Now = func() time.Time { return now } })
	var frames [][]byte
	for i := range int64(300) {
		frames = append(frames, groupMsg(1, 2, i+1, now.Add(-10*24*time.Hour).Unix()+i, "旧消息"))
	}
	frames = append(frames, groupMsg(1, 2, 1000, now.Unix(), "新消息"))
	ingest(t, a, frames...)
	var wg sync.WaitGroup
	var na, nb int64
	var ea, eb error
	wg.Add(2)
	go func() { defer wg.Done(); na, ea = a.Prune(ctx) }()
	go func() { defer wg.Done(); nb, eb = b.Prune(ctx) }()
	wg.Wait()
	if ea != nil || eb != nil || na+nb != 300 {
		t.Fatalf("pruned %d + %d (%v, %v), want 300 in all", na, nb, ea, eb)
	}
	if sum, _ := a.Summary(ctx); sum.Messages != 1 {
		t.Fatalf("left %d", sum.Messages)
	}
}

// TestSharedReaders: two operators' read marks and delivery records are
// their own: one marking a chat read leaves the other's unread count and
// catch-up as they were.
func TestSharedReaders(t *testing.T) {
	t.Parallel()
	url := newSchema(t)
	ctx := context.Background()
	alice := openShared(t, url, 1, func(o *Options) { o.Reader = "alice" })
	bob := openShared(t, url, 1, func(o *Options) { o.Reader = "bob" })
	c := Chat{Group: true, ID: 1}
	now := time.Now().Unix()
	ingest(t, alice, groupMsg(1, 2, 1, now+1, "一"), groupMsg(1, 2, 2, now+1, "二"), groupMsg(1, 2, 3, now+1, "三"))
	if left, err := alice.MarkRead(ctx, c, 0); err != nil || left != 0 {
		t.Fatalf("alice marks read: %d %v", left, err)
	}
	chats, err := bob.Chats(ctx, true)
	if err != nil || len(chats) != 1 || chats[0].Unread != 3 {
		t.Fatalf("bob's unread after alice read: %+v %v", chats, err)
	}
	if chats, _ := alice.Chats(ctx, true); len(chats) != 0 {
		t.Fatalf("alice's unread: %+v", chats)
	}
	all := func(Chat) bool { return true }
	ub, _ := bob.Undelivered(ctx, all)
	if len(ub) != 1 || ub[0].Count != 3 {
		t.Fatalf("bob's undelivered: %+v", ub)
	}
	if err := bob.Delivered(ctx, ub[0]); err != nil {
		t.Fatal(err)
	}
	if ua, _ := alice.Undelivered(ctx, all); len(ua) != 1 || ua[0].Count != 3 {
		t.Fatalf("alice's undelivered after bob's catch-up: %+v", ua)
	}
}

// TestSharedSecret: the URL's password appears in no error, Path or
// Summary, whether the login fails or succeeds.
func TestSharedSecret(t *testing.T) {
	t.Parallel()
	base := testPostgres(t)
	const secret = "Pw-s3cr3t-XYZ"
	u := strings.Replace(base, "://", "://nosuchrole:"+secret+"@", 1)
	if i := strings.Index(base, "@"); i >= 0 { // the base names a user: replace it
		u = base[:strings.Index(base, "://")+3] + "nosuchrole:" + secret + base[i:]
	}
	_, err := Open(context.Background(), Options{Path: u})
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("a failed login: %v", err)
	}
	var ae *Error
	if !errors.As(err, &ae) || ae.Problem != ProblemUnreachable {
		t.Fatalf("a failed login is not classified: %v", err)
	}
	if r := Redact(u); strings.Contains(r, secret) || !strings.Contains(r, "nosuchrole") {
		t.Fatalf("redacted %q", r)
	}
	if r := Redact("postgres://h/db?password=" + secret); strings.Contains(r, secret) {
		t.Fatalf("redacted %q", r)
	}
}

// TestSharedTLS: the URL's sslmode reaches the driver: against a server
// without TLS (the test cluster), require and verify-full are refused
// with the reason, prefer falls back to a plain connection.
func TestSharedTLS(t *testing.T) {
	t.Parallel()
	base := testPostgres(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() == "" || strings.HasPrefix(u.Query().Get("host"), "/") {
		msg := "the TLS test needs " + EnvTestPostgres + " to name a TCP host (TLS is never used on a unix socket)"
		if reference.UnderCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	with := func(mode string) string {
		q := u.Query()
		q.Set("sslmode", mode)
		v := *u
		v.RawQuery = q.Encode()
		return v.String()
	}
	ctx := context.Background()
	for _, mode := range []string{"require", "verify-full"} {
		_, err := Open(ctx, Options{Path: with(mode)})
		var ae *Error
		if !errors.As(err, &ae) || ae.Problem != ProblemUnreachable || !strings.Contains(strings.ToLower(err.Error()), "ssl") {
			t.Errorf("sslmode=%s against a server without TLS: %v", mode, err)
		}
	}
	s, err := Open(ctx, Options{Path: with("prefer") + "&search_path=" + url.QueryEscape(newSchemaName(t))})
	if err != nil {
		t.Fatalf("sslmode=prefer: %v", err)
	}
	s.Close()
}

// TestSharedReconnect: when the database drops the archive's connections
// (a restart, a failover), the feed's batch waits and is stored on a new
// connection: nothing is counted lost.
func TestSharedReconnect(t *testing.T) {
	t.Parallel()
	app := fmt.Sprintf("snowluma-test-%d", time.Now().UnixNano())
	s := openShared(t, newSchema(t)+"&application_name="+app, 1, nil)
	ctx := context.Background()
	f := s.NewFeed()
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }()
	base := time.Now().Add(-time.Hour).Unix()
	for i := range int64(100) {
		f.Take(groupMsg(1, 2, i+1, base+i, "断线前"))
	}
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, testPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var killed int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("terminated %d connections: %v", killed, err)
	}
	for i := range int64(100) {
		f.Take(groupMsg(1, 2, 1000+i, base+100+i, "断线后"))
	}
	if err := f.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	f.Close()
	<-done
	sum, err := s.Summary(ctx)
	if err != nil || sum.Messages != 200 || sum.Lost != 0 || s.Err() != nil {
		t.Fatalf("after the connections dropped: %+v %v %v", sum, err, s.Err())
	}
}

// TestSharedPrivileges: doctor's check names each privilege the role
// lacks (here DELETE, which retention needs), and a role that cannot
// write at all is refused at open as a privilege problem.
func TestSharedPrivileges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := newSchemaName(t)
	base := testPostgres(t)
	owner, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := owner.Query()
	q.Set("search_path", schema)
	owner.RawQuery = q.Encode()
	s, err := Open(ctx, Options{Path: owner.String()})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	roles := map[string]string{"nodelete": "SELECT, INSERT, UPDATE", "readonly": "SELECT"}
	for role, grants := range roles {
		role = schema + "_" + role
		for _, stmt := range []string{
			"CREATE ROLE " + role + " LOGIN",
			"GRANT USAGE ON SCHEMA " + schema + " TO " + role,
			"GRANT " + grants + " ON ALL TABLES IN SCHEMA " + schema + " TO " + role,
			"GRANT USAGE ON ALL SEQUENCES IN SCHEMA " + schema + " TO " + role,
		} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() {
			c, err := pgx.Connect(ctx, base)
			if err == nil {
				c.Exec(ctx, "DROP OWNED BY "+role)
				c.Exec(ctx, "DROP ROLE "+role)
				c.Close(ctx)
			}
		})
	}
	as := func(role string) string {
		u := *owner
		u.User = url.User(schema + "_" + role)
		return u.String()
	}
	s, err = Open(ctx, Options{Path: as("nodelete")})
	if err != nil {
		t.Fatalf("a role without DELETE opens: %v", err)
	}
	defer s.Close()
	err = s.Check(ctx)
	var ae *Error
	if !errors.As(err, &ae) || ae.Problem != ProblemPrivilege || !strings.Contains(err.Error(), "DELETE on messages") || strings.Contains(err.Error(), "INSERT") {
		t.Fatalf("check of a role without DELETE: %v", err)
	}
	_, err = Open(ctx, Options{Path: as("readonly")})
	if !errors.As(err, &ae) || ae.Problem != ProblemPrivilege {
		t.Fatalf("a read-only role: %v", err)
	}
	// The owner holds them all.
	s2, err := Open(ctx, Options{Path: owner.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.Check(ctx); err != nil {
		t.Fatalf("check of the owner: %v", err)
	}
}

// TestSharedMigrateSchema1 opens a database of schema version 1, whose
// chat rows were every bot's (UNIQUE (grp, peer)) and whose messages
// carried their bot, with two bots' messages in one group (both holding
// message 100), two readers' marks and a gap marker: the chat is split
// into one per bot, each with its own messages, both readers' marks and
// the gap; a chat without messages goes. From then on each bot's read
// mark is its own.
func TestSharedMigrateSchema1(t *testing.T) {
	t.Parallel()
	url := newSchema(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	stmts := append([]string{`CREATE TABLE snowluma_mcp_schema (version integer NOT NULL)`, `INSERT INTO snowluma_mcp_schema VALUES (1)`}, pgMigrations[0]...)
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	now := time.Now().Unix() - 600
	created := keyOf(now - 3600)
	if _, err := conn.Exec(ctx, `INSERT INTO chats (id, grp, peer, name, created_key) VALUES (7, true, 1, '开发群', $1), (8, true, 2, '空群', $1)`, created); err != nil {
		t.Fatal(err)
	}
	type row struct {
		bot, msg, key int64
		text          string
	}
	rows := []row{
		{self, 100, keyOf(now) + 1, "明天下午开会"},
		{alt, 100, keyOf(now), "明天下午开会"},
		{self, 101, keyOf(now+1) + 1, "会议室改了"},
		{alt, 500, keyOf(now+2) + 1, "收到开会通知"},
		{alt, 501, keyOf(now+3) + 1, "好的"},
	}
	for _, r := range rows {
		if _, err := conn.Exec(ctx, `INSERT INTO messages (bot, chat, msg, id, uid, sender, text, grams) VALUES ($1, 7, $2, $3, 5, 'nick5', $4, $5::tsvector)`,
			r.bot, r.msg, r.key, r.text, tsvectorOf(r.text)); err != nil {
			t.Fatal(err)
		}
	}
	// alice read up to main's message 100; bob nothing; a gap before them.
	if _, err := conn.Exec(ctx, `INSERT INTO marks (reader, chat, read_key, pushed_key) VALUES ('alice', 7, $1, $2), ('bob', 7, 0, $2), ('alice', 8, 0, $2)`,
		rows[0].key, created); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO gaps (chat, after_key, before_key) VALUES (7, $1, $2), (8, $1, $2)`, keyOf(now-3000), keyOf(now-100)); err != nil {
		t.Fatal(err)
	}

	s := openShared(t, url, self, func(o *Options) { o.Reader, o.BotLabel = "alice", botLabel })
	s.NewFurtherFeed().SetBot(alt) // alt is this server's further bot
	sum, err := s.Summary(ctx)
	if err != nil || sum.SchemaVersion != 2 || sum.Chats != 2 || sum.Messages != 5 || sum.Gaps != 2 {
		t.Fatalf("after migrating: %+v %v (want schema 2, 2 chats, 5 messages, 2 gaps)", sum, err)
	}
	var version int
	if err := conn.QueryRow(ctx, `SELECT version FROM snowluma_mcp_schema`).Scan(&version); err != nil || version != 2 {
		t.Fatalf("schema table: %d %v", version, err)
	}
	mainChat, altChat := Chat{Group: true, ID: 1}, Chat{Group: true, ID: 1, Bot: alt}
	read := func(c Chat) []string {
		t.Helper()
		w, err := s.Read(ctx, c, nil, nil, nil, 0)
		if err != nil {
			t.Fatalf("read %v: %v", c, err)
		}
		var out []string
		for _, m := range w.Messages {
			out = append(out, fmt.Sprint(m.Bot, " ", m.MessageID))
		}
		return out
	}
	if got := read(mainChat); strings.Join(got, ",") != "main 100,main 101" {
		t.Fatalf("main's chat: %q", got)
	}
	if got := read(altChat); strings.Join(got, ",") != "alt 100,alt 500,alt 501" {
		t.Fatalf("alt's chat: %q", got)
	}
	for _, c := range []Chat{mainChat, altChat} {
		if g, err := s.Gaps(ctx, c); err != nil || len(g) != 1 {
			t.Fatalf("%v's gaps: %+v %v", c, g, err)
		}
	}
	unread := func(s *Store) map[string]string {
		t.Helper()
		chats, err := s.Chats(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, c := range chats {
			out[c.Bot] = fmt.Sprint(c.Name, " ", c.Unread)
		}
		return out
	}
	// alice's mark, copied to each bot's chat: main's 101 is unread, and
	// alt's 500 and 501 (alt's 100 came before the mark).
	if got := unread(s); len(got) != 2 || got["main"] != "开发群 1" || got["alt"] != "开发群 2" {
		t.Fatalf("alice's chats after migrating: %v", got)
	}
	if left, err := s.MarkRead(ctx, altChat, 0); err != nil || left != 0 {
		t.Fatalf("alice marks alt's chat read: %d %v", left, err)
	}
	if got := unread(s); got["main"] != "开发群 1" || got["alt"] != "开发群 0" {
		t.Fatalf("marking alt's chat read touched main's: %v", got)
	}
	bob := openShared(t, url, self, func(o *Options) { o.Reader, o.BotLabel = "bob", botLabel })
	bob.NewFurtherFeed().SetBot(alt)
	if got := unread(bob); got["main"] != "开发群 2" || got["alt"] != "开发群 3" {
		t.Fatalf("bob's chats: %v", got)
	}
	// Search finds both bots' copies of message 100, each labelled.
	f, err := s.Find(ctx, Query{Text: "开会"})
	if err != nil || len(f.Messages) != 3 {
		t.Fatalf("search after migrating: %+v %v", f.Messages, err)
	}
	// A new message of either bot lands in its own chat.
	ingest(t, s, groupMsg(1, 5, 102, now+10, "新消息"))
	if got := read(mainChat); len(got) != 3 || got[2] != "main 102" {
		t.Fatalf("main's chat after a new message: %q", got)
	}
}
