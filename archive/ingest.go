package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// A Record is one message as the archive keeps it.
type Record struct {
	// Bot is the account that received or sent the message (0 when not
	// known): a shared archive keys messages by bot, chat and id.
	Bot       int64
	Chat      Chat
	MessageID int64
	UserID    int64
	Sender    string
	Time      int64 // Unix seconds
	Text      string
	ReplyTo   int64
	Recalled  bool
	Own       bool
}

// parseMessage reads a message event (or a history entry, which is one
// without post_type) into a Record. chat, when not zero, is the chat the
// message belongs to (a history page's); otherwise the event names it. ok
// is false for anything that is not a message of a known chat.
func parseMessage(raw []byte, chat Chat, self int64) (Record, bool) {
	e, err := qqmsg.ParseEvent(raw)
	if err != nil || e.MessageID == 0 {
		return Record{}, false
	}
	switch e.PostType {
	case "", "message", "message_sent":
	default:
		return Record{}, false
	}
	if self == 0 {
		self = e.SelfID
	}
	if chat.ID == 0 {
		switch e.MessageType {
		case "group":
			chat = Chat{Group: true, ID: e.GroupID}
		case "private":
			// The bot's own private message names itself, not the person
			// it went to: only a send through this server places it.
			if e.UserID == self || e.PostType == "message_sent" {
				return Record{}, false
			}
			chat = Chat{ID: e.UserID}
		default:
			return Record{}, false
		}
	}
	if chat.ID <= 0 {
		return Record{}, false
	}
	r := qqmsg.Render(e.Segments, self)
	return Record{
		Bot: self, Chat: chat, MessageID: e.MessageID, UserID: e.UserID, Sender: e.Sender, Time: e.Time,
		Text: r.Text, ReplyTo: r.ReplyTo, Own: e.PostType == "message_sent" || (self != 0 && e.UserID == self),
	}, true
}

// recallNotice is the part of a recall notice the archive reads.
type recallNotice struct {
	PostType   string          `json:"post_type"`
	NoticeType string          `json:"notice_type"`
	GroupID    json.RawMessage `json:"group_id"`
	UserID     json.RawMessage `json:"user_id"`
	MessageID  json.RawMessage `json:"message_id"`
	SelfID     json.RawMessage `json:"self_id"`
}

// parseRecall reads a group_recall or friend_recall notice; the chat's Bot
// is the notice's self_id (0 when it has none).
func parseRecall(raw []byte) (Chat, int64, bool) {
	if !bytes.Contains(raw, []byte("_recall")) {
		return Chat{}, 0, false
	}
	var n recallNotice
	if json.Unmarshal(raw, &n) != nil || n.PostType != "notice" {
		return Chat{}, 0, false
	}
	id, ok := num(n.MessageID)
	if !ok || id == 0 {
		return Chat{}, 0, false
	}
	bot, _ := num(n.SelfID)
	switch n.NoticeType {
	case "group_recall":
		g, ok := num(n.GroupID)
		return Chat{Group: true, ID: g, Bot: bot}, id, ok && g > 0
	case "friend_recall":
		u, ok := num(n.UserID)
		return Chat{ID: u, Bot: bot}, id, ok && u > 0
	}
	return Chat{}, 0, false
}

func num(raw json.RawMessage) (int64, bool) {
	s := string(bytes.Trim(bytes.TrimSpace(raw), `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// A recallOf names a recalled message.
type recallOf struct {
	chat Chat
	id   int64
}

// parse reads the messages and recalls of archived chats among frames,
// the first bot's (further false: chats keyed 0) or a further bot's
// (chats keyed by each event's self_id, the account that received it).
func (s *Store) parse(frames [][]byte, further bool) ([]Record, []recallOf) {
	self := s.self()
	if further {
		self = 0 // each event's own self_id
	}
	var recs []Record
	var recalls []recallOf
	for _, raw := range frames {
		if r, ok := parseMessage(raw, Chat{}, self); ok {
			if further {
				if r.Bot == 0 {
					continue // a further bot's chat is keyed by its account
				}
				r.Chat.Bot = r.Bot
			}
			if s.Archived(r.Chat) {
				recs = append(recs, r)
			}
			continue
		}
		if c, id, ok := parseRecall(raw); ok && s.Archived(c) {
			if !further {
				c.Bot = 0
			} else if c.Bot == 0 {
				continue
			}
			recalls = append(recalls, recallOf{c, id})
		}
	}
	return recs, recalls
}

// Ingest stores the messages and recalls among frames, events as SnowLuma
// sends them on its WebSocket, in one transaction; anything else (and any
// chat that is not archived) is skipped. It returns how many new messages
// were stored.
func (s *Store) Ingest(ctx context.Context, frames [][]byte) (int, error) {
	recs, recalls := s.parse(frames, false)
	keys, err := s.ingest(ctx, recs, recalls)
	n := 0
	for _, k := range keys {
		if k != 0 {
			n++
		}
	}
	return n, err
}

// ingest stores recs and recalls in one transaction; keys[i] is the key
// recs[i] was stored under, 0 when it was held already.
func (s *Store) ingest(ctx context.Context, recs []Record, recalls []recallOf) ([]int64, error) {
	if len(recs) == 0 && len(recalls) == 0 {
		return nil, nil
	}
	keys, err := s.st.storeBatch(ctx, recs, recalls)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, k := range keys {
		if k != 0 {
			n++
		}
	}
	s.mu.Lock()
	s.stats.Ingested += int64(n)
	s.stats.Duplicates += int64(len(recs) - n)
	s.stats.Recalls += int64(len(recalls))
	if n > 0 {
		now := s.now()
		s.stats.LastIngest = now.UTC().Format(time.RFC3339)
		if last := recs[len(recs)-1].Time; last > 0 {
			s.stats.LagMS = max(0, now.UnixMilli()-last*1000)
		}
	}
	s.mu.Unlock()
	if err := s.pushedEarly(ctx, recs); err != nil {
		return keys, err
	}
	return keys, nil
}

// errNoChat is the refusal of a read naming a chat the archive does not
// hold.
var errNoChat = errors.New("archive: no such chat")

func describe(c Chat) string { return fmt.Sprint(c) }
