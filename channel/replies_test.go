package channel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// lookups is a SenderLookup over a table, counting the questions; ids in
// hold wait until release is closed.
type lookups struct {
	mu      sync.Mutex
	senders map[int64]int64
	failing map[int64]bool
	asked   map[int64]int
	hold    map[int64]bool
	release chan struct{}
}

func (l *lookups) lookup(ctx context.Context, id int64) (int64, error) {
	l.mu.Lock()
	l.asked[id]++
	held := l.hold[id]
	l.mu.Unlock()
	if held {
		select {
		case <-l.release:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failing[id] {
		return 0, errors.New("SnowLuma is down")
	}
	return l.senders[id], nil
}

func (l *lookups) times(id int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asked[id]
}

// eventuallyStats waits until cond holds of the channel's counters.
func eventuallyStats(t *testing.T, c *Channel, what string, cond func(Stats) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(c.Stats(t0)); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s; stats %+v", what, c.Stats(t0))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func replyTo(msgID, to int64) []byte {
	return []byte(groupMsg(20001, 30005, msgID, fmt.Sprintf(`[{"type":"reply","data":{"id":"%d"}},{"type":"text","data":{"text":"收到"}}]`, to)))
}

// TestReplyToUnseenBotMessage: in mentions mode, a reply to a message the
// channel never saw is pushed when SnowLuma says the bot sent it (from the
// operator's phone, say); the answer is remembered, someone else's message
// is not asked about twice, a failed lookup is, and the lookups are
// bounded.
// pushedMessages counts the messages of pushes, a batch's by its count.
func pushedMessages(pushes []Push) int {
	n := 0
	for _, p := range pushes {
		if c, err := strconv.Atoi(p.Meta[MetaCount]); err == nil {
			n += c
		} else {
			n++
		}
	}
	return n
}

func TestReplyToUnseenBotMessage(t *testing.T) {
	t.Parallel()
	l := &lookups{senders: map[int64]int64{500: self, 700: 30009}, failing: map[int64]bool{900: true},
		asked: map[int64]int{}, hold: map[int64]bool{}, release: make(chan struct{})}
	c := New(Config{Mode: ModeMentions, Groups: ids(t, "20001")}, self, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.LookUpReplies(ctx, l.lookup)
	s := newSink()
	go c.Run(ctx, s, nil)

	// Two replies to the bot's message 500, which the channel never saw:
	// one lookup, both pushed (in one batch or two, as the batch window
	// falls).
	c.Offer(replyTo(1, 500), t0)
	c.Offer(replyTo(2, 500), t0)
	s.wait(t, "the replies to the bot's unseen message", func(p []Push, _ []Verdict) bool { return pushedMessages(p) == 2 })
	// Known now: a third reply is pushed without asking.
	c.Offer(replyTo(3, 500), t0)
	s.wait(t, "a third reply", func(p []Push, _ []Verdict) bool { return pushedMessages(p) == 3 })
	if n := l.times(500); n != 1 {
		t.Errorf("message 500 looked up %d times", n)
	}

	// Someone else's message: not pushed, and not asked about twice.
	c.Offer(replyTo(4, 700), t0)
	eventuallyStats(t, c, "the reply to 700 filtered", func(s Stats) bool { return s.Filtered[ReasonNotMention] == 1 })
	c.Offer(replyTo(5, 700), t0)
	if st := c.Stats(t0); st.Filtered[ReasonNotMention] != 2 || l.times(700) != 1 {
		t.Errorf("a second reply to someone else's message: %+v, asked %d times", st, l.times(700))
	}

	// A reply to a message the channel saw from someone else needs no
	// lookup.
	c.Offer([]byte(groupMsg(20001, 30006, 800, `"随便聊聊"`)), t0)
	c.Offer(replyTo(8, 800), t0)
	if st := c.Stats(t0); st.Filtered[ReasonNotMention] != 4 || l.times(800) != 0 {
		t.Errorf("a reply to a message seen from someone else: %+v, asked %d times", st, l.times(800))
	}

	// A lookup that fails is not remembered: the next reply asks again.
	c.Offer(replyTo(6, 900), t0)
	eventuallyStats(t, c, "the reply to 900 filtered", func(s Stats) bool { return s.Filtered[ReasonNotMention] == 5 })
	c.Offer(replyTo(7, 900), t0)
	eventuallyStats(t, c, "the second reply to 900 filtered", func(s Stats) bool { return s.Filtered[ReasonNotMention] == 6 })
	if n := l.times(900); n != 2 {
		t.Errorf("a failing message asked %d times", n)
	}

	// At most MaxLookups at once: one more reply to yet another message
	// is not held.
	l.mu.Lock()
	for i := range int64(MaxLookups) {
		l.hold[1000+i] = true
		l.senders[1000+i] = self
	}
	l.mu.Unlock()
	for i := range int64(MaxLookups) {
		c.Offer(replyTo(100+i, 1000+i), t0)
	}
	c.Offer(replyTo(200, 2000), t0)
	if st := c.Stats(t0); st.Filtered[ReasonNotMention] != 7 || l.times(2000) != 0 || st.ReplyLookups != 4+MaxLookups {
		t.Errorf("past MaxLookups: %+v, 2000 asked %d times", st, l.times(2000))
	}
	close(l.release)
	// Released, they are admitted: pushed, or waiting for the rate cap.
	eventuallyStats(t, c, "the held replies admitted", func(s Stats) bool {
		return s.PushedMessages+int64(s.Waiting) == 3+MaxLookups && s.Filtered[ReasonNotMention] == 7
	})
}

// TestReplyWithoutLookup: without LookUpReplies a reply to an unseen
// message does not address the bot, as before.
func TestReplyWithoutLookup(t *testing.T) {
	t.Parallel()
	c := New(Config{Mode: ModeMentions, Groups: ids(t, "20001")}, self, nil)
	c.Offer(replyTo(1, 500), t0)
	if st := c.Stats(t0); st.Filtered[ReasonNotMention] != 1 || st.Waiting != 0 {
		t.Errorf("%+v", st)
	}
}
