package archive

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/snowluma/snowluma-mcp/events"
)

// Timings of the keeper's own work.
const (
	RetryFirst  = 5 * time.Second  // first wait before asking SnowLuma again
	RetryMax    = 5 * time.Minute  // longest wait between two attempts
	PrunePeriod = 10 * time.Minute // between two retention passes
)

// A Named is a group or a friend as SnowLuma lists them.
type Named struct {
	Chat Chat
	Name string
}

// A Source is what the keeper asks SnowLuma: the account, the chats and
// their history.
type Source interface {
	Fetcher
	// Self is the logged-in account (get_login_info).
	Self(ctx context.Context) (int64, error)
	// Chats lists the groups and friends with their names
	// (get_group_list, get_friend_list); a list that could not be read is
	// left out.
	Chats(ctx context.Context) []Named
}

// A Keeper keeps a Store up to date: it feeds it every message event of
// the hub's connection before any client buffer sees it (the hub's tap
// and a Feed), follows the account with the hub's follow loop, backfills
// the archived chats with SnowLuma's history at start, whenever the
// connection comes back and whenever the file lost messages, and applies
// the retention now and then.
type Keeper struct {
	store *Store
	hub   *events.Hub // nil without an event connection
	src   Source
	log   io.Writer
	feed  *Feed
	// further: the keeper of a bot after the first, whose chats are
	// keyed by its account (bot, once get_login_info told it).
	further bool
	bot     int64
	// Backfilled, when set, is called after each backfill pass.
	Backfilled func()
	// Retry is the first wait before asking again; zero means RetryFirst.
	Retry time.Duration

	filling sync.Mutex // one backfill pass at a time

	mu       sync.Mutex
	state    string
	noted    string
	lostFill time.Time       // when a lost batch last asked for a backfill
	ctx      context.Context // Run's, once it runs
}

// NewKeeper returns the keeper of s, and taps hub at once so that the
// archive sees the first event of the first connection, whoever opens
// it. Run starts the work.
func NewKeeper(s *Store, hub *events.Hub, src Source, log io.Writer) *Keeper {
	return newKeeper(s, hub, src, log, false)
}

// NewFurtherKeeper returns the keeper of a further bot sharing s with the
// first: hub is its own event connection and src its own SnowLuma, and
// the chats it keeps are keyed by its account (Chat.Bot).
func NewFurtherKeeper(s *Store, hub *events.Hub, src Source, log io.Writer) *Keeper {
	return newKeeper(s, hub, src, log, true)
}

func newKeeper(s *Store, hub *events.Hub, src Source, log io.Writer, further bool) *Keeper {
	if log == nil {
		log = io.Discard
	}
	k := &Keeper{store: s, hub: hub, src: src, log: log, feed: s.newFeed(further), further: further, state: "starting"}
	k.feed.Lost = func(n int) {
		if k.store.Err() != nil {
			// A broken file: backfilling cannot store anything either.
			k.note(fmt.Errorf("%d messages of the event connection could not be stored (counted in lost)", n))
			return
		}
		k.note(fmt.Errorf("%d messages of the event connection could not be stored (counted in lost); a backfill is asked for", n))
		k.mu.Lock()
		due := time.Since(k.lostFill) >= k.retryFirst()
		if due {
			k.lostFill = time.Now()
		}
		k.mu.Unlock()
		k.mu.Lock()
		ctx := k.ctx
		k.mu.Unlock()
		if due && ctx != nil { // at most one a retry period, not one a failed batch
			go k.backfill(ctx)
		}
	}
	if hub != nil {
		hub.SetTap(k)
	}
	return k
}

// Connected and Event make the keeper the hub's tap (events.Tap).
func (k *Keeper) Connected()        { k.feed.Connected() }
func (k *Keeper) Event(raw []byte)  { k.feed.Take(raw) }
func (k *Keeper) Feed() *Feed       { return k.feed }
func (k *Keeper) setState(s string) { k.mu.Lock(); k.state = s; k.mu.Unlock() }
func (k *Keeper) retryFirst() time.Duration {
	if k.Retry > 0 {
		return k.Retry
	}
	return RetryFirst
}

// State says what the keeper is doing, for the runtime overview.
func (k *Keeper) State() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.state
}

