package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Page sizes of the readers.
const (
	MaxSearch       = 100
	DefaultSearch   = 20
	MaxRead         = 200
	DefaultRead     = 50
	CatchUpLines    = 3
	maxUnreadCounts = 100000 // counted exactly up to this, then shown as this
)

// Message is one archived message as a reader gets it.
type Message struct {
	MessageID int64 `json:"message_id"`
	// Chat is "group:<id>" or "private:<id>", as the channel names chats.
	Chat     string `json:"chat"`
	GroupID  int64  `json:"group_id,omitempty"`
	UserID   int64  `json:"user_id"`
	Sender   string `json:"sender"`
	Time     string `json:"time"`
	Text     string `json:"text"`
	ReplyTo  int64  `json:"reply_to,omitempty"`
	Recalled bool   `json:"recalled,omitempty"`
	Own      bool   `json:"own,omitempty"`

	key int64
}

// Gap is a stretch of a chat whose messages may be missing.
type Gap struct {
	From  string `json:"from"`
	Until string `json:"until"`
	Note  string `json:"note"`
}

// ChatKey names c as Message.Chat does.
func ChatKey(c Chat) string {
	if c.Group {
		return "group:" + strconv.FormatInt(c.ID, 10)
	}
	return "private:" + strconv.FormatInt(c.ID, 10)
}

func rfc3339(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

// stamp is a time as readers get it: RFC 3339 with the operator's offset
// (Options.Location).
func (s *Store) stamp(unix int64) string {
	if s.opts.Location == nil {
		return rfc3339(unix)
	}
	return time.Unix(unix, 0).In(s.opts.Location).Format(time.RFC3339)
}

const messageColumns = `m.id, m.msg, c.grp, c.peer, m.user, m.sender, m.text, m.reply, m.recalled, m.own`

func (s *Store) scanMessages(rows *sql.Rows) ([]Message, error) {
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var grp bool
		var peer int64
		if err := rows.Scan(&m.key, &m.MessageID, &grp, &peer, &m.UserID, &m.Sender, &m.Text, &m.ReplyTo, &m.Recalled, &m.Own); err != nil {
			return nil, err
		}
		m.Chat = ChatKey(Chat{grp, peer})
		if grp {
			m.GroupID = peer
		}
		m.Time = s.stamp(timeOf(m.key))
		out = append(out, m)
	}
	return out, rows.Err()
}

