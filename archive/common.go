package archive

// This file is the logic the two stores share: the read window of one
// chat, the chat listing, the channel's catch-up, what a backfill must
// reach, messages, gap markers and chats as rows become them, and
// search's pages. It holds no SQL: each store answers the few questions
// asked here (storage's keyIn, page, beyond, gaps, chatRows, pushMarks,
// unpushed, newestBelow, firstGap) in its own dialect.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// keyAbove is above every message key: an open upper bound.
const keyAbove = 1 << 62

// rows is what both drivers' result rows offer (database/sql's and pgx's);
// closing them is the caller's.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// messages reads rows of a store's message columns (key, message id, the
// chat's grp, peer and bot, sender's id and name, text, reply, recalled,
// own) into Messages; botKey, when set, turns a row's bot into its
// Chat.Bot.
func (s *Store) messages(r rows, botKey func(int64) int64) ([]Message, error) {
	var out []Message
	for r.Next() {
		var m Message
		var grp bool
		var peer, bot int64
		if err := r.Scan(&m.key, &m.MessageID, &grp, &peer, &bot, &m.UserID, &m.Sender, &m.Text, &m.ReplyTo, &m.Recalled, &m.Own); err != nil {
			return nil, err
		}
		if botKey != nil {
			bot = botKey(bot)
		}
		m.Chat = ChatKey(Chat{Group: grp, ID: peer})
		m.Bot = s.label(bot)
		if grp {
			m.GroupID = peer
		}
		m.Time = s.stamp(timeOf(m.key))
		out = append(out, m)
	}
	return out, r.Err()
}

// gapRows reads rows of gap markers (after_key, before_key) into Gaps.
func (s *Store) gapRows(r rows) ([]Gap, error) {
	var out []Gap
	for r.Next() {
		var a, b int64
		if err := r.Scan(&a, &b); err != nil {
			return nil, err
		}
		g := Gap{From: s.stamp(timeOf(a)), Until: s.stamp(timeOf(b))}
		g.Note = fmt.Sprintf("messages between %s and %s may be missing: SnowLuma's history did not reach back that far", g.From, g.Until)
		out = append(out, g)
	}
	return out, r.Err()
}

// window reads up to limit messages of the chat whose id is chat, as Read
// describes, with whether it holds more on either side and the gap
// markers the window reaches (to the chat's ends when it holds nothing
// beyond).
func (s *Store) window(ctx context.Context, chat int64, before, after, around *Position, limit int) (Window, error) {
	if limit <= 0 {
		limit = DefaultRead
	}
	limit = min(limit, MaxRead)
	keyAt := func(p *Position) (int64, error) {
		if p.MessageID == 0 {
			return keyOf(p.Time.Unix()), nil
		}
		k, err := s.st.keyIn(ctx, chat, p.MessageID)
		if err != nil && !errors.Is(err, ErrNoMessage) {
			err = s.fail(err)
		}
		return k, err
	}
	// page reads up to n messages with keys strictly between lo and hi:
	// the newest n of them when newest, else the oldest; in time order.
	page := func(lo, hi int64, newest bool, n int) ([]Message, error) {
		ms, err := s.st.page(ctx, chat, lo, hi, newest, n)
		if err != nil {
			return nil, s.fail(err)
		}
		if newest {
			slices.Reverse(ms)
		}
		return ms, nil
	}
	var msgs []Message
	var err error
	switch {
	case around.set():
		var k int64
		if k, err = keyAt(around); err == nil {
			if msgs, err = page(-1, k, true, limit/2); err == nil {
				var newer []Message
				newer, err = page(k-1, keyAbove, false, limit-len(msgs))
				msgs = append(msgs, newer...)
			}
		}
	case after.set():
		var lo, hi int64 = 0, keyAbove
		if lo, err = keyAt(after); err == nil && before.set() {
			hi, err = keyAt(before)
		}
		if after.MessageID == 0 {
			lo-- // a time includes its own second
		}
		if err == nil {
			msgs, err = page(lo, hi, false, limit)
		}
	case before.set():
		var k int64
		if k, err = keyAt(before); err == nil {
			msgs, err = page(-1, k, true, limit)
		}
	default:
		msgs, err = page(-1, keyAbove, true, limit)
	}
	if err != nil {
		return Window{}, err
	}
	w := Window{Messages: msgs}
	if w.Messages == nil {
		w.Messages = []Message{}
	}
	if len(msgs) == 0 {
		return w, nil
	}
	first, last := msgs[0].key, msgs[len(msgs)-1].key
	if w.MoreBefore, w.MoreAfter, err = s.st.beyond(ctx, chat, first, last); err != nil {
		return Window{}, s.fail(err)
	}
	lo, hi := first, last
	if !w.MoreBefore {
		lo = 0
	}
	if !w.MoreAfter {
		hi = keyAbove - 1
	}
	if w.Gaps, err = s.st.gaps(ctx, chat, lo, hi); err != nil {
		return Window{}, s.fail(err)
	}
	return w, nil
}

