package app

import (
	"io"
	"sync"
	"time"
)

// callLogBytes is how much of the call log may wait to be written before a
// writer waits for it: far more than a burst of calls writes, and bounded,
// so that a host that stops reading stderr slows the calls down rather
// than growing the process.
const callLogBytes = 256 << 10

// callLogLinger is how long the log waits, once a line is queued, for the
// lines of the calls after it, so that calls close together share one
// write: with a write per call, the log's own wake-up and system call were
// a quarter of the CPU of a quick call (get_action, a keyword search) and
// slowed its answer by as much. A line reaches stderr this much later,
// which no one reading a log sees.
const callLogLinger = 20 * time.Millisecond

// A callLog writes the line of each tool call to stderr from a goroutine
// of its own, so that a call's answer never waits for the line: a system
// call, and the wake-up of the host that reads stderr, took a fifth of the
// time of a catalog search. Lines keep their order, the lines queued within
// callLogLinger go out in one write, and none is dropped: Close writes what
// is queued before it returns, and a writer finding the queue full waits
// for room, which it gets without waiting for the linger.
type callLog struct {
	w io.Writer

	mu      sync.Mutex
	room    sync.Cond // signalled when the queue has been taken
	queued  []byte
	waits   int // writes that had to wait for room, for the tests
	closing bool
	wake    chan struct{} // one slot: the queue has lines, or is closing
	hurry   chan struct{} // one slot: write now (a writer waits, or Close)
	done    chan struct{} // closed when the writing goroutine has returned
}

// newCallLog starts a callLog writing to w; Close it to flush and stop.
func newCallLog(w io.Writer) *callLog {
	l := &callLog{w: w, wake: make(chan struct{}, 1), hurry: make(chan struct{}, 1), done: make(chan struct{})}
	l.room.L = &l.mu
	go l.run()
	return l
}

// Write queues a copy of p. After Close, it writes p at once.
func (l *callLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	for !l.closing && len(l.queued) > 0 && len(l.queued)+len(p) > callLogBytes {
		l.waits++
		notify(l.hurry)
		l.room.Wait()
	}
	if l.closing {
		l.mu.Unlock()
		<-l.done // what was queued goes first
		return l.w.Write(p)
	}
	l.queued = append(l.queued, p...)
	l.mu.Unlock()
	notify(l.wake)
	return len(p), nil
}

// Close writes what is queued and stops the goroutine; later writes go
// straight to the writer.
func (l *callLog) Close() error {
	l.mu.Lock()
	l.closing = true
	l.room.Broadcast()
	l.mu.Unlock()
	notify(l.hurry)
	notify(l.wake)
	<-l.done
	return nil
}

func (l *callLog) run() {
	defer close(l.done)
	linger := time.NewTimer(callLogLinger)
	linger.Stop()
	var batch []byte
	for range l.wake {
		linger.Reset(callLogLinger)
		select {
		case <-linger.C:
		case <-l.hurry:
			linger.Stop()
		}
		l.mu.Lock()
		batch, l.queued = l.queued, batch[:0]
		closing := l.closing
		l.room.Broadcast()
		l.mu.Unlock()
		if len(batch) > 0 {
			// As a direct write's would be, a failure is ignored: stderr
			// is the only place to say it.
			_, _ = l.w.Write(batch)
		}
		if closing {
			return
		}
	}
}

// notify fills c's one slot, unless it is full already.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
