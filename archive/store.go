package archive

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// storage is where an archive keeps what it holds: an SQLite file
// (sqlite.go) or a PostgreSQL database (postgres.go). It is the archive's
// contract with its stores: every SQL statement lives behind it, and the
// rest of the package (the feed, backfill's paging, parsing, search's
// words, times, allowlists, and common.go's read window, listing and
// catch-up) is written once against it. The contract's tests run on both
// stores (contract_test.go).
//
// Keys are sortable message keys (keyOf: the time in seconds shifted left
// by idShift, plus a number that orders the messages of one second as
// they were stored); chat ids are the store's row ids of chats.
type storage interface {
	close() error
	// check verifies the store's integrity (doctor).
	check(ctx context.Context) error
	// summary counts what the store holds.
	summary(ctx context.Context) (Summary, error)
	// classify turns a driver error into an Error naming the store, or nil.
	classify(err error) *Error
	// lookup returns c's chat id when the store holds the chat.
	lookup(c Chat) (int64, bool)

	// storeBatch stores recs and recalls in one transaction; keys[i] is
	// the key recs[i] was stored under, 0 when it was held already.
	storeBatch(ctx context.Context, recs []Record, recalls []recallOf) ([]int64, error)
	setName(ctx context.Context, c Chat, name string) error

	search(ctx context.Context, q Query) ([]Message, string, error)
	// keyIn is the key of message msg of the chat whose id is chat
	// (ErrNoMessage when it holds none); page reads up to n of its
	// messages with keys strictly between lo and hi, newest first when
	// newest, else oldest first; beyond says whether it holds messages
	// before key first and after key last (common.go's window).
	keyIn(ctx context.Context, chat, msg int64) (int64, error)
	page(ctx context.Context, chat, lo, hi int64, newest bool, n int) ([]Message, error)
	beyond(ctx context.Context, chat, first, last int64) (before, after bool, err error)
	// chatRows lists the chats (a shared store: this server's bots'),
	// with this reader's unread counts.
	chatRows(ctx context.Context) ([]chatRow, error)

	markRead(ctx context.Context, chat Chat, msg int64) (int64, error)
	// pushMarks lists the chats (as chatRows) with this reader's delivery
	// marks; unpushed reads what others wrote after key pushed in the
	// chat whose id is chat: how many, the first's message id, and the
	// newest CatchUpLines of them, newest first.
	pushMarks(ctx context.Context) ([]pushMark, error)
	unpushed(ctx context.Context, chat, pushed int64) (count, first int64, newest []Message, err error)
	delivered(ctx context.Context, u Undelivered) error
	pushed(ctx context.Context, chat Chat, first, msg int64) (held, behind bool, err error)

	// newestBelow is the newest key below key below of the chat whose id
	// is chat, firstGap the oldest start of its gap markers (0 for none);
	// backfill's reach reads them.
	newestBelow(ctx context.Context, chat, below int64) (int64, error)
	firstGap(ctx context.Context, chat int64) (int64, error)
	heldAmong(ctx context.Context, chat Chat, recs []Record, held int64) (bool, error)
	messageAt(ctx context.Context, key int64) (int64, error)

	addGap(ctx context.Context, chat Chat, after, before int64) error
	closeGaps(ctx context.Context, chat Chat, lo, hi int64) error
	gaps(ctx context.Context, chat, lo, hi int64) ([]Gap, error)

	prune(ctx context.Context) (int64, error)
}

// Open opens the archive opts.Path names: a PostgreSQL database when it is
// a postgres:// or postgresql:// URL, else the SQLite file at that
// absolute path (created, with its directory, when missing). Every failure
// is an *Error naming the store (a URL without its password).
func Open(ctx context.Context, opts Options) (*Store, error) {
	if IsURL(opts.Path) {
		return openPostgres(ctx, opts)
	}
	return openSQLite(ctx, opts)
}

// IsURL reports whether path names a PostgreSQL database rather than a file.
func IsURL(path string) bool {
	p := strings.ToLower(strings.TrimSpace(path))
	return strings.HasPrefix(p, "postgres://") || strings.HasPrefix(p, "postgresql://")
}

