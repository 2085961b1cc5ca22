package archive

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// A Record is one message as the archive keeps it.
type Record struct {
	Chat      Chat
	MessageID int64
	UserID    int64
	Sender    string
	Time      int64 // Unix seconds
	Text      string
	ReplyTo   int64
	Recalled  bool
	Own       bool
}

// parseMessage reads a message event (or a history entry, which is one
// without post_type) into a Record. chat, when not zero, is the chat the
// message belongs to (a history page's); otherwise the event names it. ok
// is false for anything that is not a message of a known chat.
func parseMessage(raw []byte, chat Chat, self int64) (Record, bool) {
	e, err := qqmsg.ParseEvent(raw)
	if err != nil || e.MessageID == 0 {
		return Record{}, false
	}
	switch e.PostType {
	case "", "message", "message_sent":
	default:
		return Record{}, false
	}
	if self == 0 {
		self = e.SelfID
	}
	if chat.ID == 0 {
		switch e.MessageType {
		case "group":
			chat = Chat{true, e.GroupID}
		case "private":
			// The bot's own private message names itself, not the person
			// it went to: only a send through this server places it.
			if e.UserID == self || e.PostType == "message_sent" {
				return Record{}, false
			}
			chat = Chat{false, e.UserID}
		default:
			return Record{}, false
		}
	}
	if chat.ID <= 0 {
		return Record{}, false
	}
	r := qqmsg.Render(e.Segments, self)
	return Record{
		Chat: chat, MessageID: e.MessageID, UserID: e.UserID, Sender: e.Sender, Time: e.Time,
		Text: r.Text, ReplyTo: r.ReplyTo, Own: e.PostType == "message_sent" || (self != 0 && e.UserID == self),
	}, true
}

// recallNotice is the part of a recall notice the archive reads.
type recallNotice struct {
	PostType   string          `json:"post_type"`
	NoticeType string          `json:"notice_type"`
	GroupID    json.RawMessage `json:"group_id"`
	UserID     json.RawMessage `json:"user_id"`
	MessageID  json.RawMessage `json:"message_id"`
}

// parseRecall reads a group_recall or friend_recall notice.
func parseRecall(raw []byte) (Chat, int64, bool) {
	if !bytes.Contains(raw, []byte("_recall")) {
		return Chat{}, 0, false
	}
	var n recallNotice
	if json.Unmarshal(raw, &n) != nil || n.PostType != "notice" {
		return Chat{}, 0, false
	}
	id, ok := num(n.MessageID)
	if !ok || id == 0 {
		return Chat{}, 0, false
	}
	switch n.NoticeType {
	case "group_recall":
		g, ok := num(n.GroupID)
		return Chat{true, g}, id, ok && g > 0
	case "friend_recall":
		u, ok := num(n.UserID)
		return Chat{false, u}, id, ok && u > 0
	}
	return Chat{}, 0, false
}

