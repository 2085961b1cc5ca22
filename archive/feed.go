package archive

import (
	"context"
	"sync"
	"time"
)

// Bounds of the queue between the event connection and the file. A full
// queue blocks the connection's reader (back-pressure) rather than drop.
const (
	FeedMaxBytes  = 8 << 20 // event bytes queued at most
	FeedMaxFrames = 8192    // frames queued at most
	feedBatch     = 2048    // frames stored in one transaction at most
)

// A Feed stores the events of the event connection in the order they
// arrived, in batches, as fast as the file takes them: Take queues a frame
// and blocks while the queue is full, so a slow disk slows the reader
// instead of losing events, and memory stays within the queue's bounds.
// A batch the file refuses is counted in Stats.Lost (and told to Lost),
// never dropped silently.
type Feed struct {
	s *Store
	// bot is the key of the bot whose connection this is: 0 for the first
	// bot; a further bot's feed (further) keys chats by each event's
	// self_id.
	further bool
	// Lost, when set, is told how many messages a failed batch held, on
	// the writer's goroutine.
	Lost func(n int)

	// maxBytes and maxFrames bound the queue: FeedMaxBytes and
	// FeedMaxFrames, smaller in tests.
	maxBytes, maxFrames int

	mu      sync.Mutex
	cond    *sync.Cond
	running bool          // Run has started
	stopped chan struct{} // closed when Run returns
	q       []item
	bytes   int
	peak    int
	closed  bool
	marks   int64 // connection marks queued
	marked  int64 // connection marks the writer has passed
	taken   int64 // items queued ever
	done    int64 // items the writer has passed
	first   map[Chat]int64
}

// An item is a queued frame, or a mark that a new connection began.
type item struct {
	raw  []byte
	mark bool
}

// NewFeed returns the first bot's Feed storing into s; Run writes what it
// queues. The store's backfill reads the feed's connection marks from then
// on.
func (s *Store) NewFeed() *Feed { return s.newFeed(false) }

// NewFurtherFeed returns the Feed of a further bot's event connection: its
// chats are keyed by the account each event names (self_id), and the
// backfill of those chats reads its connection marks.
func (s *Store) NewFurtherFeed() *Feed { return s.newFeed(true) }

func (s *Store) newFeed(further bool) *Feed {
	f := &Feed{s: s, further: further, first: map[Chat]int64{}, maxBytes: FeedMaxBytes, maxFrames: FeedMaxFrames, stopped: make(chan struct{})}
	f.cond = sync.NewCond(&f.mu)
	s.mu.Lock()
	if s.feeds == nil {
		s.feeds = map[int64]*Feed{}
	}
	if !further {
		s.feeds[0] = f
	} else {
		s.further = append(s.further, f)
	}
	s.mu.Unlock()
	return f
}

// feedOf returns the feed of the bot whose chats are keyed bot, nil when
// none runs.
func (s *Store) feedOf(bot int64) *Feed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.feeds[bot]
}

// SetBot tells f's store the account of f's further bot, once known, so
// that backfill of its chats waits for its connection's marks.
func (f *Feed) SetBot(self int64) {
	if !f.further || self == 0 {
		return
	}
	f.s.mu.Lock()
	defer f.s.mu.Unlock()
	f.s.feeds[self] = f
}

// Connected marks, in the order of the frames, that a new connection
// began: the backfill then knows which messages the new connection
// delivered (FirstOf).
func (f *Feed) Connected() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.marks++
	f.taken++
	f.q = append(f.q, item{mark: true})
	f.cond.Broadcast()
}

// Take queues one event frame, waiting while the queue is full. After
// Close it counts the frame lost and returns at once.
func (f *Feed) Take(raw []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.closed && len(f.q) > 0 && (len(f.q) >= f.maxFrames || f.bytes+len(raw) > f.maxBytes) {
		f.cond.Wait()
	}
	if f.closed {
		return
	}
	f.q = append(f.q, item{raw: raw})
	f.taken++
	f.bytes += len(raw)
	f.peak = max(f.peak, f.bytes)
	f.cond.Broadcast()
}

