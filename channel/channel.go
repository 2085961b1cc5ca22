// Package channel turns the bot's QQ messages into pushes for a host that
// reads them as a chat channel (Claude Code's channels), and approvers'
// private replies into verdicts on permission requests.
//
// Everything a push holds is decided here, before anything leaves the
// server: the gate admits only messages of the configured groups and
// people, inside the server's allowlists, never the bot's own and never
// meta events (and, in mentions mode, only group messages that address
// the bot); the message is rendered as plain text with short placeholders
// for what is not text, cleaned of invisible and control characters and
// capped; bursts are coalesced per chat and the push rate is capped, and
// what is dropped is counted. The package knows nothing of MCP: the
// server's adapter writes each Push and Verdict to the host.
package channel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// A Sink delivers the channel's output to the host.
type Sink interface {
	// Push sends one channel notification.
	Push(ctx context.Context, p Push) error
	// Verdict sends an approver's answer to a request.
	Verdict(ctx context.Context, v Verdict) error
}

// Stats are the channel's counters for the runtime overview; a zero
// counter is left out of its JSON.
type Stats struct {
	Mode Mode `json:"mode"`
	// Events counts the events offered to the channel.
	Events int64 `json:"events,omitempty"`
	// Pushes counts the notifications delivered; PushedMessages the
	// messages they held.
	Pushes         int64 `json:"pushes,omitempty"`
	PushedMessages int64 `json:"pushed_messages,omitempty"`
	// Coalesced counts messages that joined another message's push.
	Coalesced int64 `json:"coalesced,omitempty"`
	// Dropped counts admitted messages dropped by the caps (a full batch,
	// too many chats waiting).
	Dropped int64 `json:"dropped,omitempty"`
	// Lost counts events that left the event buffer before the channel
	// read them.
	Lost int64 `json:"lost,omitempty"`
	// Filtered counts the events the gate did not push, by reason.
	Filtered map[string]int64 `json:"filtered,omitempty"`
	// Waiting is the number of messages not yet pushed.
	Waiting int `json:"waiting,omitempty"`
	// PushFailures counts pushes the host could not be sent.
	PushFailures int64 `json:"push_failures,omitempty"`
	// Approvals: requests sent to approvers, verdicts delivered, verdicts
	// ignored (unknown or expired id), requests still answerable.
	ApprovalRequests int64 `json:"approval_requests,omitempty"`
	// ApprovalPrompts counts the prompts SnowLuma accepted for an
	// approver, whose message ids a quote-reply may name.
	ApprovalPrompts  int64 `json:"approval_prompts,omitempty"`
	Verdicts         int64 `json:"verdicts,omitempty"`
	IgnoredVerdicts  int64 `json:"ignored_verdicts,omitempty"`
	PendingApprovals int   `json:"pending_approvals,omitempty"`
	// ReplyLookups counts the replied-to messages looked up (get_msg) in
	// mentions mode.
	ReplyLookups int64 `json:"reply_lookups,omitempty"`
	// Connection says how the channel's event feed is doing.
	Connection string `json:"connection,omitempty"`
}

// A Channel is the gate, the coalescer and the approval relay of one
// account, and the loop that delivers their output. It is safe for
// concurrent use.
type Channel struct {
	log io.Writer

	mu       sync.Mutex
	cfg      Config
	gate     *Gate
	burst    *Burst
	relay    *Relay
	verdicts []Verdict
	waiters  map[string]chan Verdict // this server's own confirmations, by id
	stats    Stats
	wake     chan struct{}
	replies  replies // replies to messages the gate has not seen (replies.go)
}

// New returns a channel for the account selfID. Notes (an ignored
// verdict, a failed push) go to log, one line each; nil discards them.
func New(cfg Config, selfID int64, log io.Writer) *Channel {
	if log == nil {
		log = io.Discard
	}
	return &Channel{
		log:     log,
		cfg:     cfg,
		gate:    NewGate(cfg, selfID),
		burst:   NewBurst(),
		relay:   NewRelay(cfg.Approvers.Sorted()),
		stats:   Stats{Mode: cfg.Mode, Filtered: map[string]int64{}},
		waiters: map[string]chan Verdict{},
		wake:    make(chan struct{}, 1),
	}
}

