package archive

// This file is the archive in a PostgreSQL database that several servers
// (several bots, machines and operators) share: the same contract as
// sqlite.go (storage), with what sharing adds.
//
//   - A chat is one bot's view of a group or friend, keyed (bot, grp,
//     peer) as in the file, but bot is always the bot's QQ number: the
//     servers sharing the database each key their first bot 0 (Chat.Bot),
//     and two servers of one account share its chats. Read marks, unread
//     counts, gaps and the channel's catch-up are therefore per bot.
//   - Each message is stored once, keyed by (chat, message id): INSERT
//     ... ON CONFLICT DO NOTHING, so a backfill never duplicates what
//     another server stored.
//   - Search runs on a tsvector of each message's tokens (tokens.go's
//     character pairs and words, folded in Go exactly as for SQLite),
//     written as a tsvector literal so that no text-search parser or
//     locale of the server is involved, with a GIN index; a query is a
//     tsquery of phrases of pairs (<->) and word prefixes (:*).
//   - The schema carries its version in snowluma_mcp_schema; migrations
//     run under an advisory lock, so two servers starting together migrate
//     once, and a newer schema is refused with ProblemNewer.
//   - One retention pass at a time: prune holds a transaction-level
//     advisory lock, and a pass that finds it taken leaves the work to
//     the one that holds it.
//   - Read marks and the channel's delivery record are per reader
//     (Options.Reader) and bot's chat in the marks table.
//   - Nothing of the URL's password is ever shown: Path and every Error
//     carry the URL redacted.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgresSchemaVersion is the version of the database's layout this build
// writes. Older databases are migrated on open; a newer one is refused.
const PostgresSchemaVersion = 2

// Advisory lock keys (pg_advisory_xact_lock's bigint): "SLMA" and what
// the lock guards.
const (
	lockMigrate = 0x534C4D41_00000001
	lockPrune   = 0x534C4D41_00000002
)

// pgMigrations[v] takes a database from schema version v to v+1.
var pgMigrations = [][]string{
	0: {
		`CREATE TABLE chats (
			id bigserial PRIMARY KEY,
			grp boolean NOT NULL,
			peer bigint NOT NULL,
			name text NOT NULL DEFAULT '',
			created_key bigint NOT NULL,
			UNIQUE (grp, peer))`,
		`CREATE SEQUENCE message_seq`,
		`CREATE TABLE messages (
			bot bigint NOT NULL,
			chat bigint NOT NULL,
			msg bigint NOT NULL,
			id bigint NOT NULL,
			uid bigint NOT NULL,
			sender text NOT NULL,
			text text NOT NULL,
			reply bigint NOT NULL DEFAULT 0,
			recalled boolean NOT NULL DEFAULT false,
			own boolean NOT NULL DEFAULT false,
			grams tsvector,
			PRIMARY KEY (bot, chat, msg))`,
		`CREATE UNIQUE INDEX messages_id ON messages (id)`,
		`CREATE INDEX messages_chat ON messages (chat, id)`,
		`CREATE INDEX messages_grams ON messages USING gin (grams)`,
		`CREATE TABLE gaps (
			id bigserial PRIMARY KEY,
			chat bigint NOT NULL,
			after_key bigint NOT NULL,
			before_key bigint NOT NULL)`,
		`CREATE INDEX gaps_chat ON gaps (chat, before_key)`,
		`CREATE TABLE marks (
			reader text NOT NULL,
			chat bigint NOT NULL,
			read_key bigint NOT NULL DEFAULT 0,
			pushed_key bigint NOT NULL,
			PRIMARY KEY (reader, chat))`,
	},
	// Chats per bot: schema 1 kept one chat row per group or friend for
	// every bot (UNIQUE (grp, peer)) and its messages carried their bot,
	// so read marks, unread counts, gaps and the channel's catch-up were
	// shared by the bots of a group. Each chat is split into one chat per
	// bot found in its messages (the smallest QQ number keeps the row and
	// its id), each bot's messages move to its chat, and the read marks,
	// delivery marks and gap markers are copied to each. A chat that holds
	// no message names no bot: it goes with its marks and gaps (the next
	// backfill names it again).
	1: {
		`ALTER TABLE chats ADD COLUMN bot bigint NOT NULL DEFAULT 0, ADD COLUMN split_from bigint`,
		`ALTER TABLE chats DROP CONSTRAINT chats_grp_peer_key`,
		`DELETE FROM marks k WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat = k.chat)`,
		`DELETE FROM gaps g WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat = g.chat)`,
		`DELETE FROM chats c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat = c.id)`,
		`UPDATE chats c SET bot = (SELECT min(bot) FROM messages m WHERE m.chat = c.id)`,
		`INSERT INTO chats (bot, grp, peer, name, created_key, split_from)
			SELECT d.bot, c.grp, c.peer, c.name, c.created_key, c.id
			FROM (SELECT DISTINCT chat, bot FROM messages) d JOIN chats c ON c.id = d.chat
			WHERE d.bot <> c.bot`,
		`UPDATE messages m SET chat = c.id FROM chats c WHERE c.split_from = m.chat AND c.bot = m.bot`,
		`INSERT INTO marks (reader, chat, read_key, pushed_key)
			SELECT k.reader, c.id, k.read_key, k.pushed_key FROM marks k JOIN chats c ON c.split_from = k.chat`,
		`INSERT INTO gaps (chat, after_key, before_key)
			SELECT c.id, g.after_key, g.before_key FROM gaps g JOIN chats c ON c.split_from = g.chat`,
		`ALTER TABLE chats DROP COLUMN split_from, ALTER COLUMN bot DROP DEFAULT, ADD CONSTRAINT chats_bot_grp_peer_key UNIQUE (bot, grp, peer)`,
		// A message's bot is its chat's.
		`ALTER TABLE messages DROP CONSTRAINT messages_pkey`,
		`ALTER TABLE messages DROP COLUMN bot`,
		`ALTER TABLE messages ADD PRIMARY KEY (chat, msg)`,
	},
}

