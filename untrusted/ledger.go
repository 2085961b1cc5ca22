// Package untrusted knows what untrusted text a client connection has been
// handed and whether a write could carry it elsewhere.
//
// Text written by QQ users reaches a model through event reads, the QQ
// channel's pushes, history and message reads (and, as they land, archive
// and media reads). A message in one of those chats can ask the model to
// send what it read somewhere else: the exfiltration shown against other
// chat MCP servers. A Ledger records, per connection, which chats such
// text came from and the chat of each message id seen (ids only, never the
// text), starting from the Registry's record of what was read recently on
// any connection; ReadWrite reads a write as SnowLuma will run it (the
// catalog's effect model, messages parsed by qqmsg) and Judge decides
// whether it may run freely, must be confirmed by a person, or is refused;
// Neutralize, EscapeJSON and NeutralizeAnswer keep QQ users' text from
// forging the host's own markup. The package knows no MCP.
package untrusted

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/snowluma/snowluma-mcp/internal/enum"
)

// A Kind is what a Chat is.
type Kind uint8

const (
	// Group is a QQ group.
	Group Kind = iota + 1
	// Private is one person's private chat with the bot.
	Private
	// Unknown is text whose chat cannot be told (a merged forward, a list
	// of recent contacts): it arms the gate and frees no target.
	Unknown
)

// A Chat is one conversation whose text was read: a group, one person's
// private chat, or an unknown one (ID 0).
type Chat struct {
	Kind Kind
	ID   int64
}

// GroupChat and PrivateChat name a chat; an id that is not positive names
// the unknown chat, which frees nothing.
func GroupChat(id int64) Chat {
	if id <= 0 {
		return Chat{Kind: Unknown}
	}
	return Chat{Group, id}
}

func PrivateChat(id int64) Chat {
	if id <= 0 {
		return Chat{Kind: Unknown}
	}
	return Chat{Private, id}
}

// UnknownChat is text from a chat that cannot be told.
var UnknownChat = Chat{Kind: Unknown}

// String names the chat for a refusal and the audit log: group:123,
// private:456 or unknown.
func (c Chat) String() string {
	switch c.Kind {
	case Group:
		return "group:" + strconv.FormatInt(c.ID, 10)
	case Private:
		return "private:" + strconv.FormatInt(c.ID, 10)
	}
	return "unknown"
}

// MaxChats is how many distinct chats a ledger lists. Past it the oldest
// is forgotten but the ledger stays armed (Overflow), so that the
// forgotten chat is not freed, only no longer named.
const MaxChats = 256

// MaxMessages is how many message ids a ledger remembers the chat of
// (the messages a reply or a forward may carry); the oldest go first.
const MaxMessages = 4096

// A Ledger is the chats whose untrusted text one connection was handed,
// and the chat of each message id it saw. It is safe for concurrent use;
// the zero value is an empty ledger.
type Ledger struct {
	mu       sync.Mutex
	chats    []Chat // oldest first
	overflow bool
	msgs     map[int64]Chat
	msgOrder []int64 // oldest first
	// reg, when set, is the registry that keeps a record of every note
	// beyond this connection (see Registry).
	reg *Registry
}

// Note records that text of these chats was handed to the model.
func (l *Ledger) Note(chats ...Chat) {
	if l == nil || len(chats) == 0 {
		return
	}
	l.note(chats)
	l.reg.remember(chats)
}

func (l *Ledger) note(chats []Chat) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range chats {
		if c.Kind == 0 {
			continue
		}
		if i := slices.Index(l.chats, c); i >= 0 {
			// The most recent read is kept last: the oldest goes first.
			l.chats = append(slices.Delete(l.chats, i, i+1), c)
			continue
		}
		if len(l.chats) >= MaxChats {
			l.chats = slices.Delete(l.chats, 0, 1)
			l.overflow = true
		}
		l.chats = append(l.chats, c)
	}
}

// NoteMessage records that message id, of chat c, was handed to the
// model (and so notes c).
func (l *Ledger) NoteMessage(id int64, c Chat) {
	if l == nil || id == 0 || c.Kind == 0 {
		return
	}
	l.Note(c)
	l.knowMessage(id, c)
}

// knowMessage records the chat of message id without noting the chat as
// read (the bot's own message, sent there).
func (l *Ledger) knowMessage(id int64, c Chat) {
	if l == nil || id == 0 || c.Kind == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.msgs == nil {
		l.msgs = map[int64]Chat{}
	}
	if _, ok := l.msgs[id]; !ok {
		if len(l.msgOrder) >= MaxMessages {
			delete(l.msgs, l.msgOrder[0])
			l.msgOrder = slices.Delete(l.msgOrder, 0, 1)
		}
		l.msgOrder = append(l.msgOrder, id)
	}
	l.msgs[id] = c
}

// MessageChat returns the chat of message id, if the ledger saw it.
func (l *Ledger) MessageChat(id int64) (Chat, bool) {
	if l == nil {
		return Chat{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.msgs[id]
	return c, ok
}

// Chats lists the chats read, oldest first.
func (l *Ledger) Chats() []Chat {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.chats)
}

// Read reports whether text of c was read. The unknown chat is never
// "read" in this sense: it names no target to free.
func (l *Ledger) Read(c Chat) bool {
	if l == nil || c.Kind == Unknown {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.chats, c)
}

// Armed reports whether any untrusted text was read at all.
func (l *Ledger) Armed() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.chats) > 0 || l.overflow
}

// Names joins chats for a sentence: "group:1, private:2".
func Names(chats []Chat) string {
	s := make([]string, len(chats))
	for i, c := range chats {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}

// Strings lists chats by name, for the audit log.
func Strings(chats []Chat) []string {
	if len(chats) == 0 {
		return nil
	}
	s := make([]string, len(chats))
	for i, c := range chats {
		s[i] = c.String()
	}
	return s
}

// A Mode is SNOWLUMA_MCP_UNTRUSTED_SENDS: what happens to a write that
// could carry untrusted text elsewhere.
type Mode string

const (
	// ModeConfirm asks a person (the default).
	ModeConfirm Mode = "confirm"
	// ModeRefuse refuses it with kind untrusted_context.
	ModeRefuse Mode = "refuse"
	// ModeOff lets it run: the behaviour before the gate.
	ModeOff Mode = "off"
)

// ParseMode reads a Mode; empty means ModeConfirm.
func ParseMode(s string) (Mode, error) {
	if m, ok := enum.Parse(s, ModeConfirm, ModeConfirm, ModeRefuse, ModeOff); ok {
		return m, nil
	}
	return "", fmt.Errorf("%q is not an untrusted-sends policy; use confirm, refuse or off", s)
}
