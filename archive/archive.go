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
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // the pure-Go driver: the binary stays static
)

// SchemaVersion is the version of the file's layout this build writes.
// Older files are migrated on open; a newer file is refused.
const SchemaVersion = 1

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
	// Path is the database file, an absolute path.
	Path string
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
	db   *sql.DB
	now  func() time.Time

	mu     sync.Mutex
	chats  map[Chat]int64 // chat row ids
	stats  Stats
	broken *Error                // set once the file failed in a way that stops the archive
	early  map[chatMessage]int64 // pushes that came before their message (Pushed)
	feed   *Feed                 // the event connection's feed, once NewFeed made it
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

// Chat names one conversation: a group, or one person's private messages.
type Chat struct {
	Group bool
	ID    int64
}

func (c Chat) String() string {
	if c.Group {
		return fmt.Sprintf("group %d", c.ID)
	}
	return fmt.Sprintf("user %d", c.ID)
}

// A Problem classifies an Error.
type Problem string

const (
	ProblemLocked  Problem = "locked"  // another process holds the file
	ProblemCorrupt Problem = "corrupt" // not a database, or damaged
	ProblemForeign Problem = "foreign" // a database, but not an archive of this server
	ProblemNewer   Problem = "newer"   // written by a newer snowluma-mcp
	ProblemFull    Problem = "full"    // the disk or the size limit is full
	ProblemIO      Problem = "io"      // the file or its directory cannot be used
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

// SQLite result codes the archive tells apart (the primary code, the low
// byte of an extended one).
const (
	codeBusy     = 5
	codeLocked   = 6
	codeNoMem    = 7
	codeIOErr    = 10
	codeCorrupt  = 11
	codeFull     = 13
	codeCantOpen = 14
	codeNotADB   = 26
)

// classify turns a driver error into an Error naming the file, or returns
// nil for an error that says nothing about the file.
func (s *Store) classify(err error) *Error {
	return classify(s.opts.Path, err)
}

func classify(path string, err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code() & 0xff {
	case codeBusy, codeLocked:
		return &Error{path, ProblemLocked, "the file is in use by another snowluma-mcp process (" + se.Error() + ")",
			"stop the other server, or give this one its own SNOWLUMA_MCP_ARCHIVE file"}
	case codeCorrupt, codeNotADB:
		return &Error{path, ProblemCorrupt, "the file is not a readable SQLite database (" + se.Error() + ")",
			"move the file aside (keep it if you want to try to recover it) and restart; a new archive is created"}
	case codeFull:
		return &Error{path, ProblemFull, "the disk or the archive's size limit is full (" + se.Error() + ")",
			"free disk space, or lower SNOWLUMA_MCP_ARCHIVE_MAX_BYTES or SNOWLUMA_MCP_ARCHIVE_DAYS, and restart"}
	case codeIOErr, codeCantOpen, codeNoMem:
		return &Error{path, ProblemIO, "the file cannot be read or written (" + se.Error() + ")",
			"check the file's directory: it must exist on a local disk, writable by this user"}
	}
	return nil
}

// Open opens the archive at opts.Path, creating it (and its directory,
// 0700) when missing, and takes the file's lock. Every failure is an
// *Error naming the file.
func Open(ctx context.Context, opts Options) (*Store, error) {
	path := opts.Path
	if !filepath.IsAbs(path) {
		return nil, &Error{path, ProblemIO, "the path is not absolute", "set SNOWLUMA_MCP_ARCHIVE to an absolute path"}
	}
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
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, &Error{path, ProblemIO, "its directory cannot be created: " + err.Error(), "create the directory, or choose another path"}
	}
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return nil, &Error{path, ProblemIO, "the file cannot be opened for writing: " + err.Error(), "check its permissions, or choose another path"}
	} else {
		f.Close()
	}
	// The name goes in a URI: escape what SQLite's URI parser reads.
	uri := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	if !strings.HasPrefix(uri, "file:/") {
		uri = "file:/" + strings.TrimPrefix(uri, "file:") // a Windows drive path
	}
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, &Error{path, ProblemIO, err.Error(), "check the path"}
	}
	// One connection: it holds the exclusive lock, and SQLite serializes
	// the archive's reads and writes anyway.
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &Store{opts: opts, db: db, now: now, chats: map[Chat]int64{}}
	if err := s.init(ctx); err != nil {
		db.Close()
		if e := classify(path, err); e != nil {
			return nil, e
		}
		return nil, &Error{path, ProblemIO, err.Error(), "check the file, or move it aside and restart"}
	}
	return s, nil
}

