package archive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const self = 10001

func groupMsg(group, user, id, at int64, text string) []byte {
	b, _ := json.Marshal(map[string]any{"post_type": "message", "self_id": self, "message_type": "group", "sub_type": "normal",
		"message_id": id, "group_id": group, "user_id": user, "time": at,
		"message": []any{map[string]any{"type": "text", "data": map[string]any{"text": text}}},
		"sender":  map[string]any{"user_id": user, "nickname": fmt.Sprint("nick", user), "card": ""}})
	return b
}

func privateMsg(user, id, at int64, text string) []byte {
	b, _ := json.Marshal(map[string]any{"post_type": "message", "self_id": self, "message_type": "private", "sub_type": "friend",
		"message_id": id, "user_id": user, "time": at, "message": text,
		"sender": map[string]any{"user_id": user, "nickname": "friend"}})
	return b
}

func ingest(t testing.TB, s *Store, frames ...[]byte) int {
	t.Helper()
	n, err := s.Ingest(context.Background(), frames)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func texts(ms []Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

func TestIngestSearchChinese(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		ctx := context.Background()
		base := time.Now().Add(-time.Hour).Unix()
		n := ingest(t, s,
			groupMsg(1, 2, 100, base, "明天下午开会，记得带电脑"),
			groupMsg(1, 3, 101, base+1, "会议链接：https://meet.example.com/abc"),
			groupMsg(5, 2, 102, base+2, "ＷｅｂＳｏｃｋｅｔ 怎么配置？"),
			privateMsg(7, 103, base+3, "开会[CQ:image,file=x.jpg]吗"),
			groupMsg(1, 2, 100, base, "明天下午开会，记得带电脑"), // a duplicate
			[]byte(`{"post_type":"meta_event","meta_event_type":"heartbeat"}`),
			[]byte(`not json`),
		)
		if n != 4 {
			t.Fatalf("stored %d, want 4", n)
		}
		for _, c := range []struct {
			q    string
			want []string
		}{
			{"开会", []string{"开会[图片 #1]吗", "明天下午开会，记得带电脑"}},
			{"下午开会", []string{"明天下午开会，记得带电脑"}},
			{"链接", []string{"会议链接：https://meet.example.com/abc"}},
			{"会", []string{"开会[图片 #1]吗", "会议链接：https://meet.example.com/abc", "明天下午开会，记得带电脑"}},
			{"websocket", []string{"ＷｅｂＳｏｃｋｅｔ 怎么配置？"}},
			{"ＷＥＢＳＯＣＫＥＴ 配置", []string{"ＷｅｂＳｏｃｋｅｔ 怎么配置？"}},
			{"meet", []string{"会议链接：https://meet.example.com/abc"}},
			{"图片", []string{"开会[图片 #1]吗"}},
			{"開會", []string{"开会[图片 #1]吗", "明天下午开会，记得带电脑"}},
			{"會議鏈接", []string{"会议链接：https://meet.example.com/abc"}},
			{"开车", nil},
		} {
			got, _, err := s.Search(ctx, Query{Text: c.q})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(texts(got)) != fmt.Sprint(c.want) {
				t.Errorf("search %q = %q, want %q", c.q, texts(got), c.want)
			}
		}
		// Filters: chat, sender, time.
		g1 := Chat{Group: true, ID: 1}
		got, _, _ := s.Search(ctx, Query{Text: "会", Chat: &g1})
		if len(got) != 2 || got[0].GroupID != 1 || got[0].Chat != "group:1" {
			t.Errorf("group filter: %+v", got)
		}
		got, _, _ = s.Search(ctx, Query{Text: "会", UserID: 3})
		if len(got) != 1 || got[0].UserID != 3 {
			t.Errorf("user filter: %+v", got)
		}
		got, _, _ = s.Search(ctx, Query{Text: "会", Since: time.Unix(base+1, 0), Until: time.Unix(base+1, 0)})
		if len(got) != 1 || got[0].MessageID != 101 {
			t.Errorf("time filter: %+v", got)
		}
		// Paging.
		p1, next, _ := s.Search(ctx, Query{Text: "会", Limit: 2})
		p2, next2, _ := s.Search(ctx, Query{Text: "会", Limit: 2, Cursor: next})
		if len(p1) != 2 || next == "" || len(p2) != 1 || next2 != "" || p2[0].MessageID != 100 {
			t.Errorf("paging: %v %q %v %q", texts(p1), next, texts(p2), next2)
		}
		if _, _, err := s.Search(ctx, Query{Text: "会", Cursor: "!!"}); !errors.Is(err, ErrCursor) {
			t.Errorf("bad cursor: %v", err)
		}
		if _, _, err := s.Search(ctx, Query{Text: "，。!"}); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("empty query: %v", err)
		}
	})
}