// pgStore is the archive in a PostgreSQL database.
type pgStore struct {
	*Store
	pool     *pgxpool.Pool
	shown    string // the URL as it may be shown (no password)
	password string // to scrub from the driver's errors
	reader   string
}

// openPostgres connects to the database opts.Path names, creates or
// migrates its schema, and records this reader.
func openPostgres(ctx context.Context, opts Options) (*Store, error) {
	shown := Redact(opts.Path)
	var password string
	if u, err := url.Parse(strings.TrimSpace(opts.Path)); err == nil {
		if u.User != nil {
			password, _ = u.User.Password()
		}
		if p := u.Query().Get("password"); p != "" {
			password = p
		}
	}
	cfg, err := pgxpool.ParseConfig(strings.TrimSpace(opts.Path))
	if err != nil {
		return nil, &Error{shown, ProblemIO, "the URL is not a PostgreSQL connection URL: " + redactIn(err.Error(), password),
			"set SNOWLUMA_MCP_ARCHIVE to postgres://user:password@host:5432/database?sslmode=verify-full, or to a file path"}
	}
	if cfg.ConnConfig.Password != "" {
		password = cfg.ConnConfig.Password
	}
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "snowluma-mcp"
	}
	if cfg.MaxConns < 4 {
		cfg.MaxConns = 4
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, &Error{shown, ProblemIO, "the URL cannot be used: " + redactIn(err.Error(), password), "check SNOWLUMA_MCP_ARCHIVE"}
	}
	reader := opts.Reader
	if reader == "" {
		reader = "operator"
	}
	s := &pgStore{Store: newStore(opts), pool: pool, shown: shown, password: password, reader: reader}
	s.st = s
	if err := s.init(ctx); err != nil {
		pool.Close()
		if e := s.classify(err); e != nil {
			return nil, e
		}
		return nil, &Error{shown, ProblemIO, redactIn(err.Error(), password), "check the database, or SNOWLUMA_MCP_ARCHIVE"}
	}
	return s.Store, nil
}

// init creates or migrates the schema under the migration lock, refuses a
// newer or foreign one, and loads the chats.
func (s *pgStore) init(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// Two servers starting together: the second waits here, then finds
	// the schema the first wrote.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockMigrate)); err != nil {
		return err
	}
	var hasSchema, hasMessages bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('snowluma_mcp_schema') IS NOT NULL, to_regclass('messages') IS NOT NULL`).Scan(&hasSchema, &hasMessages); err != nil {
		return err
	}
	version := 0
	switch {
	case hasSchema:
		if err := tx.QueryRow(ctx, `SELECT version FROM snowluma_mcp_schema`).Scan(&version); err != nil {
			return err
		}
	case hasMessages:
		return &Error{s.shown, ProblemForeign, "the database holds a messages table that is not a snowluma-mcp archive's",
			"give snowluma-mcp its own database (or schema, with ?search_path=); this one is left untouched"}
	default:
		if _, err := tx.Exec(ctx, `CREATE TABLE snowluma_mcp_schema (version integer NOT NULL)`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO snowluma_mcp_schema VALUES (0)`); err != nil {
			return err
		}
	}
	if version > PostgresSchemaVersion {
		return &Error{s.shown, ProblemNewer, fmt.Sprintf("the archive has schema version %d, newer than this build's %d", version, PostgresSchemaVersion),
			"upgrade this snowluma-mcp to the version the other servers run"}
	}
	for v := version; v < PostgresSchemaVersion; v++ {
		for _, stmt := range pgMigrations[v] {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("migrating to schema %d: %w", v+1, err)
			}
		}
	}
	if version < PostgresSchemaVersion {
		if _, err := tx.Exec(ctx, `UPDATE snowluma_mcp_schema SET version = $1`, PostgresSchemaVersion); err != nil {
			return err
		}
	}
	// A reader new to the archive starts with nothing undelivered: the
	// channel had no chance at what came before.
	if _, err := tx.Exec(ctx, `INSERT INTO marks (reader, chat, pushed_key) SELECT $1, id, $2 FROM chats ON CONFLICT DO NOTHING`,
		s.reader, keyOf(s.now().Unix())-1); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	return s.loadChats(ctx)
}