// readableChats returns the SQL condition that keeps reads inside the
// allowlists ("" when every chat is readable) and its arguments.
func (s *Store) readableChats() (string, []any) {
	if s.opts.Allowed == nil {
		return "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	all := true
	for c, id := range s.chats {
		if s.opts.Allowed(c.Group, c.ID) {
			ids = append(ids, strconv.FormatInt(id, 10))
		} else {
			all = false
		}
	}
	if all {
		return "", nil
	}
	return " AND m.chat IN (" + strings.Join(append(ids, "-1"), ",") + ")", nil
}

// Query is a search.
type Query struct {
	Text string
	// Chat, when set, limits the search to one chat.
	Chat *Chat
	// UserID, when set, keeps messages sent by that user and those of
	// the private chat with them.
	UserID       int64
	Since, Until time.Time
	Limit        int
	Cursor       string
	// Any finds messages holding any of the words instead of all; a query
	// whose words are joined by OR (or |) asks for it too.
	Any bool
}

// Found is a page of search results.
type Found struct {
	Messages []Message
	// Next is the cursor of the following page, "" after the last.
	Next string
	// Any is true when the page holds messages with any of the words:
	// asked for, or because no message held them all (Widened).
	Any, Widened bool
}

// anyCursor marks a cursor of an any-word search, so that its next page
// stays one.
const anyCursor = "~"

// splitAny removes the OR and | that join a query's words, and reports
// whether there were any.
func splitAny(text string) (string, bool) {
	fields := strings.Fields(text)
	kept := fields[:0]
	for _, f := range fields {
		if f == "OR" || f == "|" || f == "｜" {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " "), len(kept) < len(fields)
}

// Find searches as Search does, and, when the first page of an all-words
// search finds nothing and the query has several words, returns the
// messages holding any of them, with Any set.
func (s *Store) Find(ctx context.Context, q Query) (Found, error) {
	text, asked := splitAny(q.Text)
	q.Text = text
	if c, ok := strings.CutPrefix(q.Cursor, anyCursor); ok {
		q.Cursor, asked = c, true
	}
	q.Any = q.Any || asked
	msgs, next, err := s.search(ctx, q)
	widened := false
	if err == nil && len(msgs) == 0 && !q.Any && q.Cursor == "" && len(matchParts(q.Text)) > 1 {
		q.Any, widened = true, true
		msgs, next, err = s.search(ctx, q)
	}
	f := Found{Messages: msgs, Next: next, Any: q.Any && len(matchParts(q.Text)) > 1, Widened: widened}
	if q.Any && next != "" {
		f.Next = anyCursor + next
	}
	return f, err
}

// ErrCursor is the refusal of a cursor this archive did not give.
var ErrCursor = errors.New("the cursor is not one search_messages returned")

// ErrEmptyQuery is the refusal of a query with nothing to search for.
var ErrEmptyQuery = errors.New("the query has no letters, digits or Chinese characters to search for")

// Search finds messages whose text holds every word of q.Text (any of
// them with q.Any), newest first; next is the cursor of the following
// page, "" after the last.
func (s *Store) Search(ctx context.Context, q Query) (msgs []Message, next string, err error) {
	return s.search(ctx, q)
}

func (s *Store) search(ctx context.Context, q Query) (msgs []Message, next string, err error) {
	if e := s.Err(); e != nil {
		return nil, "", e
	}
	match := matchQuery(q.Text, q.Any)
	if match == "" {
		return nil, "", ErrEmptyQuery
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearch
	}
	limit = min(limit, MaxSearch)
	sqlText := `SELECT ` + messageColumns + ` FROM grams g JOIN messages m ON m.id = g.rowid JOIN chats c ON c.id = m.chat WHERE grams MATCH ?`
	args := []any{match}
	if q.Cursor != "" {
		k, err := strconv.ParseInt(q.Cursor, 36, 64)
		if err != nil || k <= 0 {
			return nil, "", ErrCursor
		}
		sqlText += ` AND g.rowid < ?`
		args = append(args, k)
	}
	if !q.Since.IsZero() {
		sqlText += ` AND g.rowid >= ?`
		args = append(args, keyOf(q.Since.Unix()))
	}
	if !q.Until.IsZero() {
		sqlText += ` AND g.rowid < ?`
		args = append(args, keyOf(q.Until.Unix()+1))
	}
	if q.Chat != nil {
		id, ok := s.lookup(*q.Chat)
		if !ok || !s.Readable(*q.Chat) {
			return nil, "", nil
		}
		sqlText += ` AND m.chat = ?`
		args = append(args, id)
	}
	if q.UserID != 0 {
		sqlText += ` AND (m.user = ? OR (c.grp = 0 AND c.peer = ?))`
		args = append(args, q.UserID, q.UserID)
	}
	cond, _ := s.readableChats()
	sqlText += cond + ` ORDER BY g.rowid DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := s.db.QueryContext(ctx, sqlText, args...)
	if err != nil {
		return nil, "", s.fail(err)
	}
	msgs, err = s.scanMessages(rows)
	if err != nil {
		return nil, "", s.fail(err)
	}
	if len(msgs) > limit {
		msgs = msgs[:limit]
		next = strconv.FormatInt(msgs[limit-1].key, 36)
	}
	return msgs, next, nil
}

// A Position anchors a read: a message id of the chat, or a time.
type Position struct {
	MessageID int64
	Time      time.Time
}

func (p *Position) set() bool { return p != nil && (p.MessageID != 0 || !p.Time.IsZero()) }

// Window is a stretch of one chat in time order.
type Window struct {
	Messages []Message `json:"messages"`
	Gaps     []Gap     `json:"gaps,omitempty"`
	// MoreBefore and MoreAfter say whether the chat holds messages
	// outside the window.
	MoreBefore bool `json:"more_before"`
	MoreAfter  bool `json:"more_after"`
}

// ErrNoMessage is the refusal of a position naming a message the chat does
// not hold.
var ErrNoMessage = errors.New("the archive holds no message with that id in this chat")

// ErrNoChat is the refusal of a read of a chat the archive does not hold.
var ErrNoChat = errNoChat

// Read returns up to limit messages of chat: the newest without a position,
// those after after, those before before, or those around around (half
// before, the rest from it on).
func (s *Store) Read(ctx context.Context, chat Chat, before, after, around *Position, limit int) (Window, error) {
	if e := s.Err(); e != nil {
		return Window{}, e
	}
	id, ok := s.lookup(chat)
	if !ok || !s.Readable(chat) {
		return Window{}, ErrNoChat
	}
	if limit <= 0 {
		limit = DefaultRead
	}
	limit = min(limit, MaxRead)
	keyOfPos := func(p *Position, atOrAfter bool) (int64, error) {
		if p.MessageID != 0 {
			var k int64
			err := s.db.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, id, p.MessageID).Scan(&k)
			if errors.Is(err, sql.ErrNoRows) {
				return 0, ErrNoMessage
			}
			return k, err
		}
		return keyOf(p.Time.Unix()), nil
	}
	q := `SELECT ` + messageColumns + ` FROM messages m JOIN chats c ON c.id = m.chat WHERE m.chat = ?`
	var msgs []Message
	var err error
	query := func(cond string, order string, n int, args ...any) ([]Message, error) {
		rows, err := s.db.QueryContext(ctx, q+cond+` ORDER BY m.id `+order+` LIMIT ?`, append(append([]any{id}, args...), n)...)
		if err != nil {
			return nil, err
		}
		return s.scanMessages(rows)
	}
	reverse := func(ms []Message) {
		for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
			ms[i], ms[j] = ms[j], ms[i]
		}
	}
	switch {
	case around.set():
		k, err2 := keyOfPos(around, true)
		if err2 != nil {
			return Window{}, s.readErr(err2)
		}
		var older []Message
		if older, err = query(` AND m.id < ?`, "DESC", limit/2, k); err == nil {
			reverse(older)
			var newer []Message
			newer, err = query(` AND m.id >= ?`, "ASC", limit-len(older), k)
			msgs = append(older, newer...)
		}
	case after.set():
		k, err2 := keyOfPos(after, true)
		if err2 != nil {
			return Window{}, s.readErr(err2)
		}
		if after.MessageID == 0 {
			k-- // a time includes its own second
		}
		lim := limit
		cond, args := ` AND m.id > ?`, []any{k}
		if before.set() {
			kb, err2 := keyOfPos(before, false)
			if err2 != nil {
				return Window{}, s.readErr(err2)
			}
			cond += ` AND m.id < ?`
			args = append(args, kb)
		}
		msgs, err = query(cond, "ASC", lim, args...)
	case before.set():
		k, err2 := keyOfPos(before, false)
		if err2 != nil {
			return Window{}, s.readErr(err2)
		}
		msgs, err = query(` AND m.id < ?`, "DESC", limit, k)
		reverse(msgs)
	default:
		msgs, err = query(``, "DESC", limit)
		reverse(msgs)
	}
	if err != nil {
		return Window{}, s.fail(err)
	}
	w := Window{Messages: msgs}
	if w.Messages == nil {
		w.Messages = []Message{}
	}
	if len(msgs) > 0 {
		first, last := msgs[0].key, msgs[len(msgs)-1].key
		err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE chat = ? AND id < ?), EXISTS (SELECT 1 FROM messages WHERE chat = ? AND id > ?)`,
			id, first, id, last).Scan(&w.MoreBefore, &w.MoreAfter)
		if err != nil {
			return Window{}, s.fail(err)
		}
		lo, hi := first, last
		if !w.MoreBefore {
			lo = 0
		}
		if !w.MoreAfter {
			hi = 1<<62 - 1
		}
		if w.Gaps, err = s.gaps(ctx, id, lo, hi); err != nil {
			return Window{}, s.fail(err)
		}
	}
	return w, nil
}