// init sets the connection up, takes the lock and creates or migrates the
// schema.
func (s *Store) init(ctx context.Context) error {
	for _, p := range []string{
		"PRAGMA busy_timeout = 200",
		// Exclusive before WAL: the WAL index then lives in this process's
		// memory and no other process may open the file while it is held.
		"PRAGMA locking_mode = EXCLUSIVE",
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = NORMAL",
		"PRAGMA foreign_keys = OFF",
	} {
		if _, err := s.db.ExecContext(ctx, p); err != nil {
			return err
		}
	}
	// The file may pass MaxBytes between two retention passes, but never
	// twice it: past that, writes fail as on a full disk (ProblemFull).
	if s.opts.maxPages <= 0 {
		s.opts.maxPages = s.opts.MaxBytes/4096*2 + 256
	}
	{
		if _, err := s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", s.opts.maxPages)); err != nil {
			return err
		}
	}
	var app, version int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	var tables int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables); err != nil {
		return err
	}
	switch {
	case app == 0 && tables == 0:
		// A new file.
	case app != applicationID:
		return &Error{s.opts.Path, ProblemForeign, "the file is an SQLite database of another program, not a snowluma-mcp archive",
			"set SNOWLUMA_MCP_ARCHIVE to a new file; this one is left untouched"}
	case version > SchemaVersion:
		return &Error{s.opts.Path, ProblemNewer, fmt.Sprintf("the archive has schema version %d, newer than this build's %d", version, SchemaVersion),
			"upgrade snowluma-mcp, or give this build its own SNOWLUMA_MCP_ARCHIVE file"}
	}
	if app == applicationID && version == SchemaVersion {
		// Up to date: the reads above took the exclusive lock (WAL in
		// exclusive locking mode), held until Close.
		return s.loadChats(ctx)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for v := version; v < SchemaVersion; v++ {
		for _, stmt := range migrations[v] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migrating to schema %d: %w", v+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return s.loadChats(ctx)
}

// migrations[v] takes a file from schema version v to v+1.
//
// Message rows are keyed by a sortable id: the message's time in seconds
// shifted left by idShift, plus a small number that makes it unique, so
// that rowid order is time order (newest-first search walks the full-text
// index backwards and stops at the page size). grams is a contentless
// FTS5 index of each message's search tokens (bigrams of Chinese runs,
// words of others; tokens.go).
var migrations = [][]string{
	0: {
		`CREATE TABLE chats (
			id INTEGER PRIMARY KEY,
			grp INTEGER NOT NULL,
			peer INTEGER NOT NULL,
			name TEXT NOT NULL DEFAULT '',
			read_key INTEGER NOT NULL DEFAULT 0,
			pushed_key INTEGER NOT NULL DEFAULT 0,
			UNIQUE (grp, peer))`,
		`CREATE TABLE messages (
			id INTEGER PRIMARY KEY,
			chat INTEGER NOT NULL,
			msg INTEGER NOT NULL,
			user INTEGER NOT NULL,
			sender TEXT NOT NULL,
			text TEXT NOT NULL,
			reply INTEGER NOT NULL DEFAULT 0,
			recalled INTEGER NOT NULL DEFAULT 0,
			own INTEGER NOT NULL DEFAULT 0,
			UNIQUE (chat, msg))`,
		`CREATE INDEX messages_chat ON messages (chat, id)`,
		`CREATE VIRTUAL TABLE grams USING fts5 (t, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`,
		`CREATE TABLE gaps (
			id INTEGER PRIMARY KEY,
			chat INTEGER NOT NULL,
			after_key INTEGER NOT NULL,
			before_key INTEGER NOT NULL)`,
		`CREATE INDEX gaps_chat ON gaps (chat, before_key)`,
	},
}

// idShift leaves room for 4 Mi messages a second below the time.
const idShift = 22

func keyOf(unix int64) int64 { return unix << idShift }
func timeOf(key int64) int64 { return key >> idShift }

func (s *Store) loadChats(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, grp, peer FROM chats")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, peer int64
		var grp bool
		if err := rows.Scan(&id, &grp, &peer); err != nil {
			return err
		}
		s.mu.Lock()
		s.chats[Chat{grp, peer}] = id
		s.mu.Unlock()
	}
	return rows.Err()
}

// Path is the file's path.
func (s *Store) Path() string { return s.opts.Path }

// Close releases the file and its lock.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	return s.db.Close()
}

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
	e := s.classify(err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Failures++
	if e != nil {
		s.stats.LastError = e.Error()
		if e.Problem != ProblemFull {
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

// Summary counts what the file holds.
func (s *Store) Summary(ctx context.Context) (Summary, error) {
	sum := Summary{Path: s.opts.Path, SchemaVersion: SchemaVersion, Stats: s.Stats()}
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages), (SELECT count(*) FROM chats), (SELECT count(*) FROM gaps)`).
		Scan(&sum.Messages, &sum.Chats, &sum.Gaps)
	if err != nil {
		return sum, s.fail(err)
	}
	sum.Bytes, err = s.size(ctx)
	return sum, s.fail(err)
}

// size is the bytes the database uses (pages in use times the page size).
func (s *Store) size(ctx context.Context) (int64, error) {
	var pages, free, pageSize int64
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, err
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA freelist_count").Scan(&free); err != nil {
		return 0, err
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return 0, err
	}
	return (pages - free) * pageSize, nil
}

// Check runs SQLite's quick integrity check, for doctor.
func (s *Store) Check(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&res); err != nil {
		return s.fail(err)
	}
	if res != "ok" {
		return &Error{s.opts.Path, ProblemCorrupt, "the integrity check failed: " + res,
			"move the file aside and restart; a new archive is created"}
	}
	return nil
}