func TestOwnPrivateSentEventIsPlacedOnlyBySend(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		ctx := context.Background()
		sent, _ := json.Marshal(map[string]any{"post_type": "message_sent", "self_id": self, "message_type": "private", "message_id": 9, "user_id": self, "time": time.Now().Unix(), "message": "hi"})
		if n := ingest(t, s, sent); n != 0 {
			t.Fatalf("a private message_sent was placed in a chat: %d", n)
		}
		if err := s.RecordSent(ctx, Chat{ID: 7}, 9, json.RawMessage(`[{"type":"text","data":{"text":"你好，明天开会"}}]`)); err != nil {
			t.Fatal(err)
		}
		w, err := s.Read(ctx, Chat{ID: 7}, nil, nil, nil, 0)
		if err != nil || len(w.Messages) != 1 || !w.Messages[0].Own || w.Messages[0].UserID != self || w.Messages[0].Text != "你好，明天开会" {
			t.Fatalf("own send: %+v %v", w, err)
		}
		chats, _ := s.Chats(ctx, false)
		if len(chats) != 1 || chats[0].Unread != 0 {
			t.Errorf("an own message counts as unread: %+v", chats)
		}
	})
}

func TestSelection(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, func(o *Options) {
			o.Groups = Selection{IDs: map[int64]bool{1: true, 2: true}}
			o.Users = Selection{}
			o.Allowed = func(group bool, id int64) bool { return !group || id != 2 }
		})
		now := time.Now().Unix()
		if n := ingest(t, s, groupMsg(1, 5, 1, now, "a"), groupMsg(2, 5, 2, now, "b"), groupMsg(3, 5, 3, now, "c"), privateMsg(5, 4, now, "d")); n != 1 {
			t.Fatalf("stored %d, want only group 1's", n)
		}
	})
}

func TestReadWindowsAndUnread(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		ctx := context.Background()
		base := time.Now().Add(-24 * time.Hour).Unix()
		var frames [][]byte
		for i := range int64(250) {
			frames = append(frames, groupMsg(1, 2, 1000+i, base+i, fmt.Sprint("第", i, "条")))
		}
		ingest(t, s, frames...)
		c := Chat{Group: true, ID: 1}
		w, err := s.Read(ctx, c, nil, nil, nil, 0)
		if err != nil || len(w.Messages) != DefaultRead || w.Messages[DefaultRead-1].MessageID != 1249 || !w.MoreBefore || w.MoreAfter {
			t.Fatalf("newest: %d %+v %v", len(w.Messages), w.Messages[len(w.Messages)-1], err)
		}
		w, _ = s.Read(ctx, c, &Position{MessageID: 1100}, nil, nil, 200)
		if len(w.Messages) != 100 || w.Messages[0].MessageID != 1000 || w.Messages[99].MessageID != 1099 || w.MoreBefore || !w.MoreAfter {
			t.Fatalf("before: %d", len(w.Messages))
		}
		w, _ = s.Read(ctx, c, nil, &Position{MessageID: 1200}, nil, 10)
		if len(w.Messages) != 10 || w.Messages[0].MessageID != 1201 {
			t.Fatalf("after: %+v", w.Messages[0])
		}
		w, _ = s.Read(ctx, c, nil, nil, &Position{MessageID: 1005}, 10)
		if len(w.Messages) != 10 || w.Messages[0].MessageID != 1000 || w.Messages[5].MessageID != 1005 {
			t.Fatalf("around: %v", texts(w.Messages))
		}
		w, _ = s.Read(ctx, c, nil, &Position{Time: time.Unix(base+10, 0)}, nil, 1)
		if w.Messages[0].MessageID != 1010 {
			t.Fatalf("after a time: %+v", w.Messages)
		}
		if _, err := s.Read(ctx, c, &Position{MessageID: 5}, nil, nil, 1); !errors.Is(err, ErrNoMessage) {
			t.Fatalf("unknown anchor: %v", err)
		}
		if _, err := s.Read(ctx, Chat{Group: true, ID: 99}, nil, nil, nil, 1); !errors.Is(err, ErrNoChat) {
			t.Fatalf("unknown chat: %v", err)
		}
		chats, _ := s.Chats(ctx, true)
		if len(chats) != 1 || chats[0].Unread != 250 || chats[0].Messages != 250 {
			t.Fatalf("unread: %+v", chats)
		}
		left, err := s.MarkRead(ctx, c, 1199)
		if err != nil || left != 50 {
			t.Fatalf("mark_read to 1199: %d %v", left, err)
		}
		if left, _ = s.MarkRead(ctx, c, 0); left != 0 {
			t.Fatalf("mark_read all: %d", left)
		}
		if chats, _ = s.Chats(ctx, true); len(chats) != 0 {
			t.Fatalf("unread_only after mark: %+v", chats)
		}
		ingest(t, s, groupMsg(1, 2, 5000, time.Now().Unix(), "new"))
		if chats, _ = s.Chats(ctx, true); len(chats) != 1 || chats[0].Unread != 1 {
			t.Fatalf("unread after a new message: %+v", chats)
		}
	})
}