func (s *Store) readErr(err error) error {
	if errors.Is(err, ErrNoMessage) {
		return err
	}
	return s.fail(err)
}

// gaps lists the gap markers of chat that overlap the keys [lo, hi].
func (s *Store) gaps(ctx context.Context, chat, lo, hi int64) ([]Gap, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT after_key, before_key FROM gaps WHERE chat = ? AND before_key >= ? AND after_key <= ? ORDER BY after_key`, chat, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Gap
	for rows.Next() {
		var a, b int64
		if err := rows.Scan(&a, &b); err != nil {
			return nil, err
		}
		g := Gap{From: s.stamp(timeOf(a)), Until: s.stamp(timeOf(b))}
		g.Note = fmt.Sprintf("messages between %s and %s may be missing: SnowLuma's history did not reach back that far", g.From, g.Until)
		out = append(out, g)
	}
	return out, rows.Err()
}

// ChatInfo is one archived chat in a listing.
type ChatInfo struct {
	Chat    string `json:"chat"`
	GroupID int64  `json:"group_id,omitempty"`
	UserID  int64  `json:"user_id,omitempty"`
	Name    string `json:"name,omitempty"`
	Newest  string `json:"newest,omitempty"`
	Unread  int64  `json:"unread"`
	// Messages counts what the archive holds of the chat.
	Messages int64 `json:"messages"`
}

// Chats lists the archived chats the allowlists let a reader see, the
// most recently active first; unreadOnly keeps those with unread messages.
func (s *Store) Chats(ctx context.Context, unreadOnly bool) ([]ChatInfo, error) {
	if e := s.Err(); e != nil {
		return nil, e
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.grp, c.peer, c.name,
		(SELECT max(id) FROM messages WHERE chat = c.id),
		(SELECT count(*) FROM (SELECT 1 FROM messages WHERE chat = c.id AND id > c.read_key AND own = 0 LIMIT ?)),
		(SELECT count(*) FROM messages WHERE chat = c.id)
		FROM chats c`, maxUnreadCounts)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var out []ChatInfo
	var newest []int64
	for rows.Next() {
		var c Chat
		var name string
		var top sql.NullInt64
		var info ChatInfo
		if err := rows.Scan(&c.Group, &c.ID, &name, &top, &info.Unread, &info.Messages); err != nil {
			return nil, s.fail(err)
		}
		if !s.Readable(c) || (unreadOnly && info.Unread == 0) {
			continue
		}
		info.Chat, info.Name = ChatKey(c), name
		if c.Group {
			info.GroupID = c.ID
		} else {
			info.UserID = c.ID
		}
		if top.Valid {
			info.Newest = s.stamp(timeOf(top.Int64))
		}
		out = append(out, info)
		newest = append(newest, top.Int64)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(err)
	}
	// Most recently active first.
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sortByDesc(idx, newest)
	sorted := make([]ChatInfo, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}