// loadChats caches the chats' ids (other servers add chats at any time:
// lookup asks the database for one it has not seen).
func (s *pgStore) loadChats(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `SELECT id, bot, grp, peer FROM chats`)
	if err != nil {
		return err
	}
	defer rows.Close()
	return s.cacheChats(rows)
}

// rowKey is the key of c's row (and of the cache): c with its bot's QQ
// number, the first bot's (SelfID) for 0. While that is not known, it
// stays 0.
func (s *pgStore) rowKey(c Chat) Chat {
	c.Bot = s.selfOf(c.Bot)
	return c
}

// localBot is the Chat.Bot of a row's bot: 0 for this server's first bot,
// else the QQ number.
func (s *pgStore) localBot(bot int64) int64 {
	if self := s.self(); self != 0 && bot == self {
		return 0
	}
	return bot
}

// ownBot reports whether chats keyed bot (a Chat.Bot) are kept by a bot of
// this server: the first bot's, or a further bot's whose feed runs here.
// Other servers' bots' chats share the database but are not listed or
// caught up here. While the first bot's account is not known (doctor),
// every chat is.
func (s *pgStore) ownBot(bot int64) bool {
	if bot == 0 || s.self() == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.feeds[bot] != nil
}

func (s *pgStore) close() error { s.pool.Close(); return nil }

// classify turns a driver error into an Error naming the database (its URL
// without the password), or nil for an error that says nothing about it.
func (s *pgStore) classify(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	detail := redactIn(err.Error(), s.password)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "28P01" || pe.Code == "28000":
			return &Error{s.shown, ProblemUnreachable, "the database refused the login (" + detail + ")",
				"check the user and password in SNOWLUMA_MCP_ARCHIVE, and pg_hba.conf"}
		case pe.Code == "3D000":
			return &Error{s.shown, ProblemUnreachable, "the database does not exist (" + detail + ")",
				"create it (docs/archive.md gives the SQL), or fix SNOWLUMA_MCP_ARCHIVE"}
		case pe.Code == "42501":
			return &Error{s.shown, ProblemPrivilege, "the role lacks a privilege the archive needs (" + detail + ")",
				"grant the role what docs/archive.md lists, or run doctor to see which"}
		case pe.Code == "53100" || pe.Code == "53200":
			return &Error{s.shown, ProblemFull, "the database server's disk or memory is full (" + detail + ")",
				"free space on the database server, or lower SNOWLUMA_MCP_ARCHIVE_MAX_BYTES or SNOWLUMA_MCP_ARCHIVE_DAYS"}
		case strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P"):
			return &Error{s.shown, ProblemUnreachable, "the connection to the database failed (" + detail + ")",
				"check that the database server is up and reachable; the archive retries"}
		case strings.HasPrefix(pe.Code, "XX"):
			return &Error{s.shown, ProblemCorrupt, "the database reports damage (" + detail + ")", "ask the database's administrator"}
		}
		return nil
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, pgx.ErrTxClosed) {
		return &Error{s.shown, ProblemUnreachable, "the database cannot be reached (" + detail + ")",
			"check that the database server is up and reachable, and the URL's host, port and sslmode; the archive retries"}
	}
	return nil
}

// lookup returns c's chat id, asking the database for a chat another
// server created.
func (s *pgStore) lookup(c Chat) (int64, bool) {
	c = s.rowKey(c)
	if id, ok := s.cached(c); ok {
		return id, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var id int64
	if err := s.pool.QueryRow(ctx, `SELECT id FROM chats WHERE bot = $1 AND grp = $2 AND peer = $3`, c.Bot, c.Group, c.ID).Scan(&id); err != nil {
		return 0, false
	}
	s.mu.Lock()
	s.chats[c] = id
	s.mu.Unlock()
	return id, true
}

// chatID returns the row of the chat whose row key (rowKey) is c, creating
// it (in its own statement: a chat's row never vanishes with a rolled-back
// batch, so the cache stays true).
func (s *pgStore) chatID(ctx context.Context, c Chat) (int64, error) {
	if id, ok := s.cached(c); ok {
		return id, nil
	}
	created := keyOf(s.now().Unix()) - 1
	var id int64
	err := s.pool.QueryRow(ctx, `WITH ins AS (
			INSERT INTO chats (bot, grp, peer, created_key) VALUES ($1, $2, $3, $4) ON CONFLICT (bot, grp, peer) DO NOTHING RETURNING id)
		SELECT id FROM ins UNION ALL SELECT id FROM chats WHERE bot = $1 AND grp = $2 AND peer = $3 LIMIT 1`, c.Bot, c.Group, c.ID, created).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		// Created by another server between the two halves: read it.
		err = s.pool.QueryRow(ctx, `SELECT id FROM chats WHERE bot = $1 AND grp = $2 AND peer = $3`, c.Bot, c.Group, c.ID).Scan(&id)
	}
	if err != nil {
		return 0, err
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO marks (reader, chat, pushed_key) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, s.reader, id, created); err != nil {
		return 0, err
	}
	s.mu.Lock()
	s.chats[c] = id
	s.mu.Unlock()
	return id, nil
}

