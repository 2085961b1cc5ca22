package channel

import (
	"fmt"

	"github.com/snowluma/snowluma-mcp/internal/enum"
	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/safety"
)

// Mode says which messages the channel pushes.
type Mode string

const (
	// ModeOff pushes nothing and declares no channel (the default).
	ModeOff Mode = "off"
	// ModeMentions pushes a group message only when it mentions the bot
	// or replies to one of its messages; private messages of the listed
	// users always.
	ModeMentions Mode = "mentions"
	// ModeAll pushes every message of the listed groups and users.
	ModeAll Mode = "all"
)

// ParseMode reads a Mode; empty means ModeOff.
func ParseMode(s string) (Mode, error) {
	if m, ok := enum.Parse(s, ModeOff, ModeOff, ModeMentions, ModeAll); ok {
		return m, nil
	}
	return "", fmt.Errorf("%q is not a channel mode; use off, mentions or all", s)
}

// Config is the channel's configuration.
type Config struct {
	Mode Mode
	// Groups are the groups whose messages may be pushed; Users the
	// people whose private messages may be pushed. nil lists nothing:
	// unlike an allowlist, an unset channel list admits no one.
	Groups, Users safety.IDSet
	// Approvers may answer permission requests from their private chat.
	Approvers safety.IDSet
	// AllowGroups and AllowUsers are the server's target allowlists
	// (safety.Policy's Groups and Users; nil allows every id). Nothing
	// outside them is pushed, whatever the channel lists say.
	AllowGroups, AllowUsers safety.IDSet
}

// A Problem is an id in a channel list that the server's allowlists do
// not admit: Var names the channel variable (CHANNEL_GROUPS,
// CHANNEL_USERS or CHANNEL_APPROVERS, after the SNOWLUMA_MCP_ prefix) and
// Allow the allowlist (ALLOWED_GROUPS or ALLOWED_USERS).
type Problem struct {
	Var, Allow string
	ID         int64
}

// Outside lists the ids of the channel lists outside the allowlists. The
// channel stays inside them, so a configuration with such an id is
// refused at start rather than silently narrowed: an approver outside
// ALLOWED_USERS could not even be sent a prompt.
func (c Config) Outside() []Problem {
	var out []Problem
	for _, g := range c.Groups.Sorted() {
		if !c.AllowGroups.Allows(g) {
			out = append(out, Problem{"CHANNEL_GROUPS", "ALLOWED_GROUPS", g})
		}
	}
	for _, u := range c.Users.Sorted() {
		if !c.AllowUsers.Allows(u) {
			out = append(out, Problem{"CHANNEL_USERS", "ALLOWED_USERS", u})
		}
	}
	for _, u := range c.Approvers.Sorted() {
		if !c.AllowUsers.Allows(u) {
			out = append(out, Problem{"CHANNEL_APPROVERS", "ALLOWED_USERS", u})
		}
	}
	return out
}

// Empty reports a channel that is on but lists no group and no user, and
// so pushes nothing.
func (c Config) Empty() bool {
	return c.Mode != ModeOff && len(c.Groups) == 0 && len(c.Users) == 0
}

// A Decision is the gate's answer for one event.
type Decision struct {
	Push bool
	// Reason names why an event is not pushed, for the counters: one of
	// the Reason constants.
	Reason string
	// Rendered is the message as text, set when Push is true or Lookup
	// is not 0.
	Rendered qqmsg.Rendered
	// Lookup is set on a mentions-mode group message that replies to a
	// message the gate has never seen: the message id to ask SnowLuma
	// about. When the bot sent it (from its phone, another tool), the
	// reply addresses the bot after all.
	Lookup int64
}

// Why an event is not pushed.
const (
	ReasonNotMessage  = "not_message"   // a meta event, notice, request or unknown post type
	ReasonOwn         = "own_message"   // message_sent, or the bot's account as sender
	ReasonOtherSelf   = "other_account" // self_id is not the followed account
	ReasonNotListed   = "not_listed"    // group or user not in the channel lists
	ReasonNotAllowed  = "not_allowed"   // outside the server's allowlists
	ReasonNotMention  = "not_mentioned" // mentions mode, a group message that does not address the bot
	ReasonUnreadable  = "unreadable"    // not a JSON object, or a message without ids
	ReasonRateLimited = "rate_limited"  // dropped by the rate cap
	ReasonVerdict     = "verdict"       // an approver's verdict, never pushed
	ReasonOff         = "channel_off"   // the channel is off
)