// PeakBytes is the most event bytes the queue has held.
func (f *Feed) PeakBytes() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

// Close stops the feed: Take no longer waits, and Run returns once it has
// stored what was queued.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.cond.Broadcast()
}

// drain closes the feed and, when Run is writing, waits until it has
// stored what was queued: the store closes after that.
func (f *Feed) drain() {
	f.Close()
	f.mu.Lock()
	running := f.running
	f.mu.Unlock()
	if running {
		<-f.stopped
	}
}

// Run stores the queued frames until Close, then what is left, and
// returns. Writes are not cancelled by ctx: a frame taken is stored.
func (f *Feed) Run(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	f.mu.Lock()
	f.running = true
	f.mu.Unlock()
	defer close(f.stopped)
	for {
		f.mu.Lock()
		for len(f.q) == 0 && !f.closed {
			f.cond.Wait()
		}
		if len(f.q) == 0 {
			f.mu.Unlock()
			return
		}
		n := min(len(f.q), feedBatch)
		batch := make([]item, n)
		copy(batch, f.q)
		f.q = append(f.q[:0:0], f.q[n:]...)
		f.mu.Unlock()

		frames := make([][]byte, 0, len(batch))
		size := 0
		for _, it := range batch {
			if it.mark {
				f.store(ctx, frames)
				f.mu.Lock()
				f.marked++
				f.first = map[Chat]int64{}
				f.done += int64(len(frames)) + 1 // the frames before the mark, and the mark
				f.cond.Broadcast()
				f.mu.Unlock()
				frames = frames[:0]
				continue
			}
			frames = append(frames, it.raw)
			size += len(it.raw)
		}
		f.store(ctx, frames)
		f.mu.Lock()
		f.done += int64(len(frames))
		f.bytes -= size
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// store writes one batch, making room once when the file is full.
func (f *Feed) store(ctx context.Context, frames [][]byte) {
	if len(frames) == 0 {
		return
	}
	recs, recalls := f.s.parse(frames, f.further)
	if len(recs) == 0 && len(recalls) == 0 {
		return
	}
	keys, err := f.s.ingest(ctx, recs, recalls)
	if err != nil {
		if e := f.s.st.classify(err); e != nil && e.Problem == ProblemFull {
			f.s.Prune(ctx)
			keys, err = f.s.ingest(ctx, recs, recalls)
		}
	}
	// A shared database that cannot be reached for a moment (a restart,
	// a failover): the batch waits and is tried again, holding the
	// connection's reader meanwhile, before it is counted lost.
	for wait := 250 * time.Millisecond; err != nil && wait <= 8*time.Second; wait *= 2 {
		if e := f.s.st.classify(err); e == nil || e.Problem != ProblemUnreachable {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
			keys, err = f.s.ingest(ctx, recs, recalls)
			continue
		}
		break
	}
	if err != nil {
		f.s.mu.Lock()
		f.s.stats.Lost += int64(len(recs))
		f.s.mu.Unlock()
		if f.Lost != nil && len(recs) > 0 {
			f.Lost(len(recs))
		}
		return
	}
	f.mu.Lock()
	for i, r := range recs {
		if _, ok := f.first[r.Chat]; !ok && keys[i] != 0 {
			f.first[r.Chat] = keys[i]
		}
	}
	f.mu.Unlock()
}

// Sync waits until every frame queued before the call has been stored (or
// counted lost), so that a backfill's pages never get ahead of the
// connection's own order: a message the backfill stores is then older
// than none the feed has yet to store.
func (f *Feed) Sync(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cond.Broadcast()
	})
	defer stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for target := f.taken; f.done < target && !f.closed && ctx.Err() == nil; {
		f.cond.Wait()
	}
	return ctx.Err()
}

// FirstOf waits until the writer has passed the newest connection mark
// and returns the key of the first message of chat that the connection
// delivered, 0 when none has come yet.
func (f *Feed) FirstOf(ctx context.Context, chat Chat) (int64, error) {
	stop := context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cond.Broadcast()
	})
	defer stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.marked < f.marks && !f.closed && ctx.Err() == nil {
		f.cond.Wait()
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return f.first[chat], nil
}
