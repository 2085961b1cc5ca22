package transfer

import (
	"sync"
	"time"
)

// ProgressInterval is the shortest time between two progress reports.
const ProgressInterval = 250 * time.Millisecond

// A nil *Throttle reports nothing, so callers without a progress token
// need no special case.
//
// A Throttle turns a transfer's progress callbacks into reports: at most one
// per interval, values strictly increasing, the latest held back as pending
// until the interval has passed or Flush sends it. After Stop, or after a
// report fails, nothing more is sent. It is safe for concurrent use.
type Throttle struct {
	send  func(done, total int64) error
	every time.Duration
	now   func() time.Time

	mu          sync.Mutex
	last        time.Time // when the last report went
	sent        int64     // the last value reported; -1 before the first
	pending     bool
	done, total int64 // the pending update
	stopped     bool
	err         error // the first failed report
}

// NewThrottle returns a Throttle reporting through send at most once per
// every (ProgressInterval when zero).
func NewThrottle(every time.Duration, send func(done, total int64) error) *Throttle {
	return &Throttle{send: send, every: orDefault(every, ProgressInterval), now: time.Now, sent: -1}
}

// Update records progress and reports it when the interval since the last
// report has passed. It has the shape of a Progress.
func (t *Throttle) Update(done, total int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped || done <= t.sent {
		return
	}
	t.pending, t.done, t.total = true, done, total
	if t.sent < 0 || t.now().Sub(t.last) >= t.every {
		t.report()
	}
}

// Flush reports the pending update, if any, and stops the Throttle: the
// final report before a successful result.
func (t *Throttle) Flush() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped && t.pending {
		t.report()
	}
	t.stopped = true
}

// Stop drops any pending update and stops the Throttle: after a failure or
// a cancellation nothing more is reported.
func (t *Throttle) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
}

// Err returns the first report that could not be delivered, or nil.
func (t *Throttle) Err() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// report sends the pending update; t.mu is held.
func (t *Throttle) report() {
	t.pending = false
	t.last = t.now()
	t.sent = t.done
	if err := t.send(t.done, t.total); err != nil {
		t.err = err
		t.stopped = true
	}
}
