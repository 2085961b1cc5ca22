package archive

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Page sizes of the readers.
const (
	MaxSearch       = 100
	DefaultSearch   = 20
	MaxRead         = 200
	DefaultRead     = 50
	CatchUpLines    = 3
	maxUnreadCounts = 100000 // counted exactly up to this, then shown as this
)

// Message is one archived message as a reader gets it.
type Message struct {
	MessageID int64 `json:"message_id"`
	// Chat is "group:<id>" or "private:<id>", as the channel names chats.
	Chat     string `json:"chat"`
	GroupID  int64  `json:"group_id,omitempty"`
	UserID   int64  `json:"user_id"`
	Sender   string `json:"sender"`
	Time     string `json:"time"`
	Text     string `json:"text"`
	ReplyTo  int64  `json:"reply_to,omitempty"`
	Recalled bool   `json:"recalled,omitempty"`
	Own      bool   `json:"own,omitempty"`
	// Bot names the bot that received or sent it, when several share the
	// archive (Options.BotLabel).
	Bot string `json:"bot,omitempty"`

	key int64
}

// Gap is a stretch of a chat whose messages may be missing.
type Gap struct {
	From  string `json:"from"`
	Until string `json:"until"`
	Note  string `json:"note"`
}

// ChatKey names c as Message.Chat does.
func ChatKey(c Chat) string {
	if c.Group {
		return "group:" + strconv.FormatInt(c.ID, 10)
	}
	return "private:" + strconv.FormatInt(c.ID, 10)
}