// Approvals reports whether approvers are configured, so that the host
// may relay permission requests.
func (c *Channel) Approvals() bool { return len(c.cfg.Approvers) > 0 }

// Approvers lists the approvers' QQ numbers in ascending order.
func (c *Channel) Approvers() []int64 { return c.cfg.Approvers.Sorted() }

func (c *Channel) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Offer hands one event, as SnowLuma sent it, to the channel at now. An
// approver's verdict is queued for delivery at once; an admitted message
// joins its chat's batch.
func (c *Channel) Offer(raw []byte, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Events++
	e, err := qqmsg.ParseEvent(raw)
	if err != nil {
		c.stats.Filtered[ReasonUnreadable]++
		return
	}
	if e.PostType == "message" && e.MessageType == "private" && e.SelfID == c.gate.selfID && e.UserID != c.gate.selfID {
		text, quotes := verdictText(e.Segments, c.gate.selfID)
		v, consumed, note := c.relay.Answer(e.UserID, text, quotes, now)
		if consumed {
			c.stats.Filtered[ReasonVerdict]++
			if v == nil {
				c.stats.IgnoredVerdicts++
				fmt.Fprintln(c.log, note)
				return
			}
			if w, ok := c.waiters[v.Request.ID]; ok && v.Request.Own {
				w <- *v // buffered for one; the id answers once
				c.stats.Verdicts++
				return
			}
			c.verdicts = append(c.verdicts, *v)
			c.poke()
			return
		}
	}
	d := c.gate.Decide(e)
	m := &Message{MessageType: e.MessageType, GroupID: e.GroupID, UserID: e.UserID, MessageID: e.MessageID,
		Sender: e.Sender, Time: e.Time, Rendered: d.Rendered}
	if !d.Push {
		if d.Lookup == 0 || !c.await(d.Lookup, m, now) {
			c.stats.Filtered[d.Reason]++
		}
		return
	}
	c.burst.Add(m, now)
	c.poke()
}

// NoteSent records a message the bot sent, so that a reply to it
// addresses the bot in mentions mode.
func (c *Channel) NoteSent(messageID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gate.NoteSent(messageID)
}

// Lost counts n events that were evicted before the channel read them.
func (c *Channel) Lost(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Lost += n
}

// SetConnection records how the event feed is doing, for Stats.
func (c *Channel) SetConnection(state string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stats.Connection = state
}

// Request registers a permission request (Claude Code's, or with Own one
// of this server's confirmations) and returns the private message to send
// to each approver. It fails when no approver is configured or the id is
// not a request id.
func (c *Channel) Request(req Request, now time.Time) (string, error) {
	if !c.Approvals() {
		return "", fmt.Errorf("no approver is configured (SNOWLUMA_MCP_CHANNEL_APPROVERS)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.relay.Open(req, now); err != nil {
		return "", err
	}
	c.stats.ApprovalRequests++
	// A request pushed out past MaxPending can no longer be answered: its
	// waiter ends now rather than at ApprovalTTL.
	for id, w := range c.waiters {
		if !c.relay.Pending(id) && id != req.ID {
			select {
			case w <- Verdict{Request: Request{ID: id}}:
			default:
			}
		}
	}
	return req.Prompt(), nil
}

// ErrUnanswered is the error of Ask when no approver answered: the
// request expired, or newer requests pushed it out.
var ErrUnanswered = errors.New("no approver answered")

// Prompted records that the prompt of request id reached an approver as
// message messageID, so that a quote-reply to that message answers id.
func (c *Channel) Prompted(id string, messageID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.relay.Prompted(id, messageID)
	c.stats.ApprovalPrompts++
}

// Ask registers one of this server's own confirmations (req.Own is set
// for it, and a fresh id when req has none), hands its prompt to send for
// the approvers, and waits for a verdict until ctx ends or ApprovalTTL
// passes. It returns the verdict, or the error of send or of the wait.
func (c *Channel) Ask(ctx context.Context, req Request, send func(ctx context.Context, id, prompt string) error) (Verdict, error) {
	req.Own = true
	w := make(chan Verdict, 1)
	c.mu.Lock()
	for req.ID == "" || c.waiters[req.ID] != nil {
		req.ID = NewID()
	}
	c.waiters[req.ID] = w
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiters, req.ID)
		c.relay.Cancel(req.ID)
		c.mu.Unlock()
	}()
	prompt, err := c.Request(req, time.Now())
	if err != nil {
		return Verdict{}, err
	}
	if err := send(ctx, req.ID, prompt); err != nil {
		return Verdict{}, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, ApprovalTTL)
	defer cancel()
	select {
	case v := <-w:
		if v.Behavior == "" {
			return Verdict{}, fmt.Errorf("request %s was pushed out by newer requests (at most %d wait): %w", req.ID, MaxPending, ErrUnanswered)
		}
		return v, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
			return Verdict{}, fmt.Errorf("request %s expired after %v: %w", req.ID, ApprovalTTL, ErrUnanswered)
		}
		return Verdict{}, fmt.Errorf("no approver answered request %s: %w", req.ID, ctx.Err())
	}
}

