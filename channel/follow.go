package channel

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/snowluma/snowluma-mcp/events"
)

// The feed's retries. The event hub never reopens a connection by itself;
// the channel, which exists only to follow the account, does: after the
// connection ends it releases its resource and subscribes again, first
// after RetryFirst, then doubling up to RetryMax.
const (
	RetryFirst = 5 * time.Second
	RetryMax   = 5 * time.Minute
)

// Feed follows an account's messages on an event hub for a channel.
type Feed struct {
	Hub    *events.Hub
	SelfID int64
	// Log receives one line per change of the feed's state; nil discards.
	Log io.Writer
	// Now is the clock handed to the channel; nil means time.Now.
	Now func() time.Time
	// Retry is the first wait before subscribing again; zero means
	// RetryFirst. Tests shorten it.
	Retry time.Duration
}

// Start subscribes once, so that the caller can report at start whether
// the event connection opened. It returns the resource id and the channel
// that tells of its updates, for Run.
func (f *Feed) Start(ctx context.Context, ch *Channel) (string, <-chan struct{}, error) {
	updated := make(chan struct{}, 1)
	notify := func() {
		select {
		case updated <- struct{}{}:
		default:
		}
	}
	info, err := f.Hub.SubscribeFunc(ctx, events.Filter{SelfID: f.SelfID, Types: []string{events.TypeMessage}}, notify)
	if err != nil {
		ch.SetConnection("not connected: " + err.Error())
		return "", nil, err
	}
	ch.SetConnection(string(events.StatusConnected))
	return info.ID, updated, nil
}

// Run feeds ch from the hub until ctx ends or the hub is closed, from the
// resource of a successful Start (id and updated; an empty id subscribes
// first), and releases its resource when it returns.
func (f *Feed) Run(ctx context.Context, ch *Channel, id string, updated <-chan struct{}) {
	log := f.Log
	if log == nil {
		log = io.Discard
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
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
			id, updated, err = f.Start(ctx, ch)
			if err != nil {
				fmt.Fprintf(log, "channel: the event connection could not be opened (%v); trying again in %v\n", err, retry)
				if !sleep(ctx, retry) {
					return
				}
				retry = min(2*retry, RetryMax)
				continue
			}
			fmt.Fprintln(log, "channel: the event connection is open again")
			retry = first
		}
		ended := f.drain(ctx, ch, id, updated, now)
		f.Hub.Release(id)
		id = ""
		if ctx.Err() != nil {
			return
		}
		fmt.Fprintf(log, "channel: the event connection ended (%s); subscribing again in %v\n", ended, retry)
		ch.SetConnection("reconnecting: " + ended)
		if !sleep(ctx, retry) {
			return
		}
	}
}

// drain reads resource id on each update and offers its new events to
// ch, until the connection ends (it returns why) or ctx does.
func (f *Feed) drain(ctx context.Context, ch *Channel, id string, updated <-chan struct{}, now func() time.Time) string {
	cursor := ""
	var lost int64
	for {
		snap, err := f.Hub.Read(id, cursor)
		if err != nil {
			return err.Error()
		}
		if snap.DroppedEvents > lost {
			ch.Lost(snap.DroppedEvents - lost)
			lost = snap.DroppedEvents
		}
		for _, e := range snap.Events {
			ch.Offer(e.Event, now())
		}
		cursor = snap.NextCursor
		if snap.Status != events.StatusConnected {
			return snap.StatusReason
		}
		select {
		case <-ctx.Done():
			return "the session ended"
		case <-updated:
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