// write runs f in a transaction, recording a failure.
func (s *pgStore) write(ctx context.Context, f func(pgx.Tx) error) error {
	if e := s.Err(); e != nil {
		return e
	}
	err := pgx.BeginFunc(ctx, s.pool, f)
	return s.fail(err)
}

// maxLexeme is PostgreSQL's bound on one lexeme (2047 bytes), kept under.
const maxLexeme = 2000

// tsvectorOf writes indexTokens' tokens of text as a tsvector literal,
// each token at its position, so that phrases of pairs match as on SQLite.
// It is "" for a text with nothing to index.
func tsvectorOf(text string) string {
	tokens := strings.Fields(indexTokens(text))
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for i, t := range tokens {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(t))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(min(i+1, 16383)))
	}
	return b.String()
}

// quoteLexeme quotes t for a tsvector or tsquery literal.
func quoteLexeme(t string) string {
	if len(t) > maxLexeme {
		t = t[:maxLexeme]
		for !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(t) + "'"
}

// tsqueryOf is matchQuery's query as a tsquery literal: each Chinese run a
// phrase of its pairs, each word (and a single character) a prefix.
func tsqueryOf(q string, any bool) string {
	var parts []string
	for _, r := range runs(q) {
		if r.han && len(r.text) >= 2 {
			pairs := make([]string, 0, len(r.text)-1)
			for i := 0; i+1 < len(r.text); i++ {
				pairs = append(pairs, quoteLexeme(string(r.text[i:i+2])))
			}
			parts = append(parts, "("+strings.Join(pairs, " <-> ")+")")
			continue
		}
		parts = append(parts, quoteLexeme(string(r.text))+":*")
	}
	op := " & "
	if any {
		op = " | "
	}
	return strings.Join(parts, op)
}

// storeBatch stores recs (one statement for the batch) and recalls in one
// transaction.
func (s *pgStore) storeBatch(ctx context.Context, recs []Record, recalls []recallOf) ([]int64, error) {
	if e := s.Err(); e != nil {
		return nil, e
	}
	keys := make([]int64, len(recs))
	chatIDs := make([]int64, len(recs))
	for i, r := range recs {
		c := s.rowKey(r.Chat)
		if c.Bot == 0 {
			c.Bot = r.Bot // the first bot's account not known yet: the event's self_id
		}
		id, err := s.chatID(ctx, c)
		if err != nil {
			return nil, s.fail(err)
		}
		chatIDs[i] = id
	}
	// A recall of a chat the archive does not hold has nothing to mark.
	var recallChats []int64
	var recallIDs []int64
	for _, r := range recalls {
		if id, ok := s.lookup(r.chat); ok {
			recallChats = append(recallChats, id)
			recallIDs = append(recallIDs, r.id)
		}
	}
	now := s.now().Unix()
	n := len(recs)
	times, msgs, uids, replies := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	senders, textCol, grams := make([]string, n), make([]string, n), make([]*string, n)
	recalled, own := make([]bool, n), make([]bool, n)
	for i, r := range recs {
		t := r.Time
		if t <= 0 || t > now+86400 {
			t = now
		}
		times[i], msgs[i], uids[i], replies[i] = t, r.MessageID, r.UserID, r.ReplyTo
		senders[i], textCol[i], recalled[i], own[i] = r.Sender, r.Text, r.Recalled, r.Own
		if g := tsvectorOf(r.Text); g != "" {
			grams[i] = &g
		}
	}
	err := s.write(ctx, func(tx pgx.Tx) error {
		if n > 0 {
			// The low bits of a key are the message sequence: within one
			// second, keys follow the order messages were stored in, on
			// every server.
			rows, err := tx.Query(ctx, `INSERT INTO messages (chat, msg, id, uid, sender, text, reply, recalled, own, grams)
				SELECT c, m, (t << 22) | (nextval('message_seq') % 4194304), u, se, tx, rp, rc, ow, g::tsvector
				FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::bigint[], $8::boolean[], $9::boolean[], $10::text[])
					WITH ORDINALITY AS v(c, m, t, u, se, tx, rp, rc, ow, g, ord)
				ORDER BY ord
				ON CONFLICT (chat, msg) DO NOTHING
				RETURNING chat, msg, id`,
				chatIDs, msgs, times, uids, senders, textCol, replies, recalled, own, grams)
			if err != nil {
				return err
			}
			stored := map[[2]int64]int64{}
			for rows.Next() {
				var c, m, k int64
				if err := rows.Scan(&c, &m, &k); err != nil {
					rows.Close()
					return err
				}
				stored[[2]int64{c, m}] = k
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for i := range recs {
				ck := [2]int64{chatIDs[i], msgs[i]}
				if k, ok := stored[ck]; ok {
					keys[i] = k
					delete(stored, ck) // a repeat within the batch was held already
				}
			}
		}
		for i, id := range recallChats {
			q := `UPDATE messages SET recalled = true, text = '', grams = NULL WHERE chat = $1 AND msg = $2`
			if s.opts.KeepRecalled {
				q = `UPDATE messages SET recalled = true WHERE chat = $1 AND msg = $2`
			}
			if _, err := tx.Exec(ctx, q, id, recallIDs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

func (s *pgStore) setName(ctx context.Context, c Chat, name string) error {
	id, err := s.chatID(ctx, s.rowKey(c))
	if err != nil {
		return s.fail(err)
	}
	_, err = s.pool.Exec(ctx, `UPDATE chats SET name = $1 WHERE id = $2 AND name != $1`, name, id)
	return s.fail(err)
}

const pgMessageColumns = `m.id, m.msg, c.grp, c.peer, c.bot, m.uid, m.sender, m.text, m.reply, m.recalled, m.own`

func (s *pgStore) scanMessages(rows pgx.Rows) ([]Message, error) {
	defer rows.Close()
	return s.messages(rows, s.localBot)
}

// readable returns the chat ids the allowlists let a reader see, and
// whether every chat is readable (then ids is nil).
func (s *pgStore) readable(ctx context.Context) ([]int64, bool, error) {
	if s.opts.Allowed == nil {
		return nil, true, nil
	}
	if err := s.loadChats(ctx); err != nil { // chats other servers added
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := []int64{}
	all := true
	for c, id := range s.chats {
		if s.opts.Allowed(c.Group, c.ID) {
			ids = append(ids, id)
		} else {
			all = false
		}
	}
	if all {
		return nil, true, nil
	}
	return ids, false, nil
}

// probeRows is how many of the newest candidate messages (those the
// filters other than the words keep) search reads first, in key order.
const probeRows = 5000

// search runs in two steps, because one plan cannot serve both kinds of
// words. The probe reads the newest probeRows candidates backwards by key
// and keeps those the words match: a common word (明天, 会) fills a page
// from a few hundred rows, where the GIN index would fetch and sort every
// one of its tens of thousands of hits. When the probe does not fill the
// page, the words are rare among the newest, and the GIN index finds them
// (the index walk by key is turned off for that query: it would read the
// whole table for a word that is not there).
func (s *pgStore) search(ctx context.Context, q Query) ([]Message, string, error) {
	if e := s.Err(); e != nil {
		return nil, "", e
	}
	match := tsqueryOf(q.Text, q.Any)
	if match == "" {
		return nil, "", ErrEmptyQuery
	}
	limit := searchLimit(q.Limit)
	args := []any{match}
	arg := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	var where []string // on the messages alone, %[1]s their table's prefix
	if q.Cursor != "" {
		k, err := cursorKey(q.Cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, `%[1]sid < `+arg(k))
	}
	if !q.Since.IsZero() {
		where = append(where, `%[1]sid >= `+arg(keyOf(q.Since.Unix())))
	}
	if !q.Until.IsZero() {
		where = append(where, `%[1]sid < `+arg(keyOf(q.Until.Unix()+1)))
	}
	if q.Chat != nil {
		if !s.Readable(*q.Chat) {
			return nil, "", nil
		}
		// The group's or friend's chats of every bot, or of q.Bot's.
		bot := int64(-1)
		if q.Bot != nil {
			bot = s.selfOf(*q.Bot)
		}
		var ids []int64
		rows, err := s.pool.Query(ctx, `SELECT id FROM chats WHERE grp = $1 AND peer = $2 AND ($3 < 0 OR bot = $3)`, q.Chat.Group, q.Chat.ID, bot)
		if err == nil {
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		if err != nil {
			return nil, "", s.fail(err)
		}
		if len(ids) == 0 {
			return nil, "", nil
		}
		where = append(where, `%[1]schat = ANY(`+arg(ids)+`)`)
	}
	ids, all, err := s.readable(ctx)
	if err != nil {
		return nil, "", s.fail(err)
	}
	if !all {
		where = append(where, `%[1]schat = ANY(`+arg(ids)+`)`)
	}
	outer := ` WHERE m.grams @@ $1::tsquery`
	if q.Bot != nil {
		outer += ` AND c.bot = ` + arg(s.selfOf(*q.Bot))
	}
	if q.UserID != 0 {
		u := arg(q.UserID)
		outer += ` AND (m.uid = ` + u + ` OR (NOT c.grp AND c.peer = ` + u + `))`
	}
	cond := ""
	if len(where) > 0 {
		cond = fmt.Sprintf(` WHERE `+strings.Join(where, ` AND `), "")
	}
	tail := ` ORDER BY m.id DESC LIMIT ` + arg(limit+1)
	probe := `SELECT ` + pgMessageColumns + ` FROM (SELECT * FROM messages` + cond + ` ORDER BY id DESC LIMIT ` + strconv.Itoa(probeRows) +
		`) m JOIN chats c ON c.id = m.chat` + outer + tail
	rows, err := s.pool.Query(ctx, probe, args...)
	if err != nil {
		return nil, "", s.fail(err)
	}
	msgs, err := s.scanMessages(rows)
	if err != nil {
		return nil, "", s.fail(err)
	}
	if len(msgs) <= limit {
		and := ""
		for _, w := range where {
			and += fmt.Sprintf(` AND `+w, "m.")
		}
		full := `SELECT ` + pgMessageColumns + ` FROM messages m JOIN chats c ON c.id = m.chat` + outer + and + tail
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SET LOCAL enable_indexscan = off`); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, full, args...)
			if err != nil {
				return err
			}
			msgs, err = s.scanMessages(rows)
			return err
		})
		if err != nil {
			return nil, "", s.fail(err)
		}
	}
	msgs, next := pageOf(msgs, limit)
	return msgs, next, nil
}

func (s *pgStore) keyIn(ctx context.Context, chat, msg int64) (int64, error) {
	var k int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM messages WHERE chat = $1 AND msg = $2`, chat, msg).Scan(&k)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrNoMessage
	}
	return k, err
}

func (s *pgStore) page(ctx context.Context, chat, lo, hi int64, newest bool, n int) ([]Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+pgMessageColumns+` FROM messages m JOIN chats c ON c.id = m.chat
		WHERE m.chat = $1 AND m.id > $2 AND m.id < $3 ORDER BY m.id `+direction(newest)+` LIMIT $4`, chat, lo, hi, n)
	if err != nil {
		return nil, err
	}
	return s.scanMessages(rows)
}

func (s *pgStore) beyond(ctx context.Context, chat, first, last int64) (before, after bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE chat = $1 AND id < $2), EXISTS (SELECT 1 FROM messages WHERE chat = $1 AND id > $3)`,
		chat, first, last).Scan(&before, &after)
	return before, after, err
}

func (s *pgStore) gaps(ctx context.Context, chat, lo, hi int64) ([]Gap, error) {
	rows, err := s.pool.Query(ctx, `SELECT after_key, before_key FROM gaps WHERE chat = $1 AND before_key >= $2 AND after_key <= $3 ORDER BY after_key`, chat, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return s.gapRows(rows)
}

func (s *pgStore) chatRows(ctx context.Context) ([]chatRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.grp, c.peer, c.bot, c.name,
		(SELECT max(id) FROM messages WHERE chat = c.id),
		(SELECT count(*) FROM (SELECT 1 FROM messages WHERE chat = c.id AND id > coalesce(k.read_key, 0) AND NOT own LIMIT $2) u),
		(SELECT count(*) FROM messages WHERE chat = c.id)
		FROM chats c LEFT JOIN marks k ON k.chat = c.id AND k.reader = $1`, s.reader, maxUnreadCounts)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []chatRow
	for rows.Next() {
		var r chatRow
		var top *int64
		if err := rows.Scan(&r.chat.Group, &r.chat.ID, &r.chat.Bot, &r.name, &top, &r.unread, &r.messages); err != nil {
			return nil, err
		}
		if r.chat.Bot = s.localBot(r.chat.Bot); !s.ownBot(r.chat.Bot) {
			continue
		}
		if top != nil {
			r.newest = *top
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *pgStore) markRead(ctx context.Context, chat Chat, msg int64) (int64, error) {
	id, ok := s.lookup(chat)
	if !ok {
		return 0, ErrNoChat
	}
	var left int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		var k *int64
		var err error
		if msg != 0 {
			err = tx.QueryRow(ctx, `SELECT id FROM messages WHERE chat = $1 AND msg = $2`, id, msg).Scan(&k)
			if errors.Is(err, pgx.ErrNoRows) {
				return ErrNoMessage
			}
		} else {
			err = tx.QueryRow(ctx, `SELECT max(id) FROM messages WHERE chat = $1`, id).Scan(&k)
		}
		if err != nil {
			return err
		}
		var key int64
		if k != nil {
			key = *k
		}
		if _, err := tx.Exec(ctx, `INSERT INTO marks (reader, chat, read_key, pushed_key) VALUES ($1, $2, $3, (SELECT created_key FROM chats WHERE id = $2))
			ON CONFLICT (reader, chat) DO UPDATE SET read_key = excluded.read_key`, s.reader, id, key); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT count(*) FROM messages WHERE chat = $1 AND id > $2 AND NOT own`, id, key).Scan(&left)
	})
	if errors.Is(err, ErrNoMessage) {
		return 0, ErrNoMessage
	}
	return left, err
}

// pushedKey is the SQL of this reader's delivery mark of chat c (the
// chat's creation when the reader has none yet).
const pushedKey = `coalesce((SELECT pushed_key FROM marks WHERE reader = $1 AND chat = c.id), c.created_key)`

func (s *pgStore) pushMarks(ctx context.Context) ([]pushMark, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.id, c.grp, c.peer, c.bot, `+pushedKey+` FROM chats c`, s.reader)
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
		if m.chat.Bot = s.localBot(m.chat.Bot); s.ownBot(m.chat.Bot) {
			out = append(out, m)
		}
	}
	return out, rows.Err()
}

func (s *pgStore) unpushed(ctx context.Context, chat, pushed int64) (count, first int64, newest []Message, err error) {
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM messages WHERE chat = $1 AND id > $2 AND NOT own`, chat, pushed).Scan(&count); err != nil || count == 0 {
		return 0, 0, nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+pgMessageColumns+` FROM messages m JOIN chats c ON c.id = m.chat WHERE m.chat = $1 AND m.id > $2 AND NOT m.own ORDER BY m.id DESC LIMIT $3`, chat, pushed, CatchUpLines)
	if err != nil {
		return 0, 0, nil, err
	}
	if newest, err = s.scanMessages(rows); err != nil {
		return 0, 0, nil, err
	}
	err = s.pool.QueryRow(ctx, `SELECT msg FROM messages WHERE chat = $1 AND id > $2 AND NOT own ORDER BY id LIMIT 1`, chat, pushed).Scan(&first)
	return count, first, newest, err
}

// setPushed raises this reader's delivery mark of chat to at least key.
const setPushed = `INSERT INTO marks (reader, chat, pushed_key) VALUES ($1, $2, $3)
	ON CONFLICT (reader, chat) DO UPDATE SET pushed_key = greatest(marks.pushed_key, excluded.pushed_key)`

func (s *pgStore) delivered(ctx context.Context, u Undelivered) error {
	id, ok := s.lookup(u.Chat)
	if !ok {
		return nil
	}
	_, err := s.pool.Exec(ctx, setPushed, s.reader, id, u.top)
	return s.fail(err)
}

func (s *pgStore) pushed(ctx context.Context, chat Chat, first, msg int64) (held, behind bool, err error) {
	id, ok := s.lookup(chat)
	if !ok {
		return false, false, nil
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		var k, kf int64
		if err := tx.QueryRow(ctx, `SELECT id FROM messages WHERE chat = $1 AND msg = $2`, id, msg).Scan(&k); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			return err
		}
		held = true
		err := tx.QueryRow(ctx, `SELECT id FROM messages WHERE chat = $1 AND msg = $2`, id, first).Scan(&kf)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err == nil {
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM messages m JOIN chats c ON c.id = m.chat
				WHERE m.chat = $2 AND m.id > `+pushedKey+` AND m.id < $3 AND NOT m.own)`, s.reader, id, kf).Scan(&behind); err != nil {
				return err
			}
			if behind {
				return nil
			}
		}
		_, err = tx.Exec(ctx, setPushed, s.reader, id, k)
		return err
	})
	return held, behind, err
}

func (s *pgStore) newestBelow(ctx context.Context, chat, below int64) (int64, error) {
	var k *int64
	if err := s.pool.QueryRow(ctx, `SELECT max(id) FROM messages WHERE chat = $1 AND id < $2`, chat, below).Scan(&k); err != nil || k == nil {
		return 0, err
	}
	return *k, nil
}

func (s *pgStore) firstGap(ctx context.Context, chat int64) (int64, error) {
	var g *int64
	if err := s.pool.QueryRow(ctx, `SELECT min(after_key) FROM gaps WHERE chat = $1`, chat).Scan(&g); err != nil || g == nil {
		return 0, err
	}
	return *g, nil
}

func (s *pgStore) heldAmong(ctx context.Context, chat Chat, recs []Record, held int64) (bool, error) {
	if held == 0 {
		return false, nil
	}
	id, ok := s.lookup(chat)
	if !ok {
		return false, nil
	}
	ids := make([]int64, len(recs))
	for i, r := range recs {
		ids[i] = r.MessageID
	}
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE chat = $1 AND id <= $2 AND msg = ANY($3))`,
		id, held, ids).Scan(&found)
	if err != nil {
		return false, s.fail(err)
	}
	return found, nil
}

func (s *pgStore) messageAt(ctx context.Context, key int64) (int64, error) {
	var msg int64
	if err := s.pool.QueryRow(ctx, `SELECT msg FROM messages WHERE id = $1`, key).Scan(&msg); err != nil {
		return 0, s.fail(err)
	}
	return msg, nil
}

func (s *pgStore) addGap(ctx context.Context, chat Chat, after, before int64) error {
	id, err := s.chatID(ctx, s.rowKey(chat))
	if err != nil {
		return s.fail(err)
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO gaps (chat, after_key, before_key) VALUES ($1, $2, $3)`, id, after, before)
	return s.fail(err)
}