// Withdraw forgets request id, answered some other way.
func (c *Channel) Withdraw(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.relay.Cancel(id)
}

// Stats returns a copy of the counters at now.
func (c *Channel) Stats(now time.Time) Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Filtered = maps.Clone(c.stats.Filtered)
	s.Coalesced, s.Dropped = c.burst.Coalesced, c.burst.Dropped
	s.Waiting = c.burst.Waiting()
	s.PendingApprovals = c.relay.Waiting(now)
	return s
}

// Run delivers verdicts as they come and pushes as the coalescer releases
// them, until ctx ends. now is the clock (time.Now when nil).
func (c *Channel) Run(ctx context.Context, sink Sink, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// A failure is logged when it differs from the one before, so that a
	// client that is not listening costs one line, not one per push.
	lastFailure := ""
	note := func(format string, args ...any) {
		if line := fmt.Sprintf(format, args...); line != lastFailure {
			lastFailure = line
			fmt.Fprintln(c.log, line)
		}
	}
	for {
		t := now()
		c.mu.Lock()
		verdicts := c.verdicts
		c.verdicts = nil
		pushes := c.burst.Due(t)
		next := c.burst.Next(t)
		c.mu.Unlock()
		for _, v := range verdicts {
			err := sink.Verdict(ctx, v)
			c.mu.Lock()
			if err == nil {
				c.stats.Verdicts++
			}
			c.mu.Unlock()
			if err != nil {
				note("channel: the verdict on request %s could not be delivered: %v", v.Request.ID, err)
			}
		}
		for _, p := range pushes {
			err := sink.Push(ctx, neutralize(p))
			c.mu.Lock()
			if err == nil {
				c.stats.Pushes++
				c.stats.PushedMessages += int64(pushCount(p))
			} else {
				c.stats.PushFailures++
			}
			c.mu.Unlock()
			if err != nil && ctx.Err() == nil {
				note("channel: a push could not be delivered: %v", err)
			} else if err == nil {
				lastFailure = ""
			}
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = max(next.Sub(now()), time.Millisecond)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-timer.C:
		}
	}
}

// neutralize makes markup and forged notices in a push's content and
// meta inert (untrusted.Neutralize): the host wraps the content in its own
// <channel> tag with the meta as attributes.
func neutralize(p Push) Push {
	meta := make(map[string]string, len(p.Meta))
	for k, v := range p.Meta {
		meta[k] = untrusted.NeutralizeAttr(v)
	}
	return Push{Content: untrusted.Neutralize(p.Content), Meta: meta}
}

func pushCount(p Push) int {
	n := 1
	fmt.Sscan(p.Meta[MetaCount], &n)
	return n
}