func recallFrame(group, user, id int64) []byte {
	if group != 0 {
		return []byte(fmt.Sprintf(`{"time":1,"self_id":%d,"post_type":"notice","notice_type":"group_recall","group_id":%d,"operator_id":%d,"user_id":%d,"message_id":%d}`, self, group, user, user, id))
	}
	return []byte(fmt.Sprintf(`{"time":1,"self_id":%d,"post_type":"notice","notice_type":"friend_recall","user_id":%d,"message_id":%d}`, self, user, id))
}

func TestRecall(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		for _, keep := range []bool{false, true} {
			s := open(t, func(o *Options) { o.KeepRecalled = keep })
			ctx := context.Background()
			now := time.Now().Unix()
			ingest(t, s, groupMsg(1, 2, 10, now, "秘密口令是芝麻开门"), privateMsg(7, 11, now, "私聊秘密"))
			ingest(t, s, recallFrame(1, 2, 10), recallFrame(0, 7, 11), recallFrame(1, 2, 999))
			w, _ := s.Read(ctx, Chat{Group: true, ID: 1}, nil, nil, nil, 0)
			m := w.Messages[0]
			got, _, _ := s.Search(ctx, Query{Text: "芝麻"})
			if !m.Recalled || (m.Text == "") == keep || (len(got) == 1) != keep {
				t.Errorf("keep=%v: %+v, search %d", keep, m, len(got))
			}
			w, _ = s.Read(ctx, Chat{ID: 7}, nil, nil, nil, 0)
			if !w.Messages[0].Recalled {
				t.Errorf("friend recall not marked: %+v", w.Messages[0])
			}
			if st := s.Stats(); st.Recalls != 3 {
				t.Errorf("recalls counted %d", st.Recalls)
			}
		}
	})
}

func TestRetention(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		now := time.Now()
		s := open(t, func(o *Options) { o.Days = 7; o.Now = func() time.Time { return now } })
		ctx := context.Background()
		ingest(t, s, groupMsg(1, 2, 1, now.Add(-10*24*time.Hour).Unix(), "旧消息"), groupMsg(1, 2, 2, now.Add(-time.Hour).Unix(), "新消息"))
		if n, err := s.Prune(ctx); err != nil || n != 1 {
			t.Fatalf("pruned %d %v", n, err)
		}
		if got, _, _ := s.Search(ctx, Query{Text: "消息"}); len(got) != 1 || got[0].MessageID != 2 {
			t.Fatalf("after prune: %+v", got)
		}

		// The size limit removes the oldest first.
		s = open(t, func(o *Options) { o.MaxBytes = 600 << 10 })
		base := time.Now().Add(-time.Hour).Unix()
		// Twice the limit in long messages: the rows, not the bytes, are
		// what the race-checked SQLite spends its time on.
		const count = 1500
		var frames [][]byte
		for i := range int64(count) {
			frames = append(frames, groupMsg(1, 2, i+1, base+i/10, strings.Repeat("长消息", 80)+fmt.Sprint(i)))
		}
		ingest(t, s, frames...)
		n, err := s.Prune(ctx)
		if err != nil || n == 0 {
			t.Fatalf("size prune: %d %v", n, err)
		}
		sum, _ := s.Summary(ctx)
		if sum.Bytes > 600<<10 || sum.Messages == 0 {
			t.Fatalf("after size prune: %+v", sum)
		}
		w, _ := s.Read(ctx, Chat{Group: true, ID: 1}, nil, nil, nil, 1)
		if w.Messages[0].MessageID != count || !w.MoreBefore {
			t.Fatalf("the newest went: %+v", w.Messages)
		}
		old, _ := s.Read(ctx, Chat{Group: true, ID: 1}, nil, &Position{Time: time.Unix(1, 0)}, nil, 1)
		if old.Messages[0].MessageID == 1 {
			t.Fatalf("the oldest stayed")
		}
	})
}

