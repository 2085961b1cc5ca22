package events

import (
	"context"
	"time"
)

// The follow loop's retries. The hub never reopens a connection by itself;
// a Follow, which exists to keep following the account, does: after the
// connection ends it releases its resource and subscribes again, first
// after RetryFirst, then doubling up to RetryMax.
const (
	RetryFirst = 5 * time.Second
	RetryMax   = 5 * time.Minute
)

// A Follow keeps one resource of a reader inside this process (the
// channel, the archive) subscribed on a Hub: it reads the resource on each
// update and, when the connection ends, releases it and subscribes again
// until its context or the hub ends. The channel and the archive follow
// the account with it, each through its own resource.
type Follow struct {
	Hub    *Hub
	Filter Filter
	// Retry is the first wait before subscribing again; zero means
	// RetryFirst. Tests shorten it.
	Retry time.Duration
	// Subscribed, when set, is told of each attempt to subscribe: nil
	// once the resource exists (the connection is open), else why not and
	// the wait before the next attempt.
	Subscribed func(err error, wait time.Duration)
	// Read receives every read of the resource: the events since the
	// previous read, the loss counters and the status.
	Read func(Snapshot)
	// Ended, when set, is told why a connection ended and the wait before
	// subscribing again.
	Ended func(reason string, wait time.Duration)
}

// Start subscribes once, so that a caller can report at start whether the
// event connection opened. It returns the resource id and the channel
// that tells of its updates, for Run.
func (f *Follow) Start(ctx context.Context) (string, <-chan struct{}, error) {
	updated := make(chan struct{}, 1)
	notify := func() {
		select {
		case updated <- struct{}{}:
		default:
		}
	}
	info, err := f.Hub.SubscribeFunc(ctx, f.Filter, notify)
	if err != nil {
		return "", nil, err
	}
	return info.ID, updated, nil
}

// Run follows from the resource of a successful Start (id and updated; an
// empty id subscribes first) until ctx ends or the hub is closed, and
// releases its resource when it returns.
func (f *Follow) Run(ctx context.Context, id string, updated <-chan struct{}) {
	first := f.Retry
	if first <= 0 {
		first = RetryFirst
	}
	retry := first
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// The hub's end is the session's: stop following.
		select {
		case <-f.Hub.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	for ctx.Err() == nil {
		if id == "" {
			var err error
			id, updated, err = f.Start(ctx)
			if err != nil {
				if f.Subscribed != nil {
					f.Subscribed(err, retry)
				}
				if !Sleep(ctx, retry) {
					return
				}
				retry = min(2*retry, RetryMax)
				continue
			}
			if f.Subscribed != nil {
				f.Subscribed(nil, 0)
			}
			retry = first
		}
		ended := f.drain(ctx, id, updated)
		f.Hub.Release(id)
		id = ""
		if ctx.Err() != nil {
			return
		}
		if f.Ended != nil {
			f.Ended(ended, retry)
		}
		if !Sleep(ctx, retry) {
			return
		}
	}
}

// drain reads resource id on each update and hands each read to f.Read,
// until the connection ends (it returns why) or ctx does.
func (f *Follow) drain(ctx context.Context, id string, updated <-chan struct{}) string {
	cursor := ""
	for {
		snap, err := f.Hub.Read(id, cursor)
		if err != nil {
			return err.Error()
		}
		if f.Read != nil {
			f.Read(snap)
		}
		cursor = snap.NextCursor
		if snap.Status != StatusConnected {
			return snap.StatusReason
		}
		select {
		case <-ctx.Done():
			return "the session ended"
		case <-updated:
		}
	}
}

// Sleep waits d, or less when ctx ends first; it reports whether the
// whole wait passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
