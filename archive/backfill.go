package archive

import (
	"context"
	"encoding/json"
	"fmt"
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
	feed := s.feedOf(chat.Bot)
	if feed != nil {
		var err error
		if first, err = feed.FirstOf(ctx, chat); err != nil {
			return res, err
		}
	}
	held, target, err := s.reach(ctx, chat, first)
	if err != nil {
		return res, err
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
	self := s.selfOf(chat.Bot)
	var anchor, oldest int64
	// passed: a page has reached the connection's first message of the
	// chat; the pages before held only what the feed stores itself.
	passed := false
	for res.Pages < MaxPages {
		page, err := f.History(ctx, chat, anchor, PageSize)
		if err != nil {
			if res.Pages > 0 && held != 0 && oldest != 0 && uncertain(oldest) > held {
				s.st.closeGaps(ctx, chat, oldest, newest)
				s.st.addGap(ctx, chat, held, uncertain(oldest))
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
			firstMsg, err := s.st.messageAt(ctx, first)
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
		met, err := s.st.heldAmong(ctx, chat, all, target)
		if err != nil {
			return res, err
		}
		keys, err := s.st.storeBatch(ctx, recs, nil)
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
		if err := s.st.closeGaps(ctx, chat, lo, newest); err != nil {
			return res, err
		}
	}
	if !res.Met && held != 0 && oldest != 0 && uncertain(oldest) > held {
		if err := s.st.addGap(ctx, chat, held, uncertain(oldest)); err != nil {
			return res, err
		}
		res.Gap = true
	}
	return res, nil
}

// Gaps counts the gap markers of chat.
func (s *Store) Gaps(ctx context.Context, chat Chat) ([]Gap, error) {
	id, ok := s.lookup(chat)
	if !ok {
		return nil, nil
	}
	g, err := s.st.gaps(ctx, id, 0, 1<<62)
	return g, s.fail(err)
}

func dayDuration(days int) time.Duration { return time.Duration(days) * 24 * time.Hour }