// direction is the SQL order of a page: newest first, or oldest first.
func direction(newest bool) string {
	if newest {
		return "DESC"
	}
	return "ASC"
}

// A chatRow is one chat as a store lists it for Chats.
type chatRow struct {
	chat             Chat
	name             string
	newest           int64 // the newest message's key; 0 when it holds none
	unread, messages int64
}

// listChats lists the store's chats the allowlists let a reader see, the
// most recently active first; unreadOnly keeps those with unread
// messages.
func (s *Store) listChats(ctx context.Context, unreadOnly bool) ([]ChatInfo, error) {
	rs, err := s.st.chatRows(ctx)
	if err != nil {
		return nil, s.fail(err)
	}
	slices.SortStableFunc(rs, func(a, b chatRow) int { return cmp.Compare(b.newest, a.newest) })
	var out []ChatInfo
	for _, r := range rs {
		if !s.Readable(r.chat) || (unreadOnly && r.unread == 0) {
			continue
		}
		info := ChatInfo{Chat: ChatKey(r.chat), Name: r.name, Bot: s.label(r.chat.Bot), BotKey: r.chat.Bot, Unread: r.unread, Messages: r.messages}
		if r.chat.Group {
			info.GroupID = r.chat.ID
		} else {
			info.UserID = r.chat.ID
		}
		if r.newest != 0 {
			info.Newest = s.stamp(timeOf(r.newest))
		}
		out = append(out, info)
	}
	return out, nil
}

// A pushMark is a chat's delivery mark: the key of the newest message the
// channel pushed to this reader.
type pushMark struct {
	id     int64 // the chat's row
	chat   Chat
	pushed int64
}

// undelivered lists, for each chat keep selects, the messages others
// wrote that the channel has not pushed.
func (s *Store) undelivered(ctx context.Context, keep func(Chat) bool) ([]Undelivered, error) {
	marks, err := s.st.pushMarks(ctx)
	if err != nil {
		return nil, s.fail(err)
	}
	var out []Undelivered
	for _, m := range marks {
		if !keep(m.chat) {
			continue
		}
		u := Undelivered{Chat: m.chat}
		if u.Count, u.First, u.Newest, err = s.st.unpushed(ctx, m.id, m.pushed); err != nil {
			return nil, s.fail(err)
		}
		if u.Count == 0 || len(u.Newest) == 0 {
			continue
		}
		u.top = u.Newest[0].key
		slices.Reverse(u.Newest)
		out = append(out, u)
	}
	return out, nil
}

// searchLimit is a search's page size: DefaultSearch when n is not set,
// at most MaxSearch.
func searchLimit(n int) int {
	if n <= 0 {
		n = DefaultSearch
	}
	return min(n, MaxSearch)
}

// cursorKey reads a cursor that search gave: the key the next page starts
// below.
func cursorKey(cursor string) (int64, error) {
	k, err := strconv.ParseInt(cursor, 36, 64)
	if err != nil || k <= 0 {
		return 0, ErrCursor
	}
	return k, nil
}

// pageOf keeps a page of limit messages of msgs, newest first (a search
// asks for one more, to know whether a page follows), and the cursor of
// the next page, "" after the last.
func pageOf(msgs []Message, limit int) ([]Message, string) {
	if len(msgs) <= limit {
		return msgs, ""
	}
	msgs = msgs[:limit]
	return msgs, strconv.FormatInt(msgs[limit-1].key, 36)
}

// cacheChats caches the chat ids of rows of chats (id, bot, grp, peer).
func (s *Store) cacheChats(r rows) error {
	for r.Next() {
		var id, bot, peer int64
		var grp bool
		if err := r.Scan(&id, &bot, &grp, &peer); err != nil {
			return err
		}
		s.mu.Lock()
		s.chats[Chat{Group: grp, ID: peer, Bot: bot}] = id
		s.mu.Unlock()
	}
	return r.Err()
}

// keyOfMessage is the key of chat's message msg.
func (s *Store) keyOfMessage(ctx context.Context, chat Chat, msg int64) (int64, error) {
	id, ok := s.lookup(chat)
	if !ok {
		return 0, errNoChat
	}
	return s.st.keyIn(ctx, id, msg)
}

// reach returns what a backfill of chat must reach: held, the newest key
// held before first (the event connection's first message of the chat; 0
// when none came yet: the newest key held), and target, held or the
// oldest open gap marker's start when that is older.
func (s *Store) reach(ctx context.Context, chat Chat, first int64) (held, target int64, err error) {
	id, ok := s.lookup(chat)
	if !ok {
		return 0, 0, nil
	}
	if first == 0 {
		first = keyAbove
	}
	if held, err = s.st.newestBelow(ctx, id, first); err != nil || held == 0 {
		return 0, 0, s.fail(err)
	}
	g, err := s.st.firstGap(ctx, id)
	if err != nil {
		return 0, 0, s.fail(err)
	}
	if g != 0 && g < held {
		return held, g, nil
	}
	return held, held, nil
}