// history is a fetcher that pages as SnowLuma does: the count messages up
// to and including the anchor, oldest first, out of a window of the newest
// `window` of each chat; an anchor outside it lists nothing.
type history struct {
	msgs   map[Chat][][]byte
	ids    map[Chat][]int64
	window int
	fail   bool
	calls  int
}

func (h *history) add(c Chat, id, at int64, text string) []byte {
	var f []byte
	if c.Group {
		f = groupMsg(c.ID, 2, id, at, text)
	} else {
		f = privateMsg(c.ID, id, at, text)
	}
	h.msgs[c] = append(h.msgs[c], f)
	h.ids[c] = append(h.ids[c], id)
	return f
}

func (h *history) History(_ context.Context, c Chat, anchor int64, count int) ([]json.RawMessage, error) {
	h.calls++
	if h.fail {
		return nil, errors.New("connection refused")
	}
	ids, msgs := h.ids[c], h.msgs[c]
	if len(ids) > h.window {
		ids, msgs = ids[len(ids)-h.window:], msgs[len(msgs)-h.window:]
	}
	end := len(ids)
	if anchor != 0 {
		end = -1
		for i, id := range ids {
			if id == anchor {
				end = i + 1
			}
		}
		if end < 0 {
			return nil, nil
		}
	}
	var out []json.RawMessage
	for i := max(0, end-count); i < end; i++ {
		out = append(out, msgs[i])
	}
	return out, nil
}

func TestBackfill(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		c := Chat{Group: true, ID: 1}
		base := time.Now().Add(-time.Hour).Unix()
		h := &history{msgs: map[Chat][][]byte{}, ids: map[Chat][]int64{}, window: 99}
		s := open(t, nil)
		// Held before the "restart": ten messages.
		for i := range int64(10) {
			ingest(t, s, h.add(c, i+1, base+i, "held"))
		}
		// Missed while down: 150, more than one page, within the window? No:
		// 60 first, which a page reaches.
		for i := range int64(60) {
			h.add(c, 100+i, base+100+i, "missed")
		}
		res, err := s.Backfill(ctx, h, c)
		if err != nil || !res.Met || res.Added != 60 || res.Gap {
			t.Fatalf("closing backfill: %+v %v", res, err)
		}
		// Missed beyond SnowLuma's window: a gap marker.
		for i := range int64(250) {
			h.add(c, 1000+i, base+1000+i, "far")
		}
		res, err = s.Backfill(ctx, h, c)
		if err != nil || res.Met || !res.Exhausted || !res.Gap || res.Added != 99 || res.Pages < 2 {
			t.Fatalf("gap backfill: %+v %v", res, err)
		}
		gaps, _ := s.Gaps(ctx, c)
		if len(gaps) != 1 || !strings.Contains(gaps[0].Note, "may be missing") {
			t.Fatalf("gaps: %+v", gaps)
		}
		w, _ := s.Read(ctx, c, nil, nil, &Position{MessageID: 159}, 4)
		if len(w.Gaps) != 1 {
			t.Fatalf("the window across the hole shows no gap: %+v", w)
		}
		// A new chat backfills without a gap.
		d := Chat{ID: 7}
		for i := range int64(30) {
			h.add(d, 5000+i, base+i, "friend")
		}
		res, err = s.Backfill(ctx, h, d)
		if err != nil || res.Gap || res.Added != 30 {
			t.Fatalf("new chat: %+v %v", res, err)
		}
		// A failing SnowLuma records nothing.
		h.fail = true
		if _, err := s.Backfill(ctx, h, d); err == nil {
			t.Fatal("no error from a failing fetch")
		}
	})
}

func TestFileErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "x", "archive.db")
	s, err := Open(ctx, Options{Path: path, Groups: Selection{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode(), err, want)
		}
	}
	ingest(t, s, groupMsg(1, 2, 1, time.Now().Unix(), "x"))
	// A second opener is refused, naming the file.
	_, err = Open(ctx, Options{Path: path})
	var ae *Error
	if !errors.As(err, &ae) || ae.Problem != ProblemLocked || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open: %v", err)
	}
	s.Close()
	s, err = Open(ctx, Options{Path: path, Groups: Selection{All: true}})
	if err != nil {
		t.Fatalf("reopen after close: %v", err)
	}
	if sum, _ := s.Summary(ctx); sum.Messages != 1 {
		t.Fatalf("reopened: %+v", sum)
	}
	s.Close()

	corrupt := filepath.Join(dir, "corrupt.db")
	os.WriteFile(corrupt, []byte(strings.Repeat("garbage!", 1000)), 0o600)
	_, err = Open(ctx, Options{Path: corrupt})
	if !errors.As(err, &ae) || ae.Problem != ProblemCorrupt || !strings.Contains(err.Error(), corrupt) {
		t.Fatalf("corrupt: %v", err)
	}

	foreign := filepath.Join(dir, "foreign.db")
	f, err := Open(ctx, Options{Path: foreign})
	if err != nil {
		t.Fatal(err)
	}
	f.st.(*sqliteStore).db.Exec("PRAGMA application_id = 42")
	f.Close()
	_, err = Open(ctx, Options{Path: foreign})
	if !errors.As(err, &ae) || ae.Problem != ProblemForeign {
		t.Fatalf("foreign: %v", err)
	}

	newer := filepath.Join(dir, "newer.db")
	f, _ = Open(ctx, Options{Path: newer})
	f.st.(*sqliteStore).db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1))
	f.Close()
	_, err = Open(ctx, Options{Path: newer})
	if !errors.As(err, &ae) || ae.Problem != ProblemNewer {
		t.Fatalf("newer: %v", err)
	}

	if _, err = Open(ctx, Options{Path: "relative.db"}); !errors.As(err, &ae) {
		t.Fatalf("relative: %v", err)
	}
}

func TestFull(t *testing.T) {
	t.Parallel()
	s := openFile(t, func(o *Options) { o.maxPages = 40 })
	ctx := context.Background()
	var frames [][]byte
	for i := range int64(2000) {
		frames = append(frames, groupMsg(1, 2, i+1, time.Now().Unix(), strings.Repeat("满", 100)))
	}
	_, err := s.Ingest(ctx, frames)
	var ae *Error
	if !errors.As(err, &ae) || ae.Problem != ProblemFull || !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), "ARCHIVE_MAX_BYTES") {
		t.Fatalf("full: %v", err)
	}
	// Reads still work, and a small write still fits.
	if _, err := s.Chats(ctx, false); err != nil {
		t.Fatalf("read after full: %v", err)
	}
	if st := s.Stats(); st.Failures == 0 || st.LastError == "" {
		t.Fatalf("failure not counted: %+v", st)
	}
}

// TestPushedBeforeIngest: a live push recorded before the archive stored
// its message (the channel's loop ran first) counts once the message
// arrives, so that no catch-up repeats it; a message never pushed stays
// undelivered.
func TestPushedBeforeIngest(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		ctx := context.Background()
		chat := Chat{Group: true, ID: 42}
		now := time.Now().Unix()
		all := func(Chat) bool { return true }
		undelivered := func() []Undelivered {
			t.Helper()
			u, err := s.Undelivered(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		push := func(msg int64) {
			t.Helper()
			if behind, err := s.Pushed(ctx, chat, msg, msg); behind || err != nil {
				t.Fatalf("push of %d: behind %v, %v", msg, behind, err)
			}
		}

		ingest(t, s, groupMsg(chat.ID, 7, 1, now, "一"))
		push(1)
		push(2) // before its message is stored
		ingest(t, s, groupMsg(chat.ID, 7, 2, now, "二"))
		if u := undelivered(); len(u) != 0 {
			t.Fatalf("pushed messages reported undelivered: %+v", u)
		}
		ingest(t, s, groupMsg(chat.ID, 7, 3, now, "三"))
		if u := undelivered(); len(u) != 1 || u[0].Count != 1 || u[0].First != 3 {
			t.Fatalf("the message never pushed: %+v", u)
		}
	})
}

