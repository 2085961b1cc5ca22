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
// meets what the archive held before the event connection's first message
// of the chat (and, past it, the oldest open gap marker), or SnowLuma has no
// more. It removes the gap markers its pages cover. When the chat held
// messages and the pages could not reach them, it records a gap marker
// from the newest of them to the oldest fetched, or to the connection's
// first message when that is older: what the connection delivered is
// complete.
func (s *Store) Backfill(ctx context.Context, f Fetcher, chat Chat) (BackfillResult, error) {
	res := BackfillResult{Chat: chat}
	if !s.Archived(chat) {
		return res, nil
	}
	if e := s.Err(); e != nil {
		return res, e
	}
	// What the chat held before the event connection's first message of
	// it: only those can close the gap (what the connection delivered is
	// complete, the feed loses nothing).
	var first int64
	s.mu.Lock()
	feed := s.feed
	s.mu.Unlock()
	if feed != nil {
		var err error
		if first, err = feed.FirstOf(ctx, chat); err != nil {
			return res, err
		}
	}
	var held int64
	if id, ok := s.lookup(chat); ok {
		var k sql.NullInt64
		q, args := `SELECT max(id) FROM messages WHERE chat = ?`, []any{id}
		if first != 0 {
			q, args = q+` AND id < ?`, append(args, first)
		}
		if err := s.db.QueryRowContext(ctx, q, args...).Scan(&k); err != nil {
			return res, s.fail(err)
		}
		held = k.Int64
	}
	// The pages go down to held, or further while older gap markers are
	// open, so that a history that now reaches further closes them.
	target := held
	if id, ok := s.lookup(chat); ok && held != 0 {
		var k sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT min(after_key) FROM gaps WHERE chat = ?`, id).Scan(&k); err != nil {
			return res, s.fail(err)
		}
		if k.Valid && k.Int64 < target {
			target = k.Int64
		}
	}
	// newest is the key of the newest message fetched: the pages cover
	// the chat from oldest to it without a hole.
	var newest int64
	// uncertain is where a hole may be: from held to the oldest fetched,
	// or to the connection's first message when that is older.
	uncertain := func(oldest int64) int64 {
		if first != 0 && first < oldest {
			return first
		}
		return oldest
	}
	self := s.self()
	var anchor, oldest int64
	// passed: a page has reached the connection's first message of the
	// chat; the pages before held only what the feed stores itself.
	passed := false
	for res.Pages < MaxPages {
		page, err := f.History(ctx, chat, anchor, PageSize)
		if err != nil {
			if res.Pages > 0 && held != 0 && oldest != 0 && uncertain(oldest) > held {
				s.closeGaps(ctx, chat, oldest, newest)
				s.addGap(ctx, chat, held, uncertain(oldest))
				res.Gap = true
			}
			return res, fmt.Errorf("backfill of %s: %w", chat, err)
		}
		if feed != nil {
			// What the connection brought by now is stored first; and
			// what it delivers from its first message of the chat on is
			// the feed's to store, in the order it came: a page never
			// stores a message ahead of an older one still on its way.
			if err := feed.Sync(ctx); err != nil {
				return res, err
			}
			if first, err = feed.FirstOf(ctx, chat); err != nil {
				return res, err
			}
		}
		res.Pages++
		var all []Record
		for _, raw := range page {
			r, ok := parseMessage(raw, chat, self)
			if !ok || (anchor != 0 && r.MessageID == anchor) {
				continue // the anchor repeats at the end of the next page
			}
			all = append(all, r)
		}
		recs := all
		if first != 0 && !passed {
			firstMsg, err := s.messageAt(ctx, first)
			if err != nil {
				return res, err
			}
			recs = nil
			for i, r := range all {
				if r.MessageID == firstMsg {
					recs, passed = all[:i], true
				}
			}
		}
		if len(all) == 0 {
			res.Exhausted = true
			break
		}
		met, err := s.heldAmong(ctx, chat, all, target)
		if err != nil {
			return res, err
		}
		var keys []int64
		err = s.write(ctx, func(tx *sql.Tx) error {
			var err error
			keys, err = s.insert(ctx, tx, recs)
			return err
		})
		if err != nil {
			return res, err
		}
		for _, k := range keys {
			if k != 0 {
				res.Added++
			}
		}
		if newest == 0 {
			for i := len(all) - 1; i >= 0 && newest == 0; i-- {
				if k, err := s.keyOfMessage(ctx, chat, all[i].MessageID); err == nil {
					newest = k
				}
			}
		}
		anchor = all[0].MessageID
		if k, err := s.keyOfMessage(ctx, chat, anchor); err == nil {
			oldest = k
		}
		if met {
			res.Met = true
			break
		}
	}
	s.mu.Lock()
	s.stats.Backfilled += int64(res.Added)
	s.mu.Unlock()
	// The pages close whatever gap they cover: down to held when they
	// met it, else down to the oldest fetched.
	lo := oldest
	if res.Met {
		lo = target
	}
	if newest != 0 && lo != 0 {
		if err := s.closeGaps(ctx, chat, lo, newest); err != nil {
			return res, err
		}
	}
	if !res.Met && held != 0 && oldest != 0 && uncertain(oldest) > held {
		if err := s.addGap(ctx, chat, held, uncertain(oldest)); err != nil {
			return res, err
		}
		res.Gap = true
	}
	return res, nil
}

// closeGaps removes the gap markers of chat that the keys [lo, hi], a
// stretch now held without a hole, cover, and shortens those it covers in
// part.
func (s *Store) closeGaps(ctx context.Context, chat Chat, lo, hi int64) error {
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

// messageAt is the message id stored under key.
func (s *Store) messageAt(ctx context.Context, key int64) (int64, error) {
	var msg int64
	if err := s.db.QueryRowContext(ctx, `SELECT msg FROM messages WHERE id = ?`, key).Scan(&msg); err != nil {
		return 0, s.fail(err)
	}
	return msg, nil
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