func num(raw json.RawMessage) (int64, bool) {
	s := string(bytes.Trim(bytes.TrimSpace(raw), `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// A recallOf names a recalled message.
type recallOf struct {
	chat Chat
	id   int64
}

// parse reads the messages and recalls of archived chats among frames.
func (s *Store) parse(frames [][]byte) ([]Record, []recallOf) {
	self := s.self()
	var recs []Record
	var recalls []recallOf
	for _, raw := range frames {
		if r, ok := parseMessage(raw, Chat{}, self); ok {
			if s.Archived(r.Chat) {
				recs = append(recs, r)
			}
			continue
		}
		if c, id, ok := parseRecall(raw); ok && s.Archived(c) {
			recalls = append(recalls, recallOf{c, id})
		}
	}
	return recs, recalls
}

// Ingest stores the messages and recalls among frames, events as SnowLuma
// sends them on its WebSocket, in one transaction; anything else (and any
// chat that is not archived) is skipped. It returns how many new messages
// were stored.
func (s *Store) Ingest(ctx context.Context, frames [][]byte) (int, error) {
	recs, recalls := s.parse(frames)
	keys, err := s.ingest(ctx, recs, recalls)
	n := 0
	for _, k := range keys {
		if k != 0 {
			n++
		}
	}
	return n, err
}

// ingest stores recs and recalls in one transaction; keys[i] is the key
// recs[i] was stored under, 0 when it was held already.
func (s *Store) ingest(ctx context.Context, recs []Record, recalls []recallOf) ([]int64, error) {
	if len(recs) == 0 && len(recalls) == 0 {
		return nil, nil
	}
	var keys []int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if keys, err = s.insert(ctx, tx, recs); err != nil {
			return err
		}
		for _, r := range recalls {
			if err := s.recall(ctx, tx, r.chat, r.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, k := range keys {
		if k != 0 {
			n++
		}
	}
	s.mu.Lock()
	s.stats.Ingested += int64(n)
	s.stats.Duplicates += int64(len(recs) - n)
	s.stats.Recalls += int64(len(recalls))
	if n > 0 {
		now := s.now()
		s.stats.LastIngest = now.UTC().Format(time.RFC3339)
		if last := recs[len(recs)-1].Time; last > 0 {
			s.stats.LagMS = max(0, now.UnixMilli()-last*1000)
		}
	}
	s.mu.Unlock()
	if err := s.pushedEarly(ctx, recs); err != nil {
		return keys, err
	}
	return keys, nil
}

// RecordSent stores a message the bot sent through this server: chat, the
// id SnowLuma answered, and the message param as sent (segments or a CQ
// string).
func (s *Store) RecordSent(ctx context.Context, chat Chat, messageID int64, message json.RawMessage) error {
	if !s.Archived(chat) || messageID == 0 {
		return nil
	}
	self := s.self()
	ev, _ := json.Marshal(map[string]any{"post_type": "message_sent", "message_id": messageID, "user_id": self,
		"time": s.now().Unix(), "message": message})
	r, ok := parseMessage(ev, chat, self)
	if !ok {
		return nil
	}
	r.Own, r.Sender = true, "bot"
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := s.insert(ctx, tx, []Record{r})
		return err
	})
}

// write runs f in a transaction, recording a failure.
func (s *Store) write(ctx context.Context, f func(*sql.Tx) error) error {
	if e := s.Err(); e != nil {
		return e
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(err)
	}
	err = f(tx)
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	if err != nil {
		// Chats created in the rolled-back transaction are gone again.
		s.mu.Lock()
		s.chats = map[Chat]int64{}
		s.mu.Unlock()
		s.loadChats(ctx)
	}
	return s.fail(err)
}

// chatID returns c's row, creating it. New chats start with nothing
// undelivered before the current second (the channel had no chance at
// those).
func (s *Store) chatID(ctx context.Context, tx *sql.Tx, c Chat) (int64, error) {
	s.mu.Lock()
	id, ok := s.chats[c]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	err := tx.QueryRowContext(ctx, `INSERT INTO chats (grp, peer, pushed_key) VALUES (?, ?, ?)
		ON CONFLICT (grp, peer) DO UPDATE SET grp = grp RETURNING id`, c.Group, c.ID, keyOf(s.now().Unix())-1).Scan(&id)
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.chats[c] = id
	s.mu.Unlock()
	return id, nil
}

// insert stores recs, skipping those already held; keys[i] is the key
// recs[i] was stored under, 0 when it was held already.
func (s *Store) insert(ctx context.Context, tx *sql.Tx, recs []Record) ([]int64, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	keys := make([]int64, len(recs))
	ins, err := tx.PrepareContext(ctx, `INSERT INTO messages (id, chat, msg, user, sender, text, reply, recalled, own)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chat, msg) DO NOTHING`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	idx, err := tx.PrepareContext(ctx, `INSERT INTO grams (rowid, t) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	next, err := tx.PrepareContext(ctx, `SELECT max(id) FROM messages WHERE id >= ? AND id < ?`)
	if err != nil {
		return nil, err
	}
	defer next.Close()
	now := s.now().Unix()
	for i, r := range recs {
		chat, err := s.chatID(ctx, tx, r.Chat)
		if err != nil {
			return keys, err
		}
		t := r.Time
		if t <= 0 || t > now+86400 {
			t = now
		}
		// The low bits order the messages of one second as they were
		// stored; a message already held is left as it is.
		var top sql.NullInt64
		if err := next.QueryRowContext(ctx, keyOf(t), keyOf(t+1)).Scan(&top); err != nil {
			return keys, err
		}
		key := keyOf(t)
		if top.Valid {
			key = top.Int64 + 1
		}
		if key >= keyOf(t+1) {
			key = keyOf(t+1) - 1 // four million in one second: the last slot is reused below
		}
		res, err := ins.ExecContext(ctx, key, chat, r.MessageID, r.UserID, r.Sender, r.Text, r.ReplyTo, r.Recalled, r.Own)
		if err != nil {
			return keys, err
		}
		if k, _ := res.RowsAffected(); k == 1 {
			keys[i] = key
			if tokens := indexTokens(r.Text); tokens != "" {
				if _, err := idx.ExecContext(ctx, key, tokens); err != nil {
					return keys, err
				}
			}
		}
	}
	return keys, nil
}

// recall marks a held message recalled and, unless KeepRecalled, removes
// its text from the file and the index.
func (s *Store) recall(ctx context.Context, tx *sql.Tx, c Chat, msg int64) error {
	chat, err := s.chatID(ctx, tx, c)
	if err != nil {
		return err
	}
	var key int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, chat, msg).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if s.opts.KeepRecalled {
		_, err = tx.ExecContext(ctx, `UPDATE messages SET recalled = 1 WHERE id = ?`, key)
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE messages SET recalled = 1, text = '' WHERE id = ?`, key); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM grams WHERE rowid = ?`, key)
	return err
}

// SetName records a chat's name (a group's name, a friend's remark or
// nickname).
func (s *Store) SetName(ctx context.Context, c Chat, name string) error {
	if !s.Archived(c) {
		return nil
	}
	name = qqmsg.Clean(name, false)
	return s.write(ctx, func(tx *sql.Tx) error {
		id, err := s.chatID(ctx, tx, c)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE chats SET name = ? WHERE id = ? AND name != ?`, name, id, name)
		return err
	})
}

// errNoChat is the refusal of a read naming a chat the archive does not
// hold.
var errNoChat = errors.New("archive: no such chat")

func (s *Store) lookup(c Chat) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.chats[c]
	return id, ok
}

func describe(c Chat) string { return fmt.Sprint(c) }