// note logs a failure once until a different one comes: a broken file
// fails every batch the same way.
func (k *Keeper) note(err error) {
	line := "archive: " + err.Error()
	k.mu.Lock()
	same := line == k.noted
	k.noted = line
	k.mu.Unlock()
	if !same {
		fmt.Fprintln(k.log, line)
	}
}

// Run learns the account, then follows it until ctx ends or the hub
// closes: the feed stores what the connection brings, a backfill runs
// each time the connection opens. Without a hub it backfills once.
func (k *Keeper) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k.mu.Lock()
	k.ctx = ctx
	k.mu.Unlock()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() { defer wg.Done(); k.feed.Run(ctx) }()
	defer k.feed.Close()
	if k.hub != nil {
		go func() {
			select {
			case <-k.hub.Done():
				k.feed.Close() // the reader must not wait on a feed nobody ends
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	wait := k.retryFirst()
	var self int64
	for {
		id, err := k.src.Self(ctx)
		if err == nil && id > 0 {
			self = id
			break
		}
		k.setState(fmt.Sprintf("waiting for get_login_info: %v", err))
		if !events.Sleep(ctx, wait) {
			return
		}
		wait = min(2*wait, RetryMax)
	}
	if k.further {
		k.feed.SetBot(self)
		k.mu.Lock()
		k.bot = self
		k.mu.Unlock()
	} else {
		k.store.SetSelf(self)
	}
	if k.hub == nil {
		// No session end to wait for: backfill (which prunes) once.
		k.backfill(ctx)
		k.setState("no event connection: backfilled at start")
		return
	}
	wg.Add(1)
	go func() { defer wg.Done(); k.prune(ctx) }()
	// The resource keeps the connection open and tells when it ends; the
	// events reach the archive through the tap, so it holds only
	// requests, the rarest of them.
	follow := &events.Follow{Hub: k.hub, Filter: events.Filter{SelfID: self, Types: []string{events.TypeRequest}}, Retry: k.Retry,
		Subscribed: func(err error, wait time.Duration) {
			if err != nil {
				k.setState("event connection: " + err.Error())
				fmt.Fprintf(k.log, "archive: the event connection could not be opened (%v); trying again in %v\n", err, wait)
				return
			}
			k.setState("following")
			wg.Add(1)
			go func() { defer wg.Done(); k.backfill(ctx) }()
		},
		Ended: func(reason string, wait time.Duration) {
			k.setState("reconnecting: " + reason)
			fmt.Fprintf(k.log, "archive: the event connection ended (%s); following again in %v\n", reason, wait)
		},
	}
	follow.Run(ctx, "", nil)
}

// backfill names and backfills every archived chat, then prunes.
func (k *Keeper) backfill(ctx context.Context) {
	if !k.filling.TryLock() {
		return
	}
	defer k.filling.Unlock()
	var chats []Chat
	k.mu.Lock()
	bot := k.bot
	k.mu.Unlock()
	for _, n := range k.src.Chats(ctx) {
		c := n.Chat
		c.Bot = bot
		// With every friend archived, only the chats that have spoken
		// are backfilled: not one history call per friend.
		if !k.store.Archived(c) || (!c.Group && k.store.EveryUser() && !k.store.Holds(c)) {
			continue
		}
		k.store.SetName(ctx, c, strings.TrimSpace(n.Name))
		chats = append(chats, c)
	}
	for _, c := range chats {
		if ctx.Err() != nil {
			return
		}
		res, err := k.store.Backfill(ctx, k.src, c)
		if err != nil {
			k.note(err)
		} else if res.Gap {
			fmt.Fprintf(k.log, "archive: %v: SnowLuma's history did not reach the messages already archived; a gap is marked\n", c)
		}
	}
	// What the pages brought back may already be past the retention.
	if _, err := k.store.Prune(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(k.log, "archive: retention: %v\n", err)
	}
	if k.Backfilled != nil {
		k.Backfilled()
	}
}

// prune applies the retention now and then.
func (k *Keeper) prune(ctx context.Context) {
	for {
		if _, err := k.store.Prune(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(k.log, "archive: retention: %v\n", err)
		}
		if !events.Sleep(ctx, PrunePeriod) {
			return
		}
	}
}