// Gate decides, before anything reaches a model, whether an event is
// pushed. It is not safe for concurrent use; the Channel serialises it.
type Gate struct {
	cfg    Config
	selfID int64
	// sent remembers the bot's own recent message ids, so that a reply to
	// one counts as addressing the bot in mentions mode; others the ids
	// looked up and found to be someone else's.
	sent, others *idRing
}

// NewGate returns a gate for the account selfID.
func NewGate(cfg Config, selfID int64) *Gate {
	return &Gate{cfg: cfg, selfID: selfID, sent: newIDRing(SentMemory), others: newIDRing(SentMemory)}
}

// NoteOther records a message id found not to be the bot's, so that
// replies to it are not looked up again.
func (g *Gate) NoteOther(id int64) {
	if id != 0 {
		g.others.add(id)
	}
}

// SentMemory is how many of the bot's own message ids the gate remembers
// for replies in mentions mode.
const SentMemory = 1024

// NoteSent records a message id the bot sent (a send's answer, or a
// message_sent event), so that replies to it address the bot.
func (g *Gate) NoteSent(id int64) {
	if id != 0 {
		g.sent.add(id)
	}
}

// Decide applies the gate to one parsed event.
func (g *Gate) Decide(e *qqmsg.Event) Decision {
	switch {
	case g.cfg.Mode != ModeMentions && g.cfg.Mode != ModeAll:
		return Decision{Reason: ReasonOff}
	case e.PostType == "message_sent":
		g.NoteSent(e.MessageID)
		return Decision{Reason: ReasonOwn}
	case e.PostType != "message":
		return Decision{Reason: ReasonNotMessage}
	case e.SelfID != g.selfID:
		return Decision{Reason: ReasonOtherSelf}
	case e.UserID == g.selfID:
		g.NoteSent(e.MessageID)
		return Decision{Reason: ReasonOwn}
	case e.UserID <= 0 || e.MessageID == 0:
		return Decision{Reason: ReasonUnreadable}
	}
	// Someone else's message: a reply to it needs no lookup.
	g.NoteOther(e.MessageID)
	switch e.MessageType {
	case "group":
		if e.GroupID <= 0 {
			return Decision{Reason: ReasonUnreadable}
		}
		if !listed(g.cfg.Groups, e.GroupID) {
			return Decision{Reason: ReasonNotListed}
		}
		if !g.cfg.AllowGroups.Allows(e.GroupID) || !g.cfg.AllowUsers.Allows(e.UserID) {
			return Decision{Reason: ReasonNotAllowed}
		}
		r := qqmsg.Render(e.Segments, g.selfID)
		if g.cfg.Mode == ModeMentions && !r.Mentioned && !(r.ReplyTo != 0 && g.sent.has(r.ReplyTo)) {
			d := Decision{Reason: ReasonNotMention}
			if r.ReplyTo != 0 && !g.others.has(r.ReplyTo) {
				d.Lookup, d.Rendered = r.ReplyTo, r
			}
			return d
		}
		return Decision{Push: true, Rendered: r}
	case "private":
		if !listed(g.cfg.Users, e.UserID) {
			return Decision{Reason: ReasonNotListed}
		}
		if !g.cfg.AllowUsers.Allows(e.UserID) {
			return Decision{Reason: ReasonNotAllowed}
		}
		return Decision{Push: true, Rendered: qqmsg.Render(e.Segments, g.selfID)}
	}
	return Decision{Reason: ReasonUnreadable}
}

// idRing is a bounded set of recent ids: adding past its size forgets the
// oldest.
type idRing struct {
	ids  []int64
	next int
	set  map[int64]int // id -> times held in ids
}

func newIDRing(n int) *idRing {
	return &idRing{ids: make([]int64, 0, n), set: make(map[int64]int, n)}
}

func (r *idRing) add(id int64) {
	if len(r.ids) < cap(r.ids) {
		r.ids = append(r.ids, id)
	} else {
		old := r.ids[r.next]
		if r.set[old]--; r.set[old] <= 0 {
			delete(r.set, old)
		}
		r.ids[r.next] = id
		r.next = (r.next + 1) % len(r.ids)
	}
	r.set[id]++
}

func (r *idRing) has(id int64) bool { return r.set[id] > 0 }

// listed reports whether a channel list names id. Unlike an allowlist, a
// nil list names no one.
func listed(s safety.IDSet, id int64) bool {
	return s != nil && s.Allows(id)
}