// TestGapsTrue: a gap marker is removed once a backfill's pages cover it;
// after a reconnect, what the connection itself delivered is never inside
// a gap (the feed loses nothing), so the marker ends at the connection's
// first message of the chat.
func TestGapsTrue(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		ctx := context.Background()
		c := Chat{Group: true, ID: 1}
		base := time.Now().Add(-time.Hour).Unix()
		h := &history{msgs: map[Chat][][]byte{}, ids: map[Chat][]int64{}, window: 99}
		s := open(t, nil)
		for i := range int64(10) {
			ingest(t, s, h.add(c, i+1, base+i, "held"))
		}
		for i := range int64(250) {
			h.add(c, 100+i, base+100+i, "missed")
		}
		if res, err := s.Backfill(ctx, h, c); err != nil || !res.Gap {
			t.Fatalf("beyond the window: %+v %v", res, err)
		}
		// SnowLuma's history now reaches further: the next backfill closes it.
		h.window = 1000
		res, err := s.Backfill(ctx, h, c)
		if err != nil || !res.Met || res.Gap || res.Added != 151 {
			t.Fatalf("closing backfill: %+v %v", res, err)
		}
		if gaps, _ := s.Gaps(ctx, c); len(gaps) != 0 {
			t.Fatalf("a closed gap is still marked: %+v", gaps)
		}

		// A reconnect: 5 messages sent while down, then a burst of 300 on the
		// new connection, more than SnowLuma's window.
		h.window = 99
		for i := range int64(5) {
			h.add(c, 1000+i, base+1000+i, "down")
		}
		f := s.NewFeed()
		done := make(chan struct{})
		go func() { defer close(done); f.Run(ctx) }()
		f.Connected()
		for i := range int64(300) {
			f.Take(h.add(c, 2000+i, base+2000+i, "live"))
		}
		f.Close()
		<-done
		res, err = s.Backfill(ctx, h, c)
		if err != nil || !res.Gap {
			t.Fatalf("reconnect backfill: %+v %v", res, err)
		}
		gaps, _ := s.Gaps(ctx, c)
		if len(gaps) != 1 || gaps[0].From != rfc3339(base+249+100) || gaps[0].Until != rfc3339(base+2000) {
			t.Fatalf("the gap is not the stretch before the connection: %+v", gaps)
		}
		// Now the window reaches: the gap goes, the five come in.
		h.window = 1000
		if res, err = s.Backfill(ctx, h, c); err != nil || res.Added != 5 {
			t.Fatalf("closing the reconnect gap: %+v %v", res, err)
		}
		if gaps, _ := s.Gaps(ctx, c); len(gaps) != 0 {
			t.Fatalf("a closed gap is still marked: %+v", gaps)
		}
	})
}

// TestFeedBounded: a burst larger than the feed's queue is stored whole,
// in order, while the queue never holds more than its bound; after Close,
// Take returns at once.
func TestFeedBounded(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		f := s.NewFeed()
		f.maxBytes, f.maxFrames = 32<<10, 64 // 3,000 frames are 20 times the bytes
		done := make(chan struct{})
		go func() { defer close(done); f.Run(context.Background()) }()
		base := time.Now().Add(-time.Hour).Unix()
		pad := strings.Repeat("x", 100)
		const n = 3000
		for i := range n {
			f.Take(groupMsg(1, 2, int64(i+1), base+int64(i/1000), fmt.Sprint(i, " ", pad)))
		}
		if err := f.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		f.Close()
		<-done
		f.Take(groupMsg(1, 2, n+1, base, "after")) // returns: the feed is closed
		if peak := f.PeakBytes(); peak > f.maxBytes {
			t.Errorf("the queue held %d bytes, over its bound %d", peak, f.maxBytes)
		}
		w, err := s.Read(context.Background(), Chat{Group: true, ID: 1}, nil, nil, nil, MaxRead)
		if err != nil {
			t.Fatal(err)
		}
		if sum, _ := s.Summary(context.Background()); sum.Messages != n || sum.Lost != 0 {
			t.Fatalf("%d of %d stored, %d lost", sum.Messages, n, sum.Lost)
		}
		for i, m := range w.Messages {
			if want := int64(n - MaxRead + i + 1); m.MessageID != want {
				t.Fatalf("newest window: message %d at %d, want %d", m.MessageID, i, want)
			}
		}
	})
}