func sortByDesc(idx []int, by []int64) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && by[idx[j]] > by[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// MarkRead marks chat read up to message msg (the newest when 0). It
// returns the unread count left.
func (s *Store) MarkRead(ctx context.Context, chat Chat, msg int64) (int64, error) {
	id, ok := s.lookup(chat)
	if !ok || !s.Readable(chat) {
		return 0, ErrNoChat
	}
	var left int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var k sql.NullInt64
		var err error
		if msg != 0 {
			err = tx.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, id, msg).Scan(&k)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrNoMessage
			}
		} else {
			err = tx.QueryRowContext(ctx, `SELECT max(id) FROM messages WHERE chat = ?`, id).Scan(&k)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chats SET read_key = ? WHERE id = ?`, k.Int64, id); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE chat = ? AND id > ? AND own = 0`, id, k.Int64).Scan(&left)
	})
	if errors.Is(err, ErrNoMessage) {
		return 0, ErrNoMessage
	}
	return left, err
}

// Undelivered is what the channel has not pushed of one chat.
type Undelivered struct {
	Chat   Chat
	Count  int64
	Newest []Message // the newest CatchUpLines, oldest first
	First  int64     // the oldest undelivered message's id
	top    int64
}

// Undelivered lists, for each chat that keep selects, the messages others
// wrote that the channel has not pushed.
func (s *Store) Undelivered(ctx context.Context, keep func(Chat) bool) ([]Undelivered, error) {
	if e := s.Err(); e != nil {
		return nil, e
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, grp, peer, pushed_key FROM chats`)
	if err != nil {
		return nil, s.fail(err)
	}
	type row struct {
		id, pushed int64
		c          Chat
	}
	var chats []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.c.Group, &r.c.ID, &r.pushed); err != nil {
			rows.Close()
			return nil, s.fail(err)
		}
		if keep(r.c) && s.Readable(r.c) {
			chats = append(chats, r)
		}
	}
	rows.Close()
	var out []Undelivered
	for _, r := range chats {
		var u Undelivered
		u.Chat = r.c
		var first sql.NullInt64
		err := s.db.QueryRowContext(ctx, `SELECT count(*), min(msg) FROM messages WHERE chat = ? AND id > ? AND own = 0`, r.id, r.pushed).Scan(&u.Count, &first)
		if err != nil {
			return nil, s.fail(err)
		}
		if u.Count == 0 {
			continue
		}
		u.First = first.Int64
		rs, err := s.db.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages m JOIN chats c ON c.id = m.chat WHERE m.chat = ? AND m.id > ? AND m.own = 0 ORDER BY m.id DESC LIMIT ?`, r.id, r.pushed, CatchUpLines)
		if err != nil {
			return nil, s.fail(err)
		}
		if u.Newest, err = s.scanMessages(rs); err != nil {
			return nil, s.fail(err)
		}
		u.top = u.Newest[0].key
		for i, j := 0, len(u.Newest)-1; i < j; i, j = i+1, j-1 {
			u.Newest[i], u.Newest[j] = u.Newest[j], u.Newest[i]
		}
		// The oldest undelivered id, for the reader's after.
		err = s.db.QueryRowContext(ctx, `SELECT msg FROM messages WHERE chat = ? AND id > ? AND own = 0 ORDER BY id LIMIT 1`, r.id, r.pushed).Scan(&u.First)
		if err != nil {
			return nil, s.fail(err)
		}
		out = append(out, u)
	}
	return out, nil
}

