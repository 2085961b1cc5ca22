// Package archive is the bot's local memory of its chats: one SQLite file
// on the operator's machine that keeps the messages of the archived chats
// (from the event connection, from backfill with SnowLuma's history
// actions, and the bot's own sends), with full-text search that finds
// two-character Chinese words, per-chat read marks, gap markers where a
// stretch could not be recovered, and the channel's record of what it has
// delivered. It knows nothing of MCP.
//
// The file is private (0600 in a 0700 directory when the directory is
// created here), in WAL mode, held by one process at a time: a second
// server on the same file is refused with an Error that names the file.
// Nothing of the connection (no token) is ever stored.
package archive

import (
	"fmt"
	"sync"
	"time"
)

// SchemaVersion is the version of the file's layout this build writes.
// Older files are migrated on open; a newer file is refused.
const SchemaVersion = 2

// applicationID marks a file as a snowluma-mcp archive (SQLite's
// application_id header field): "SLMA".
const applicationID = 0x534C4D41

// Defaults of the configuration.
const (
	DefaultDays     = 90
	DefaultMaxBytes = 1 << 30
)

// A Selection names the chats of one kind to archive: All for every chat
// the allowlists permit, else IDs.
type Selection struct {
	All bool
	IDs map[int64]bool
}

// Has reports whether id is selected.
func (s Selection) Has(id int64) bool { return s.All || s.IDs[id] }

// Empty reports whether nothing is selected.
func (s Selection) Empty() bool { return !s.All && len(s.IDs) == 0 }

// Options configure Open.
type Options struct {
	// Path is the database file, an absolute path, or a PostgreSQL URL
	// (postgres://, postgresql://) of a database several servers share.
	Path string
	// Reader names whoever reads, on a shared (PostgreSQL) archive: read
	// marks and the channel's delivery record are the reader's own. Empty
	// means "operator". The SQLite file has one reader.
	Reader string
	// Groups and Users are the archived chats. Allowed, when set, is the
	// server's allowlists: a chat it refuses is never archived.
	Groups, Users Selection
	Allowed       func(group bool, id int64) bool
	// Days and MaxBytes bound what is kept, oldest first; zero means the
	// defaults.
	Days     int
	MaxBytes int64
	// KeepRecalled keeps the text of recalled messages (they are marked
	// either way).
	KeepRecalled bool
	// SelfID is the bot's account, when known: a mention of it renders as
	// the channel renders it.
	SelfID int64
	// BotLabel, when set, names the bot of a chat key's Bot (0 for the
	// first bot) in every message and chat a reader gets: set when several
	// bots share the archive, nil with one (nothing is added then).
	BotLabel func(bot int64) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Location is the operator's time zone: the times readers get carry
	// its offset. Nil means UTC.
	Location *time.Location
	// maxPages caps the file in pages (SQLite's max_page_count); zero
	// means twice MaxBytes. Tests set it to see a full disk.
	maxPages int64
}

// Store is an open archive. It is safe for concurrent use; all access goes
// through one connection, which holds the file's lock.
type Store struct {
	opts Options
	st   storage
	now  func() time.Time

	mu      sync.Mutex
	chats   map[Chat]int64 // chat row ids
	stats   Stats
	broken  *Error                // set once the file failed in a way that stops the archive
	early   map[chatMessage]int64 // pushes that came before their message (Pushed)
	feeds   map[int64]*Feed       // each bot's event connection feed by its chats' Bot key
	further []*Feed               // every further bot's feed (NewFurtherFeed)
}

// Stats are the archive's counters for the runtime overview.
type Stats struct {
	Ingested   int64 `json:"ingested,omitempty"`
	Duplicates int64 `json:"duplicates,omitempty"`
	Recalls    int64 `json:"recalls,omitempty"`
	Backfilled int64 `json:"backfilled,omitempty"`
	Pruned     int64 `json:"pruned,omitempty"`
	Failures   int64 `json:"failures,omitempty"`
	// Lost counts the messages of the event connection the file refused
	// (a full disk, a broken file): known and counted, never silent.
	Lost      int64  `json:"lost,omitempty"`
	LastError string `json:"last_error,omitempty"`
	// LastIngest is when the newest message was stored (RFC 3339).
	LastIngest string `json:"last_ingest,omitempty"`
	// LagMS is how long, at the last ingest, the message had been on its
	// way (its own time to its storing), in milliseconds.
	LagMS int64 `json:"ingest_lag_ms,omitempty"`
}

