package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// alt is the QQ number of the second bot of the several-bots tests.
const alt = 20002

// botLabel names the tests' two bots: the first (key 0) and alt.
func botLabel(bot int64) string {
	if bot == 0 {
		return "main"
	}
	return map[int64]string{alt: "alt"}[bot]
}

// asBot is frame as the account selfID received it.
func asBot(t testing.TB, frame []byte, selfID int64) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(frame, &m); err != nil {
		t.Fatal(err)
	}
	m["self_id"] = selfID
	b, _ := json.Marshal(m)
	return b
}

// feedBoth runs the first bot's feed and a further bot's over s, gives
// each its frames and waits until both are stored.
func feedBoth(t *testing.T, s *Store, first, further [][]byte) {
	t.Helper()
	ctx := context.Background()
	main, other := s.NewFeed(), s.NewFurtherFeed()
	other.SetBot(alt) // as its keeper does once get_login_info answers
	go main.Run(ctx)
	go other.Run(ctx)
	for _, f := range first {
		main.Take(f)
	}
	for _, f := range further {
		other.Take(f)
	}
	if err := main.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := other.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSeveralBotsShareOneArchive is the contract's bot dimension: two
// bots in one group, each with its own event connection, are both
// archived, every hit names its bot, a search can keep one bot's, and a
// send through the further bot is its own.
func TestSeveralBotsShareOneArchive(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, func(o *Options) { o.BotLabel = botLabel })
		ctx := context.Background()
		now := time.Now().Unix()
		msg := groupMsg(1, 5, 100, now, "明天下午开会")
		feedBoth(t, s, [][]byte{msg}, [][]byte{asBot(t, msg, alt), asBot(t, groupMsg(1, 6, 101, now, "开会地点改了"), alt)})

		f, err := s.Find(ctx, Query{Text: "开会"})
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, m := range f.Messages {
			labels = append(labels, m.Bot+":"+m.Text)
		}
		slices.Sort(labels)
		want := []string{"alt:开会地点改了", "alt:明天下午开会", "main:明天下午开会"}
		if !slices.Equal(labels, want) {
			t.Fatalf("hits %q, want %q", labels, want)
		}
		one := int64(alt)
		f, err = s.Find(ctx, Query{Text: "开会", Bot: &one})
		if err != nil || len(f.Messages) != 2 || f.Messages[0].Bot != "alt" || f.Messages[1].Bot != "alt" {
			t.Fatalf("alt's hits: %+v %v", f.Messages, err)
		}
		first := int64(0)
		f, err = s.Find(ctx, Query{Text: "开会", Bot: &first})
		if err != nil || len(f.Messages) != 1 || f.Messages[0].Bot != "main" {
			t.Fatalf("main's hits: %+v %v", f.Messages, err)
		}

		if err := s.RecordSent(ctx, Chat{Group: true, ID: 1, Bot: alt}, 102, json.RawMessage(`"好的，收到开会通知"`)); err != nil {
			t.Fatal(err)
		}
		f, err = s.Find(ctx, Query{Text: "收到"})
		if err != nil || len(f.Messages) != 1 || f.Messages[0].Bot != "alt" || f.Messages[0].UserID != alt || !f.Messages[0].Own {
			t.Fatalf("alt's send: %+v %v", f.Messages, err)
		}
	})
}

// TestSeveralBotsOneBotAddsNothing: without BotLabel (one bot) no hit or
// chat carries a bot.
func TestSeveralBotsOneBotAddsNothing(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		ctx := context.Background()
		ingest(t, s, groupMsg(1, 5, 100, time.Now().Unix(), "明天下午开会"))
		f, err := s.Find(ctx, Query{Text: "开会"})
		if err != nil || len(f.Messages) != 1 {
			t.Fatalf("%+v %v", f, err)
		}
		b, _ := json.Marshal(f.Messages[0])
		var m map[string]any
		json.Unmarshal(b, &m)
		if _, ok := m["bot"]; ok {
			t.Fatalf("one bot's hit names a bot: %s", b)
		}
		chats, _ := s.Chats(ctx, false)
		b, _ = json.Marshal(chats)
		if json.Unmarshal(b, &[]map[string]any{}) != nil || len(chats) != 1 || chats[0].Bot != "" {
			t.Fatalf("one bot's chat names a bot: %s", b)
		}
	})
}

