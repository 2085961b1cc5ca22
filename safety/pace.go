package safety

import (
	"sync"
	"time"
)

// Defaults of the send pacer (SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS and
// SNOWLUMA_MCP_SEND_PER_MINUTE).
const (
	DefaultSendInterval  = time.Second
	DefaultSendPerMinute = 20
)

// window is the span of the per-minute budget.
const window = time.Minute

// sweepAt is the number of remembered targets past which targets whose
// interval has passed are forgotten.
const sweepAt = 1024

// A Pacer limits message sends: at most one per Interval to the same
// target, and at most PerMinute in any minute across all targets. A send
// over either limit is refused at once, never delayed. The state is in
// memory and per process. It is safe for concurrent use.
type Pacer struct {
	interval  time.Duration
	perMinute int
	now       func() time.Time

	mu   sync.Mutex
	last map[string]time.Time // each target's latest admitted send
	sent []time.Time          // admitted sends of the last minute, oldest first
}

// NewPacer returns a pacer; interval 0 or perMinute 0 turns that limit off.
// now is the clock (nil: time.Now).
func NewPacer(interval time.Duration, perMinute int, now func() time.Time) *Pacer {
	if now == nil {
		now = time.Now
	}
	return &Pacer{interval: interval, perMinute: perMinute, now: now, last: map[string]time.Time{}}
}

// Interval and PerMinute report the limits.
func (p *Pacer) Interval() time.Duration { return p.interval }
func (p *Pacer) PerMinute() int          { return p.perMinute }

// Check reports how long a send to keys must wait, without recording it:
// 0 when it may go now.
func (p *Pacer) Check(keys []string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wait(p.now(), keys)
}

// Admit records a send to keys when it may go now and returns 0, or
// returns how long it must wait and records nothing.
func (p *Pacer) Admit(keys []string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if d := p.wait(now, keys); d > 0 {
		return d
	}
	if p.interval > 0 {
		if len(p.last) >= sweepAt {
			for k, t := range p.last {
				if now.Sub(t) >= p.interval {
					delete(p.last, k)
				}
			}
		}
		for _, k := range keys {
			p.last[k] = now
		}
	}
	if p.perMinute > 0 {
		p.sent = append(p.sent, now)
	}
	return 0
}

// wait is the longest of the per-target and per-minute waits. p.mu is held.
func (p *Pacer) wait(now time.Time, keys []string) time.Duration {
	var d time.Duration
	if p.interval > 0 {
		for _, k := range keys {
			if t, ok := p.last[k]; ok {
				d = max(d, t.Add(p.interval).Sub(now))
			}
		}
	}
	if p.perMinute > 0 {
		drop := 0
		for drop < len(p.sent) && now.Sub(p.sent[drop]) >= window {
			drop++
		}
		p.sent = p.sent[drop:]
		if len(p.sent) >= p.perMinute {
			// The send frees a slot when the oldest counted one leaves
			// the window.
			d = max(d, p.sent[len(p.sent)-p.perMinute].Add(window).Sub(now))
		}
	}
	return d
}