// Delivered records that the channel pushed u (a catch-up push).
func (s *Store) Delivered(ctx context.Context, u Undelivered) error {
	id, ok := s.lookup(u.Chat)
	if !ok {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE chats SET pushed_key = max(pushed_key, ?) WHERE id = ?`, u.top, id)
		return err
	})
}

// Pushed records that the channel pushed chat's messages up to message
// msg. It reports whether the chat had undelivered messages older than
// first (the push's oldest message), which a catch-up push must cover
// first; in that case nothing is recorded. A push of a message not stored
// yet (the channel and the archive read the same events in two loops, and
// the push can come first) is remembered and recorded when Ingest stores
// the message, so that no catch-up repeats it.
func (s *Store) Pushed(ctx context.Context, chat Chat, first, msg int64) (behind bool, err error) {
	held, behind, err := s.pushed(ctx, chat, first, msg)
	if err == nil && !held {
		s.mu.Lock()
		if s.early == nil || len(s.early) >= maxEarly {
			s.early = map[chatMessage]int64{} // a bound, not a queue: old ones are dropped
		}
		s.early[chatMessage{chat, msg}] = first
		s.mu.Unlock()
	}
	return behind, err
}

// maxEarly bounds the pushes remembered before their message is stored.
const maxEarly = 256

// chatMessage names one message of one chat.
type chatMessage struct {
	chat Chat
	msg  int64
}

// pushedEarly records the remembered pushes of recs, which Ingest has
// just stored.
func (s *Store) pushedEarly(ctx context.Context, recs []Record) error {
	type push struct {
		chatMessage
		first int64
	}
	var due []push // in the order of recs: an earlier push recorded first
	s.mu.Lock()
	for _, r := range recs {
		k := chatMessage{r.Chat, r.MessageID}
		if first, ok := s.early[k]; ok {
			delete(s.early, k)
			due = append(due, push{k, first})
		}
	}
	s.mu.Unlock()
	for _, p := range due {
		if _, _, err := s.pushed(ctx, p.chat, p.first, p.msg); err != nil {
			return err
		}
	}
	return nil
}

// pushed is Pushed for a message the archive holds; held is false, and
// nothing is recorded, when it does not hold msg.
func (s *Store) pushed(ctx context.Context, chat Chat, first, msg int64) (held, behind bool, err error) {
	id, ok := s.lookup(chat)
	if !ok {
		return false, false, nil
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		var k, kf sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, id, msg).Scan(&k); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		held = true
		if err := tx.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, id, first).Scan(&kf); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if kf.Valid {
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages m JOIN chats c ON c.id = m.chat WHERE m.chat = ? AND m.id > c.pushed_key AND m.id < ? AND m.own = 0)`, id, kf.Int64).Scan(&behind); err != nil {
				return err
			}
			if behind {
				return nil
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE chats SET pushed_key = max(pushed_key, ?) WHERE id = ?`, k.Int64, id)
		return err
	})
	return held, behind, err
}

// Location is the zone readers' times are shown in (UTC when none was
// configured).
func (s *Store) Location() *time.Location {
	if s.opts.Location == nil {
		return time.UTC
	}
	return s.opts.Location
}

// localLayouts are the times a reader may give without an offset, read in
// the operator's zone.
var localLayouts = []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}

// ParseTime reads a reader's time: RFC 3339 with its offset, or a date
// and time without one (2026-12-03 09:40, 2026-12-03), read in the
// operator's zone.
func (s *Store) ParseTime(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	for _, l := range localLayouts {
		if t, err := time.ParseInLocation(l, v, s.Location()); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time such as 2026-12-03T09:40:00+08:00, or 2026-12-03 09:40 in the operator's zone", v)
}