// TestSeveralBotsChatsPerBot is the contract's per-bot chat: on both
// stores, two bots in one group keep two chats (a PostgreSQL chat row is
// keyed (bot, grp, peer) like the file's), each listed with its label and
// with its own read mark and unread count, its own gap markers and its
// own channel catch-up; a search of the group covers both unless a bot is
// named.
func TestSeveralBotsChatsPerBot(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, func(o *Options) { o.BotLabel = botLabel })
		ctx := context.Background()
		now := time.Now().Unix() + 1
		mainChat, altChat := Chat{Group: true, ID: 1}, Chat{Group: true, ID: 1, Bot: alt}

		// alt held ten messages an hour ago; 250 more came while it was
		// away, past SnowLuma's window: a gap in alt's chat alone.
		h := &history{msgs: map[Chat][][]byte{}, ids: map[Chat][]int64{}, window: 1000}
		for i := range int64(10) {
			h.add(altChat, 1+i, now-3600+i, "旧消息")
		}
		if res, err := s.Backfill(ctx, h, altChat); err != nil || res.Added != 10 {
			t.Fatalf("alt's first backfill: %+v %v", res, err)
		}
		for i := range int64(250) {
			h.add(altChat, 100+i, now-3000+i, "错过的消息")
		}
		h.window = 99
		if res, err := s.Backfill(ctx, h, altChat); err != nil || !res.Gap {
			t.Fatalf("alt's backfill past the window: %+v %v", res, err)
		}

		msg := groupMsg(1, 5, 9000, now, "明天下午开会")
		feedBoth(t, s, [][]byte{msg}, [][]byte{asBot(t, msg, alt)})

		if g, err := s.Gaps(ctx, altChat); err != nil || len(g) != 1 {
			t.Fatalf("alt's gaps: %+v %v", g, err)
		}
		if g, err := s.Gaps(ctx, mainChat); err != nil || len(g) != 0 {
			t.Fatalf("alt's gap is main's too: %+v %v", g, err)
		}
		if w, err := s.Read(ctx, mainChat, nil, &Position{Time: time.Unix(now-4000, 0)}, nil, 0); err != nil || len(w.Messages) != 1 || len(w.Gaps) != 0 || w.Messages[0].Bot != "main" {
			t.Fatalf("main's chat: %+v %v", w, err)
		}
		w, err := s.Read(ctx, altChat, nil, &Position{Time: time.Unix(now-4000, 0)}, nil, 20)
		if err != nil || len(w.Messages) != 20 || len(w.Gaps) != 1 || w.Messages[0].Bot != "alt" {
			t.Fatalf("alt's chat: %+v %v", w, err)
		}

		chats, err := s.Chats(ctx, false)
		if err != nil || len(chats) != 2 {
			t.Fatalf("chats %+v %v", chats, err)
		}
		unread := map[string]int64{}
		for _, c := range chats {
			unread[c.Bot] = c.Unread
		}
		if unread["main"] != 1 || unread["alt"] != 10+99+1 {
			t.Fatalf("unread per bot %v, want main 1, alt 110", unread)
		}
		if left, err := s.MarkRead(ctx, altChat, 0); err != nil || left != 0 {
			t.Fatalf("mark alt's chat read: %d %v", left, err)
		}
		if u, _ := s.Chats(ctx, true); len(u) != 1 || u[0].Bot != "main" || u[0].Unread != 1 {
			t.Fatalf("marking alt's chat read touched main's: %+v", u)
		}

		all := func(Chat) bool { return true }
		u, err := s.Undelivered(ctx, all)
		if err != nil || len(u) != 2 {
			t.Fatalf("undelivered %+v %v", u, err)
		}
		for _, x := range u {
			if x.Chat.Bot == alt {
				if err := s.Delivered(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
		}
		if u, _ = s.Undelivered(ctx, all); len(u) != 1 || u[0].Chat.Bot != 0 || u[0].Count != 1 {
			t.Fatalf("delivering alt's catch-up delivered main's: %+v", u)
		}

		f, err := s.Find(ctx, Query{Text: "开会", Chat: &mainChat})
		if err != nil || len(f.Messages) != 2 {
			t.Fatalf("the group's search covers both bots: %+v %v", f.Messages, err)
		}
		one := int64(alt)
		f, err = s.Find(ctx, Query{Text: "开会", Chat: &mainChat, Bot: &one})
		if err != nil || len(f.Messages) != 1 || f.Messages[0].Bot != "alt" {
			t.Fatalf("the group's search for alt: %+v %v", f.Messages, err)
		}
		if _, err := s.Read(ctx, Chat{Group: true, ID: 1, Bot: 30003}, nil, nil, nil, 0); err != ErrNoChat {
			t.Fatalf("a third bot's chat: %v", err)
		}
	})
}

// TestMigrateSchema1 opens a file of schema version 1 (one bot, chats
// keyed (grp, peer)): its chats become the first bot's, with their read
// marks, and a further bot's chat of the same group is a chat of its own.
func TestMigrateSchema1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range migrations[0] {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().Unix()
	for _, stmt := range []string{
		`INSERT INTO chats (id, grp, peer, name, read_key, pushed_key) VALUES (7, 1, 1, '开发群', 0, 0)`,
		`INSERT INTO messages (id, chat, msg, user, sender, text) VALUES (` + strconv.FormatInt(keyOf(now), 10) + `, 7, 100, 5, 'nick5', '明天下午开会')`,
		`INSERT INTO grams (rowid, t) VALUES (` + strconv.FormatInt(keyOf(now), 10) + `, '明天 天下 下午 午开 开会')`,
		`PRAGMA application_id = 1397509441`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	s, err := Open(context.Background(), Options{Path: path, Groups: Selection{All: true}, SelfID: self, BotLabel: botLabel})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sum, err := s.Summary(ctx)
	if err != nil || sum.SchemaVersion != SchemaVersion || sum.Chats != 1 || sum.Messages != 1 {
		t.Fatalf("summary %+v %v", sum, err)
	}
	w, err := s.Read(ctx, Chat{Group: true, ID: 1}, nil, nil, nil, 0)
	if err != nil || len(w.Messages) != 1 || w.Messages[0].Bot != "main" {
		t.Fatalf("the first bot's chat after migrating: %+v %v", w, err)
	}
	feedBoth(t, s, nil, [][]byte{asBot(t, groupMsg(1, 5, 100, now, "明天下午开会"), alt)})
	chats, _ := s.Chats(ctx, false)
	if len(chats) != 2 {
		t.Fatalf("chats after a further bot's message: %+v", chats)
	}
	for _, c := range chats {
		if c.Bot == "main" && c.Name != "开发群" {
			t.Fatalf("the migrated chat lost its name: %+v", c)
		}
	}
}
