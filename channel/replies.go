package channel

import (
	"context"
	"fmt"
	"time"
)

// Replies to messages the channel has not seen. With SnowLuma's default
// reportSelfMessage off, the bot's sends from elsewhere (the operator's
// phone, another tool) never reach the event feed, so the gate cannot know
// them; a mentions-mode reply to such a message is held while the server
// asks SnowLuma who sent it, and pushed when it was the bot. Answers are
// remembered (the gate's rings), and what waits is bounded.
const (
	// MaxLookups is how many replied-to messages are looked up at once; a
	// reply past it counts as not addressing the bot.
	MaxLookups = 4
	// MaxAwaiting is how many replies may wait for lookups in all.
	MaxAwaiting = 64
	// LookupTimeout bounds one lookup.
	LookupTimeout = 10 * time.Second
)

// A SenderLookup says who sent message id: the sender's QQ number, 0 when
// SnowLuma does not know the message (a lasting answer), or an error when
// it could not be asked (worth asking again later).
type SenderLookup func(ctx context.Context, messageID int64) (sender int64, err error)

// replies is the Channel's state of lookups, guarded by its mutex.
type replies struct {
	lookup  SenderLookup
	ctx     context.Context // ends the lookups with the session
	waiting map[int64][]waitingReply
	count   int // replies waiting, over all ids
}

// waitingReply is one reply held for a lookup, with the time it came.
type waitingReply struct {
	m  *Message
	at time.Time
}

// LookUpReplies makes the channel ask lookup about replies to messages it
// has not seen (see SenderLookup), until ctx ends. Without it such a reply
// does not address the bot.
func (c *Channel) LookUpReplies(ctx context.Context, lookup SenderLookup) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replies = replies{lookup: lookup, ctx: ctx, waiting: map[int64][]waitingReply{}}
}

// await holds m, a reply to message id, until a lookup says who sent id,
// and reports whether it did; it does not when no lookup is set or the
// bounds are reached. c.mu is held.
func (c *Channel) await(id int64, m *Message, now time.Time) bool {
	r := &c.replies
	if r.lookup == nil || r.ctx.Err() != nil || r.count >= MaxAwaiting {
		return false
	}
	if _, asked := r.waiting[id]; !asked {
		if len(r.waiting) >= MaxLookups {
			return false
		}
		c.stats.ReplyLookups++
		go c.resolve(id)
	}
	r.waiting[id] = append(r.waiting[id], waitingReply{m, now})
	r.count++
	return true
}

// resolve looks up who sent message id and releases the replies waiting
// for it: pushed when the bot sent it, else counted as not addressing it.
func (c *Channel) resolve(id int64) {
	c.mu.Lock()
	lookup, base := c.replies.lookup, c.replies.ctx
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(base, LookupTimeout)
	sender, err := lookup(ctx, id)
	cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.replies.waiting[id]
	delete(c.replies.waiting, id)
	c.replies.count -= len(held)
	switch {
	case err == nil && sender == c.gate.selfID:
		c.gate.NoteSent(id)
		for _, w := range held {
			c.burst.Add(w.m, w.at)
		}
		c.poke()
		return
	case err == nil:
		c.gate.NoteOther(id)
	default:
		fmt.Fprintf(c.log, "channel: could not ask SnowLuma who sent message %d, which %d repl(ies) answer: %v; not pushed\n", id, len(held), err)
	}
	c.stats.Filtered[ReasonNotMention] += int64(len(held))
}