func rfc3339(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

// stamp is a time as readers get it: RFC 3339 with the operator's offset
// (Options.Location).
func (s *Store) stamp(unix int64) string {
	if s.opts.Location == nil {
		return rfc3339(unix)
	}
	return time.Unix(unix, 0).In(s.opts.Location).Format(time.RFC3339)
}

// Query is a search.
type Query struct {
	Text string
	// Chat, when set, limits the search to one group or friend: the chats
	// of it that every bot keeps (its Bot is not read), or Bot's alone.
	Chat *Chat
	// Bot, when set, limits the search to the chats of one bot (a
	// Chat.Bot key).
	Bot *int64
	// UserID, when set, keeps messages sent by that user and those of
	// the private chat with them.
	UserID       int64
	Since, Until time.Time
	Limit        int
	Cursor       string
	// Any finds messages holding any of the words instead of all; a query
	// whose words are joined by OR (or |) asks for it too.
	Any bool
}

// Found is a page of search results.
type Found struct {
	Messages []Message
	// Next is the cursor of the following page, "" after the last.
	Next string
	// Any is true when the page holds messages with any of the words:
	// asked for, or because no message held them all (Widened).
	Any, Widened bool
}

// anyCursor marks a cursor of an any-word search, so that its next page
// stays one.
const anyCursor = "~"

// splitAny removes the OR and | that join a query's words, and reports
// whether there were any.
func splitAny(text string) (string, bool) {
	fields := strings.Fields(text)
	kept := fields[:0]
	for _, f := range fields {
		if f == "OR" || f == "|" || f == "｜" {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " "), len(kept) < len(fields)
}

// Find searches as Search does, and, when the first page of an all-words
// search finds nothing and the query has several words, returns the
// messages holding any of them, with Any set.
func (s *Store) Find(ctx context.Context, q Query) (Found, error) {
	text, asked := splitAny(q.Text)
	q.Text = text
	if c, ok := strings.CutPrefix(q.Cursor, anyCursor); ok {
		q.Cursor, asked = c, true
	}
	q.Any = q.Any || asked
	msgs, next, err := s.st.search(ctx, q)
	widened := false
	if err == nil && len(msgs) == 0 && !q.Any && q.Cursor == "" && len(matchParts(q.Text)) > 1 {
		q.Any, widened = true, true
		msgs, next, err = s.st.search(ctx, q)
	}
	f := Found{Messages: msgs, Next: next, Any: q.Any && len(matchParts(q.Text)) > 1, Widened: widened}
	if q.Any && next != "" {
		f.Next = anyCursor + next
	}
	return f, err
}

// ErrCursor is the refusal of a cursor this archive did not give.
var ErrCursor = errors.New("the cursor is not one search_messages returned")

// ErrEmptyQuery is the refusal of a query with nothing to search for.
var ErrEmptyQuery = errors.New("the query has no letters, digits or Chinese characters to search for")

// Search finds messages whose text holds every word of q.Text (any of
// them with q.Any), newest first; next is the cursor of the following
// page, "" after the last.
func (s *Store) Search(ctx context.Context, q Query) (msgs []Message, next string, err error) {
	return s.st.search(ctx, q)
}

// A Position anchors a read: a message id of the chat, or a time.
type Position struct {
	MessageID int64
	Time      time.Time
}

func (p *Position) set() bool { return p != nil && (p.MessageID != 0 || !p.Time.IsZero()) }

// Window is a stretch of one chat in time order.
type Window struct {
	Messages []Message `json:"messages"`
	Gaps     []Gap     `json:"gaps,omitempty"`
	// MoreBefore and MoreAfter say whether the chat holds messages
	// outside the window.
	MoreBefore bool `json:"more_before"`
	MoreAfter  bool `json:"more_after"`
}

// ErrNoMessage is the refusal of a position naming a message the chat does
// not hold.
var ErrNoMessage = errors.New("the archive holds no message with that id in this chat")

// ErrNoChat is the refusal of a read of a chat the archive does not hold.
var ErrNoChat = errNoChat

// ChatInfo is one archived chat in a listing.
type ChatInfo struct {
	Chat    string `json:"chat"`
	GroupID int64  `json:"group_id,omitempty"`
	UserID  int64  `json:"user_id,omitempty"`
	Name    string `json:"name,omitempty"`
	Newest  string `json:"newest,omitempty"`
	Unread  int64  `json:"unread"`
	// Messages counts what the archive holds of the chat.
	Messages int64 `json:"messages"`
	// Bot names the bot the chat is kept for, when several share the
	// archive (Options.BotLabel); BotKey is its Chat.Bot.
	Bot    string `json:"bot,omitempty"`
	BotKey int64  `json:"-"`
}

// Undelivered is what the channel has not pushed of one chat.
type Undelivered struct {
	Chat   Chat
	Count  int64
	Newest []Message // the newest CatchUpLines, oldest first
	First  int64     // the oldest undelivered message's id
	top    int64
}

// Pushed records that the channel pushed chat's messages up to message
// msg. It reports whether the chat had undelivered messages older than
// first (the push's oldest message), which a catch-up push must cover
// first; in that case nothing is recorded. A push of a message not stored
// yet (the channel and the archive read the same events in two loops, and
// the push can come first) is remembered and recorded when Ingest stores
// the message, so that no catch-up repeats it.
func (s *Store) Pushed(ctx context.Context, chat Chat, first, msg int64) (behind bool, err error) {
	held, behind, err := s.st.pushed(ctx, chat, first, msg)
	if err == nil && !held {
		s.mu.Lock()
		if s.early == nil || len(s.early) >= maxEarly {
			s.early = map[chatMessage]int64{} // a bound, not a queue: old ones are dropped
		}
		s.early[chatMessage{chat, msg}] = first
		s.mu.Unlock()
	}
	return behind, err
}

// maxEarly bounds the pushes remembered before their message is stored.
const maxEarly = 256

// chatMessage names one message of one chat.
type chatMessage struct {
	chat Chat
	msg  int64
}

// pushedEarly records the remembered pushes of recs, which Ingest has
// just stored.
func (s *Store) pushedEarly(ctx context.Context, recs []Record) error {
	type push struct {
		chatMessage
		first int64
	}
	var due []push // in the order of recs: an earlier push recorded first
	s.mu.Lock()
	for _, r := range recs {
		k := chatMessage{r.Chat, r.MessageID}
		if first, ok := s.early[k]; ok {
			delete(s.early, k)
			due = append(due, push{k, first})
		}
	}
	s.mu.Unlock()
	for _, p := range due {
		if _, _, err := s.st.pushed(ctx, p.chat, p.first, p.msg); err != nil {
			return err
		}
	}
	return nil
}

// Location is the zone readers' times are shown in (UTC when none was
// configured).
func (s *Store) Location() *time.Location {
	if s.opts.Location == nil {
		return time.UTC
	}
	return s.opts.Location
}

// localLayouts are the times a reader may give without an offset, read in
// the operator's zone.
var localLayouts = []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}

// ParseTime reads a reader's time: RFC 3339 with its offset, or a date
// and time without one (2026-12-03 09:40, 2026-12-03), read in the
// operator's zone.
func (s *Store) ParseTime(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	for _, l := range localLayouts {
		if t, err := time.ParseInLocation(l, v, s.Location()); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time such as 2026-12-03T09:40:00+08:00, or 2026-12-03 09:40 in the operator's zone", v)
}
