package archive

// This file is the archive in one SQLite file, held by one process: the
// storage contract (store.go) on SQLite, with every SQL statement of the
// file. The full-text index (grams, FTS5) holds indexTokens' tokens of
// each message under the message's key.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"modernc.org/sqlite" // the pure-Go driver: the binary stays static
)

// storeBatch stores recs and recalls in one transaction; keys[i] is the key
// recs[i] was stored under, 0 when it was held already.
func (s *sqliteStore) storeBatch(ctx context.Context, recs []Record, recalls []recallOf) ([]int64, error) {
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
	return keys, err
}

func (s *sqliteStore) newestBelow(ctx context.Context, chat, below int64) (int64, error) {
	var k sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT max(id) FROM messages WHERE chat = ? AND id < ?`, chat, below).Scan(&k)
	return k.Int64, err
}

func (s *sqliteStore) firstGap(ctx context.Context, chat int64) (int64, error) {
	var g sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT min(after_key) FROM gaps WHERE chat = ?`, chat).Scan(&g)
	return g.Int64, err
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
func (s *sqliteStore) classify(err error) *Error {
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

// openSQLite opens the archive file at opts.Path, creating it (and its
// directory, 0700) when missing, and takes the file's lock. Every failure
// is an *Error naming the file.
func openSQLite(ctx context.Context, opts Options) (*Store, error) {
	path := opts.Path
	if !filepath.IsAbs(path) {
		return nil, &Error{path, ProblemIO, "the path is not absolute", "set SNOWLUMA_MCP_ARCHIVE to an absolute path"}
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
	s := &sqliteStore{Store: newStore(opts), db: db}
	s.st = s
	if err := s.init(ctx); err != nil {
		db.Close()
		if e := classify(path, err); e != nil {
			return nil, e
		}
		return nil, &Error{path, ProblemIO, err.Error(), "check the file, or move it aside and restart"}
	}
	return s.Store, nil
}

// sqliteStore is the archive in one SQLite file, held by one process.
type sqliteStore struct {
	*Store
	db *sql.DB
}

// init sets the connection up, takes the lock and creates or migrates the
// schema.
func (s *sqliteStore) init(ctx context.Context) error {
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
	// Several bots, one archive: a chat is one bot's view of a group or a
	// friend, keyed (bot, grp, peer). bot is 0 for the first configured
	// bot, the only one a file of version 1 knew (its rows become the
	// first bot's), and a further bot's QQ number. SQLite cannot change a
	// table's UNIQUE constraint, so the table is rebuilt with its ids
	// (the messages' and gaps' chat column) kept.
	1: {
		`CREATE TABLE chats_v2 (
			id INTEGER PRIMARY KEY,
			bot INTEGER NOT NULL DEFAULT 0,
			grp INTEGER NOT NULL,
			peer INTEGER NOT NULL,
			name TEXT NOT NULL DEFAULT '',
			read_key INTEGER NOT NULL DEFAULT 0,
			pushed_key INTEGER NOT NULL DEFAULT 0,
			UNIQUE (bot, grp, peer))`,
		`INSERT INTO chats_v2 (id, bot, grp, peer, name, read_key, pushed_key) SELECT id, 0, grp, peer, name, read_key, pushed_key FROM chats`,
		`DROP TABLE chats`,
		`ALTER TABLE chats_v2 RENAME TO chats`,
	},
}

func (s *sqliteStore) loadChats(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, "SELECT id, bot, grp, peer FROM chats")
	if err != nil {
		return err
	}
	defer rows.Close()
	return s.cacheChats(rows)
}

// Close stores what the feed still holds, then releases the file and its
// lock.
func (s *sqliteStore) close() error { return s.db.Close() }

// Summary counts what the file holds.
func (s *sqliteStore) summary(ctx context.Context) (Summary, error) {
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
func (s *sqliteStore) size(ctx context.Context) (int64, error) {
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
func (s *sqliteStore) check(ctx context.Context) error {
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

// write runs f in a transaction, recording a failure.
func (s *sqliteStore) write(ctx context.Context, f func(*sql.Tx) error) error {
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
func (s *sqliteStore) chatID(ctx context.Context, tx *sql.Tx, c Chat) (int64, error) {
	s.mu.Lock()
	id, ok := s.chats[c]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	err := tx.QueryRowContext(ctx, `INSERT INTO chats (bot, grp, peer, pushed_key) VALUES (?, ?, ?, ?)
		ON CONFLICT (bot, grp, peer) DO UPDATE SET grp = grp RETURNING id`, c.Bot, c.Group, c.ID, keyOf(s.now().Unix())-1).Scan(&id)
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
func (s *sqliteStore) insert(ctx context.Context, tx *sql.Tx, recs []Record) ([]int64, error) {
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
func (s *sqliteStore) recall(ctx context.Context, tx *sql.Tx, c Chat, msg int64) error {
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

// setName records a chat's name.
func (s *sqliteStore) setName(ctx context.Context, c Chat, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		id, err := s.chatID(ctx, tx, c)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE chats SET name = ? WHERE id = ? AND name != ?`, name, id, name)
		return err
	})
}

const messageColumns = `m.id, m.msg, c.grp, c.peer, c.bot, m.user, m.sender, m.text, m.reply, m.recalled, m.own`

func (s *sqliteStore) scanMessages(rows *sql.Rows) ([]Message, error) {
	defer rows.Close()
	return s.messages(rows, nil)
}

// readableChats returns the SQL condition that keeps reads inside the
// allowlists ("" when every chat is readable) and its arguments.
func (s *sqliteStore) readableChats() (string, []any) {
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

func (s *sqliteStore) search(ctx context.Context, q Query) (msgs []Message, next string, err error) {
	if e := s.Err(); e != nil {
		return nil, "", e
	}
	match := matchQuery(q.Text, q.Any)
	if match == "" {
		return nil, "", ErrEmptyQuery
	}
	limit := searchLimit(q.Limit)
	sqlText := `SELECT ` + messageColumns + ` FROM grams g JOIN messages m ON m.id = g.rowid JOIN chats c ON c.id = m.chat WHERE grams MATCH ?`
	args := []any{match}
	if q.Cursor != "" {
		k, err := cursorKey(q.Cursor)
		if err != nil {
			return nil, "", err
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
		if !s.Readable(*q.Chat) {
			return nil, "", nil
		}
		// The group's or friend's chats of every bot, or of q.Bot's.
		var ids []string
		s.mu.Lock()
		for c, id := range s.chats {
			if c.Group == q.Chat.Group && c.ID == q.Chat.ID && (q.Bot == nil || c.Bot == *q.Bot) {
				ids = append(ids, strconv.FormatInt(id, 10))
			}
		}
		s.mu.Unlock()
		if len(ids) == 0 {
			return nil, "", nil
		}
		sqlText += ` AND m.chat IN (` + strings.Join(ids, ",") + `)`
	}
	if q.Bot != nil {
		sqlText += ` AND c.bot = ?`
		args = append(args, *q.Bot)
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
	msgs, next = pageOf(msgs, limit)
	return msgs, next, nil
}

func (s *sqliteStore) keyIn(ctx context.Context, chat, msg int64) (int64, error) {
	var k int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, chat, msg).Scan(&k)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNoMessage
	}
	return k, err
}

func (s *sqliteStore) page(ctx context.Context, chat, lo, hi int64, newest bool, n int) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages m JOIN chats c ON c.id = m.chat
		WHERE m.chat = ? AND m.id > ? AND m.id < ? ORDER BY m.id `+direction(newest)+` LIMIT ?`, chat, lo, hi, n)
	if err != nil {
		return nil, err
	}
	return s.scanMessages(rows)
}

func (s *sqliteStore) beyond(ctx context.Context, chat, first, last int64) (before, after bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE chat = ? AND id < ?), EXISTS (SELECT 1 FROM messages WHERE chat = ? AND id > ?)`,
		chat, first, chat, last).Scan(&before, &after)
	return before, after, err
}

// gaps lists the gap markers of chat that overlap the keys [lo, hi].
func (s *sqliteStore) gaps(ctx context.Context, chat, lo, hi int64) ([]Gap, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT after_key, before_key FROM gaps WHERE chat = ? AND before_key >= ? AND after_key <= ? ORDER BY after_key`, chat, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return s.gapRows(rows)
}

func (s *sqliteStore) chatRows(ctx context.Context) ([]chatRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.grp, c.peer, c.bot, c.name,
		(SELECT max(id) FROM messages WHERE chat = c.id),
		(SELECT count(*) FROM (SELECT 1 FROM messages WHERE chat = c.id AND id > c.read_key AND own = 0 LIMIT ?)),
		(SELECT count(*) FROM messages WHERE chat = c.id)
		FROM chats c`, maxUnreadCounts)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []chatRow
	for rows.Next() {
		var r chatRow
		var top sql.NullInt64
		if err := rows.Scan(&r.chat.Group, &r.chat.ID, &r.chat.Bot, &r.name, &top, &r.unread, &r.messages); err != nil {
			return nil, err
		}
		r.newest = top.Int64
		out = append(out, r)
	}
	return out, rows.Err()
}

// MarkRead marks chat read up to message msg (the newest when 0). It
// returns the unread count left.
func (s *sqliteStore) markRead(ctx context.Context, chat Chat, msg int64) (int64, error) {
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

func (s *sqliteStore) pushMarks(ctx context.Context) ([]pushMark, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, grp, peer, bot, pushed_key FROM chats`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pushMark
	for rows.Next() {
		var m pushMark
		if err := rows.Scan(&m.id, &m.chat.Group, &m.chat.ID, &m.chat.Bot, &m.pushed); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (s *sqliteStore) unpushed(ctx context.Context, chat, pushed int64) (count, first int64, newest []Message, err error) {
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE chat = ? AND id > ? AND own = 0`, chat, pushed).Scan(&count); err != nil || count == 0 {
		return 0, 0, nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages m JOIN chats c ON c.id = m.chat WHERE m.chat = ? AND m.id > ? AND m.own = 0 ORDER BY m.id DESC LIMIT ?`, chat, pushed, CatchUpLines)
	if err != nil {
		return 0, 0, nil, err
	}
	if newest, err = s.scanMessages(rows); err != nil {
		return 0, 0, nil, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT msg FROM messages WHERE chat = ? AND id > ? AND own = 0 ORDER BY id LIMIT 1`, chat, pushed).Scan(&first)
	return count, first, newest, err
}

// Delivered records that the channel pushed u (a catch-up push).
func (s *sqliteStore) delivered(ctx context.Context, u Undelivered) error {
	id, ok := s.lookup(u.Chat)
	if !ok {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE chats SET pushed_key = max(pushed_key, ?) WHERE id = ?`, u.top, id)
		return err
	})
}

// pushed is Pushed for a message the archive holds; held is false, and
// nothing is recorded, when it does not hold msg.
func (s *sqliteStore) pushed(ctx context.Context, chat Chat, first, msg int64) (held, behind bool, err error) {
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

// closeGaps removes the gap markers of chat that the keys [lo, hi], a
// stretch now held without a hole, cover, and shortens those it covers in
// part.
func (s *sqliteStore) closeGaps(ctx context.Context, chat Chat, lo, hi int64) error {
	id, ok := s.lookup(chat)
	if !ok || lo > hi {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM gaps WHERE chat = ? AND after_key >= ? AND before_key <= ?`, id, lo, hi); err != nil {
			return err
		}
		// The covered stretch holds the gap's newer end: the hole ends at lo.
		if _, err := tx.ExecContext(ctx, `UPDATE gaps SET before_key = ? WHERE chat = ? AND after_key < ? AND before_key > ? AND before_key <= ?`, lo, id, lo, lo, hi); err != nil {
			return err
		}
		// ... or its older end: the hole starts at hi.
		_, err := tx.ExecContext(ctx, `UPDATE gaps SET after_key = ? WHERE chat = ? AND after_key >= ? AND after_key < ? AND before_key > ?`, hi, id, lo, hi, hi)
		return err
	})
}

// heldAmong reports whether the archive held one of recs at or before key
// held.
func (s *sqliteStore) heldAmong(ctx context.Context, chat Chat, recs []Record, held int64) (bool, error) {
	if held == 0 {
		return false, nil
	}
	id, ok := s.lookup(chat)
	if !ok {
		return false, nil
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = strconv.FormatInt(r.MessageID, 10)
	}
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE chat = ? AND id <= ? AND msg IN (`+strings.Join(ids, ",")+`)`, id, held).Scan(&n)
	if err != nil {
		return false, s.fail(err)
	}
	return n > 0, nil
}

// messageAt is the message id stored under key.
func (s *sqliteStore) messageAt(ctx context.Context, key int64) (int64, error) {
	var msg int64
	if err := s.db.QueryRowContext(ctx, `SELECT msg FROM messages WHERE id = ?`, key).Scan(&msg); err != nil {
		return 0, s.fail(err)
	}
	return msg, nil
}

// addGap records that chat's messages between the keys after and before
// may be missing.
func (s *sqliteStore) addGap(ctx context.Context, chat Chat, after, before int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		id, err := s.chatID(ctx, tx, chat)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO gaps (chat, after_key, before_key) VALUES (?, ?, ?)`, id, after, before)
		return err
	})
}

// Prune applies the retention: messages older than Days, then the oldest
// until the file uses at most MaxBytes. It returns how many were removed.
func (s *sqliteStore) prune(ctx context.Context) (int64, error) {
	if e := s.Err(); e != nil {
		return 0, e
	}
	var removed int64
	// Deleting takes pages too (the index's tombstones): let a full file
	// grow a little while it shrinks.
	s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", s.opts.maxPages+s.opts.maxPages/8+256))
	defer s.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA max_page_count = %d", s.opts.maxPages))
	cut := keyOf(s.now().Add(-dayDuration(s.opts.Days)).Unix())
	err := s.write(ctx, func(tx *sql.Tx) error {
		n, err := deleteBelow(ctx, tx, cut)
		removed += n
		return err
	})
	if err != nil {
		return removed, err
	}
	for range 1000 {
		size, err := s.size(ctx)
		if err != nil {
			return removed, s.fail(err)
		}
		if size <= s.opts.MaxBytes {
			break
		}
		var n int64
		err = s.write(ctx, func(tx *sql.Tx) error {
			var k sql.NullInt64
			// The oldest thousandth of the archive, at least 100.
			if err := tx.QueryRowContext(ctx, `SELECT id FROM messages ORDER BY id LIMIT 1 OFFSET max(100, (SELECT count(*) FROM messages) / 1000)`).Scan(&k); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					k.Int64 = 1 << 62
				} else {
					return err
				}
			}
			var err error
			n, err = deleteBelow(ctx, tx, k.Int64)
			return err
		})
		removed += n
		if err != nil {
			return removed, err
		}
		if n == 0 {
			break
		}
	}
	return removed, nil
}

func deleteBelow(ctx context.Context, tx *sql.Tx, key int64) (int64, error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM grams WHERE rowid IN (SELECT id FROM messages WHERE id < ? AND text != '')`, key); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE id < ?`, key)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gaps WHERE before_key < ?`, key); err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *sqliteStore) lookup(c Chat) (int64, bool) { return s.cached(c) }
