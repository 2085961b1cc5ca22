package channel

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/snowluma/snowluma-mcp/events"
)

// The feed's retries: the event hub's follow loop's (events.Follow).
const (
	RetryFirst = events.RetryFirst
	RetryMax   = events.RetryMax
)

// Feed follows an account's messages on an event hub for a channel, with
// the hub's one follow loop (events.Follow).
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

func (f *Feed) follow(ch *Channel) *events.Follow {
	log := f.Log
	if log == nil {
		log = io.Discard
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
	var lost int64
	return &events.Follow{
		Hub: f.Hub, Filter: events.Filter{SelfID: f.SelfID, Types: []string{events.TypeMessage}}, Retry: f.Retry,
		Subscribed: func(err error, wait time.Duration) {
			lost = 0 // a new resource counts from zero
			if err != nil {
				ch.SetConnection("not connected: " + err.Error())
				fmt.Fprintf(log, "channel: the event connection could not be opened (%v); trying again in %v\n", err, wait)
				return
			}
			ch.SetConnection(string(events.StatusConnected))
			fmt.Fprintln(log, "channel: the event connection is open again")
		},
		Read: func(snap events.Snapshot) {
			if snap.DroppedEvents > lost {
				ch.Lost(snap.DroppedEvents - lost)
				lost = snap.DroppedEvents
			}
			for _, e := range snap.Events {
				ch.Offer(e.Event, now())
			}
		},
		Ended: func(reason string, wait time.Duration) {
			fmt.Fprintf(log, "channel: the event connection ended (%s); subscribing again in %v\n", reason, wait)
			ch.SetConnection("reconnecting: " + reason)
		},
	}
}

// Start subscribes once, so that the caller can report at start whether
// the event connection opened. It returns the resource id and the channel
// that tells of its updates, for Run.
func (f *Feed) Start(ctx context.Context, ch *Channel) (string, <-chan struct{}, error) {
	id, updated, err := f.follow(ch).Start(ctx)
	if err != nil {
		ch.SetConnection("not connected: " + err.Error())
		return "", nil, err
	}
	ch.SetConnection(string(events.StatusConnected))
	return id, updated, nil
}

// Run feeds ch from the hub until ctx ends or the hub is closed, from the
// resource of a successful Start (id and updated; an empty id subscribes
// first), and releases its resource when it returns.
func (f *Feed) Run(ctx context.Context, ch *Channel, id string, updated <-chan struct{}) {
	f.follow(ch).Run(ctx, id, updated)
}
