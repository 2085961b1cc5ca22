package archive

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Backfill's paging: SnowLuma answers at most 200 a page and shows a
// window of about a hundred messages per chat, so a few pages reach as
// far as it can.
const (
	PageSize = 100
	MaxPages = 50
)

// A Fetcher asks SnowLuma for a chat's history: the count messages up to
// and including anchor (the newest when anchor is 0), oldest first, as
// get_group_msg_history and get_friend_msg_history answer.
type Fetcher interface {
	History(ctx context.Context, chat Chat, anchor int64, count int) ([]json.RawMessage, error)
}

// BackfillResult says what one chat's backfill did.
type BackfillResult struct {
	Chat  Chat
	Pages int
	Added int
	// Met: the pages reached a message the archive held before, so the
	// chat has no hole. Exhausted: SnowLuma had nothing older.
	Met, Exhausted bool
	// Gap: a gap marker was recorded.
	Gap bool
}

// Backfill pages chat's history backwards from the newest message until it
// meets what the archive held when it started, or SnowLuma has no more.
// When the chat held messages and the pages could not reach them, it
// records a gap marker between the newest of them and the oldest fetched.
func (s *Store) Backfill(ctx context.Context, f Fetcher, chat Chat) (BackfillResult, error) {
	res := BackfillResult{Chat: chat}
	if !s.Archived(chat) {
		return res, nil
	}
	if e := s.Err(); e != nil {
		return res, e
	}
	// What the chat held before: only those can close the gap (messages
	// arriving on the event connection meanwhile are newer).
	var held int64
	if id, ok := s.lookup(chat); ok {
		var k sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT max(id) FROM messages WHERE chat = ?`, id).Scan(&k); err != nil {
			return res, s.fail(err)
		}
		held = k.Int64
	}
	self := s.self()
	var anchor, oldest int64
	for res.Pages < MaxPages {
		page, err := f.History(ctx, chat, anchor, PageSize)
		if err != nil {
			if res.Pages > 0 && held != 0 && oldest != 0 {
				s.addGap(ctx, chat, held, oldest)
				res.Gap = true
			}
			return res, fmt.Errorf("backfill of %s: %w", chat, err)
		}
		res.Pages++
		var recs []Record
		for _, raw := range page {
			r, ok := parseMessage(raw, chat, self)
			if !ok || (anchor != 0 && r.MessageID == anchor) {
				continue // the anchor repeats at the end of the next page
			}
			recs = append(recs, r)
		}
		if len(recs) == 0 {
			res.Exhausted = true
			break
		}
		met, err := s.heldAmong(ctx, chat, recs, held)
		if err != nil {
			return res, err
		}
		var n int
		err = s.write(ctx, func(tx *sql.Tx) error {
			var err error
			n, err = s.insert(ctx, tx, recs)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Added += n
		if met {
			res.Met = true
			break
		}
		anchor = recs[0].MessageID
		if k, err := s.keyOfMessage(ctx, chat, anchor); err == nil {
			oldest = k
		}
	}
	s.mu.Lock()
	s.stats.Backfilled += int64(res.Added)
	s.mu.Unlock()
	if !res.Met && held != 0 && oldest != 0 && oldest > held {
		if err := s.addGap(ctx, chat, held, oldest); err != nil {
			return res, err
		}
		res.Gap = true
	}
	return res, nil
}

// heldAmong reports whether the archive held one of recs at or before key
// held.
func (s *Store) heldAmong(ctx context.Context, chat Chat, recs []Record, held int64) (bool, error) {
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

func (s *Store) keyOfMessage(ctx context.Context, chat Chat, msg int64) (int64, error) {
	id, ok := s.lookup(chat)
	if !ok {
		return 0, errNoChat
	}
	var k int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM messages WHERE chat = ? AND msg = ?`, id, msg).Scan(&k)
	return k, err
}

// addGap records that chat's messages between the keys after and before
// may be missing.
func (s *Store) addGap(ctx context.Context, chat Chat, after, before int64) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		id, err := s.chatID(ctx, tx, chat)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO gaps (chat, after_key, before_key) VALUES (?, ?, ?)`, id, after, before)
		return err
	})
}

// Gaps counts the gap markers of chat.
func (s *Store) Gaps(ctx context.Context, chat Chat) ([]Gap, error) {
	id, ok := s.lookup(chat)
	if !ok {
		return nil, nil
	}
	g, err := s.gaps(ctx, id, 0, 1<<62)
	return g, s.fail(err)
}

// Prune applies the retention: messages older than Days, then the oldest
// until the file uses at most MaxBytes. It returns how many were removed.
func (s *Store) Prune(ctx context.Context) (int64, error) {
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
	s.mu.Lock()
	s.stats.Pruned += removed
	s.mu.Unlock()
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

func dayDuration(days int) time.Duration { return time.Duration(days) * 24 * time.Hour }