// newStore fills opts' defaults and makes the store-independent half of an
// archive.
func newStore(opts Options) *Store {
	if opts.Days <= 0 {
		opts.Days = DefaultDays
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{opts: opts, now: now, chats: map[Chat]int64{}}
}

// Close stores what the feed still holds, then releases the store (the
// file and its lock, or the database's connections).
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	var feeds []*Feed
	if f := s.feeds[0]; f != nil {
		feeds = append(feeds, f)
	}
	feeds = append(feeds, s.further...)
	s.mu.Unlock()
	for _, feed := range feeds {
		feed.drain() // what the connections brought is stored first
	}
	return s.st.close()
}

// Summary counts what the archive holds.
func (s *Store) Summary(ctx context.Context) (Summary, error) {
	sum, err := s.st.summary(ctx)
	return sum, s.fail(err)
}

// Check verifies the store's integrity, for doctor.
func (s *Store) Check(ctx context.Context) error { return s.st.check(ctx) }

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
	return s.window(ctx, id, before, after, around, limit)
}

// Chats lists the archived chats the allowlists let a reader see, the
// most recently active first; unreadOnly keeps those with unread messages.
func (s *Store) Chats(ctx context.Context, unreadOnly bool) ([]ChatInfo, error) {
	if e := s.Err(); e != nil {
		return nil, e
	}
	return s.listChats(ctx, unreadOnly)
}

// MarkRead marks chat read up to message msg (the newest when 0), for
// this archive's reader. It returns the unread count left.
func (s *Store) MarkRead(ctx context.Context, chat Chat, msg int64) (int64, error) {
	if _, ok := s.lookup(chat); !ok || !s.Readable(chat) {
		return 0, ErrNoChat
	}
	return s.st.markRead(ctx, chat, msg)
}

// Undelivered lists, for each chat that keep selects, the messages others
// wrote that the channel has not pushed (to this archive's reader).
func (s *Store) Undelivered(ctx context.Context, keep func(Chat) bool) ([]Undelivered, error) {
	if e := s.Err(); e != nil {
		return nil, e
	}
	return s.undelivered(ctx, func(c Chat) bool { return keep(c) && s.Readable(c) })
}

// Delivered records that the channel pushed u (a catch-up push).
func (s *Store) Delivered(ctx context.Context, u Undelivered) error {
	if _, ok := s.lookup(u.Chat); !ok {
		return nil
	}
	return s.st.delivered(ctx, u)
}

// Prune applies the retention: messages older than Days, then the oldest
// until the store uses at most MaxBytes. It returns how many were removed.
func (s *Store) Prune(ctx context.Context) (int64, error) {
	if e := s.Err(); e != nil {
		return 0, e
	}
	n, err := s.st.prune(ctx)
	s.mu.Lock()
	s.stats.Pruned += n
	s.mu.Unlock()
	return n, err
}

// RecordSent stores a message the bot sent through this server: chat, the
// id SnowLuma answered, and the message param as sent (segments or a CQ
// string).
func (s *Store) RecordSent(ctx context.Context, chat Chat, messageID int64, message json.RawMessage) error {
	if !s.Archived(chat) || messageID == 0 {
		return nil
	}
	self := s.selfOf(chat.Bot)
	ev, _ := json.Marshal(map[string]any{"post_type": "message_sent", "message_id": messageID, "user_id": self,
		"time": s.now().Unix(), "message": message})
	r, ok := parseMessage(ev, chat, self)
	if !ok {
		return nil
	}
	r.Chat = chat
	r.Own, r.Sender = true, "bot"
	_, err := s.st.storeBatch(ctx, []Record{r}, nil)
	return err
}

// SetName records a chat's name (a group's name, a friend's remark or
// nickname).
func (s *Store) SetName(ctx context.Context, c Chat, name string) error {
	if !s.Archived(c) {
		return nil
	}
	return s.st.setName(ctx, c, qqmsg.Clean(name, false))
}

// lookup returns c's chat id when the store holds the chat.
func (s *Store) lookup(c Chat) (int64, bool) { return s.st.lookup(c) }

// cached returns c's chat id when this process has seen the chat.
func (s *Store) cached(c Chat) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.chats[c]
	return id, ok
}