func (s *pgStore) closeGaps(ctx context.Context, chat Chat, lo, hi int64) error {
	id, ok := s.lookup(chat)
	if !ok || lo > hi {
		return nil
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM gaps WHERE chat = $1 AND after_key >= $2 AND before_key <= $3`, id, lo, hi); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE gaps SET before_key = $2 WHERE chat = $1 AND after_key < $2 AND before_key > $2 AND before_key <= $3`, id, lo, hi); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE gaps SET after_key = $3 WHERE chat = $1 AND after_key >= $2 AND after_key < $3 AND before_key > $3`, id, lo, hi)
		return err
	})
}

// liveBytes is what the archive's rows take (text and index tokens, as
// stored), the measure MaxBytes bounds on PostgreSQL: the files' sizes
// shrink only when the database's vacuum returns the space.
const liveBytes = `SELECT coalesce(sum(pg_column_size(m.*)), 0)::bigint, count(*) FROM messages m`

func (s *pgStore) summary(ctx context.Context) (Summary, error) {
	sum := Summary{Path: s.shown, SchemaVersion: PostgresSchemaVersion, Stats: s.Stats()}
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM chats), (SELECT count(*) FROM gaps)`).Scan(&sum.Chats, &sum.Gaps)
	if err != nil {
		return sum, err
	}
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM messages`).Scan(&sum.Messages); err != nil {
		return sum, err
	}
	if sum.Messages <= sampleAbove {
		err = s.pool.QueryRow(ctx, liveBytes).Scan(&sum.Bytes, &sum.Messages)
		return sum, err
	}
	// A large archive: the rows' bytes from a hundredth of its pages, so
	// that get_runtime_info does not read every row (0.7 s at a million).
	var avg *float64
	if err := s.pool.QueryRow(ctx, `SELECT avg(pg_column_size(m.*)) FROM messages m TABLESAMPLE SYSTEM (1)`).Scan(&avg); err != nil {
		return sum, err
	}
	if avg != nil {
		sum.Bytes = int64(*avg * float64(sum.Messages))
	}
	return sum, nil
}

// sampleAbove is the message count above which Summary estimates the
// rows' bytes from a sample.
const sampleAbove = 100_000

// check verifies that the schema is this build's and that the role holds
// every privilege the archive uses.
func (s *pgStore) check(ctx context.Context) error {
	var version int
	if err := s.pool.QueryRow(ctx, `SELECT version FROM snowluma_mcp_schema`).Scan(&version); err != nil {
		return s.fail(err)
	}
	if version != PostgresSchemaVersion {
		return &Error{s.shown, ProblemNewer, fmt.Sprintf("the archive has schema version %d; this build writes %d", version, PostgresSchemaVersion),
			"run the same snowluma-mcp version on every server that shares the database"}
	}
	var missing []string
	for _, t := range []string{"chats", "messages", "gaps", "marks"} {
		for _, p := range []string{"SELECT", "INSERT", "UPDATE", "DELETE"} {
			var ok bool
			if err := s.pool.QueryRow(ctx, `SELECT has_table_privilege($1, $2)`, t, p).Scan(&ok); err != nil {
				return s.fail(err)
			}
			if !ok {
				missing = append(missing, p+" on "+t)
			}
		}
	}
	var seq bool
	if err := s.pool.QueryRow(ctx, `SELECT has_sequence_privilege('message_seq', 'USAGE') AND has_sequence_privilege('chats_id_seq', 'USAGE') AND has_sequence_privilege('gaps_id_seq', 'USAGE')`).Scan(&seq); err != nil {
		return s.fail(err)
	}
	if !seq {
		missing = append(missing, "USAGE on the sequences")
	}
	if len(missing) > 0 {
		return &Error{s.shown, ProblemPrivilege, "the role lacks " + strings.Join(missing, ", "),
			"grant them (docs/archive.md gives the SQL for the archive's role)"}
	}
	return nil
}

// prune deletes what the retention no longer keeps. Of several servers,
// one prunes at a time: a pass that finds another running leaves it the
// work.
func (s *pgStore) prune(ctx context.Context) (int64, error) {
	var removed int64
	cut := keyOf(s.now().Add(-dayDuration(s.opts.Days)).Unix())
	err := s.write(ctx, func(tx pgx.Tx) error {
		var got bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(lockPrune)).Scan(&got); err != nil || !got {
			return err
		}
		n, err := pgDeleteBelow(ctx, tx, cut)
		removed += n
		if err != nil {
			return err
		}
		var size, count int64
		if err := tx.QueryRow(ctx, liveBytes).Scan(&size, &count); err != nil {
			return err
		}
		if size <= s.opts.MaxBytes || count == 0 {
			return nil
		}
		// The oldest share past the limit, and a hundredth more so that
		// the next messages do not make the next pass do it again.
		drop := int64(float64(count)*(1-float64(s.opts.MaxBytes)/float64(size))) + count/100 + 1
		var k *int64
		if err := tx.QueryRow(ctx, `SELECT id FROM messages ORDER BY id OFFSET $1 LIMIT 1`, drop).Scan(&k); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		below := int64(1 << 62)
		if k != nil {
			below = *k
		}
		n, err = pgDeleteBelow(ctx, tx, below)
		removed += n
		return err
	})
	return removed, err
}

func pgDeleteBelow(ctx context.Context, tx pgx.Tx, key int64) (int64, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM messages WHERE id < $1`, key)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM gaps WHERE before_key < $1`, key); err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