// Chat names one conversation: a group, or one person's private messages,
// as one bot sees it. Bot is 0 for the first configured bot (the only one
// when one is configured: every chat of a file written before several
// bots is the first bot's) and the QQ number of any further bot, so that
// two bots in one group keep two chats, each with its own read mark,
// gaps and channel record.
type Chat struct {
	Group bool
	ID    int64
	Bot   int64
}

// String names c as Message.Chat does (ChatKey).
func (c Chat) String() string { return ChatKey(c) }

// A Problem classifies an Error.
type Problem string

const (
	ProblemLocked  Problem = "locked"  // another process holds the file
	ProblemCorrupt Problem = "corrupt" // not a database, or damaged
	ProblemForeign Problem = "foreign" // a database, but not an archive of this server
	ProblemNewer   Problem = "newer"   // written by a newer snowluma-mcp
	ProblemFull    Problem = "full"    // the disk or the size limit is full
	ProblemIO      Problem = "io"      // the file or its directory cannot be used
	// A PostgreSQL archive's: the server cannot be reached or refused the
	// login (retried: not the archive's final state), and a privilege the
	// role lacks.
	ProblemUnreachable Problem = "unreachable"
	ProblemPrivilege   Problem = "privilege"
)

// Error is a failure of the archive file: what happened to which file, and
// what the operator can do about it.
type Error struct {
	File    string
	Problem Problem
	Detail  string
	Fix     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("archive %s: %s; %s", e.File, e.Detail, e.Fix)
}

// idShift leaves room for 4 Mi messages a second below the time.
const idShift = 22

func keyOf(unix int64) int64 { return unix << idShift }
func timeOf(key int64) int64 { return key >> idShift }

// Path names the store: the file's path, or the database's URL without
// its password.
func (s *Store) Path() string { return Redact(s.opts.Path) }

// Archived reports whether c is one of the archived chats.
func (s *Store) Archived(c Chat) bool {
	if c.ID <= 0 {
		return false
	}
	if s.opts.Allowed != nil && !s.opts.Allowed(c.Group, c.ID) {
		return false
	}
	if c.Group {
		return s.opts.Groups.Has(c.ID)
	}
	return s.opts.Users.Has(c.ID)
}

// Holds reports whether the archive has a record of chat c.
func (s *Store) Holds(c Chat) bool {
	_, ok := s.lookup(c)
	return ok
}

// EveryUser reports whether every private chat the allowlists permit is
// archived (ARCHIVE_USERS=*).
func (s *Store) EveryUser() bool { return s.opts.Users.All }

// Readable reports whether the allowlists let a reader see c.
func (s *Store) Readable(c Chat) bool {
	return s.opts.Allowed == nil || s.opts.Allowed(c.Group, c.ID)
}

// SetBotLabel sets Options.BotLabel: from then on every message and chat a
// reader gets names its bot.
func (s *Store) SetBotLabel(label func(bot int64) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.BotLabel = label
}

// SetSelf sets the bot's account, once it is known.
func (s *Store) SetSelf(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.SelfID = id
}

func (s *Store) self() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opts.SelfID
}

// selfOf is the account of the bot whose chats are keyed bot: the first
// bot's (SelfID) for 0, else bot itself.
func (s *Store) selfOf(bot int64) int64 {
	if bot != 0 {
		return bot
	}
	return s.self()
}

// label names the bot of chats keyed bot for readers; "" with one bot.
func (s *Store) label(bot int64) string {
	s.mu.Lock()
	label := s.opts.BotLabel
	s.mu.Unlock()
	if label == nil {
		return ""
	}
	return label(bot)
}

// Err returns the failure that stopped the archive, or nil.
func (s *Store) Err() *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// fail records err: counted, and, when it says the file is unusable,
// kept as the archive's state. It returns err, as an *Error when it could
// be classified.
func (s *Store) fail(err error) error {
	if err == nil {
		return nil
	}
	e := s.st.classify(err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Failures++
	if e != nil {
		s.stats.LastError = e.Error()
		if e.Problem != ProblemFull && e.Problem != ProblemUnreachable {
			s.broken = e
		}
		return e
	}
	s.stats.LastError = err.Error()
	return err
}

// Stats returns the counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Summary is what the runtime overview and doctor show of the file.
type Summary struct {
	Path          string `json:"path"`
	SchemaVersion int    `json:"schema_version"`
	Messages      int64  `json:"messages"`
	Chats         int64  `json:"chats"`
	Gaps          int64  `json:"gaps"`
	Bytes         int64  `json:"bytes"`
	Stats
}
