package events

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// holdTap records what the hub taps, holding the reader until released.
type holdTap struct {
	release chan struct{}
	mu      sync.Mutex
	conns   int
	got     []string
}

func (h *holdTap) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.conns++
}

func (h *holdTap) Event(raw []byte) {
	<-h.release
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, string(raw))
}

func (h *holdTap) seen() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conns, append([]string(nil), h.got...)
}

// TestTap: the tap sees every admitted event, in order, before any
// resource's buffer, including those the buffer then drops; a tap that
// waits holds the reader (nothing is lost meanwhile); meta events and
// events outside the allowlists never reach it.
func TestTap(t *testing.T) {
	fake := simulator.Start(t, simulator.WithToken(token))
	h := New(Options{URL: fake.EventsURL(), Token: token, AllowGroups: []int64{20001}})
	t.Cleanup(h.Close)
	tap := &holdTap{release: make(chan struct{})}
	h.SetTap(tap)
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	c := fake.EventConn(t, 0)
	const n = 3 * MaxEvents
	sent := make(chan error, 1)
	go func() {
		for i := range n {
			if i%100 == 0 {
				c.Send(simulator.Heartbeat())
				c.Send(simulator.GroupMessage(20002, 1, "outside"))
			}
			if err := c.Send(simulator.GroupMessage(20001, 1, fmt.Sprint("m", i))); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	// Held: the resource has nothing, the reader waits on the tap (the
	// sender, on the socket).
	if s := read(t, h, id, ""); len(s.Events) != 0 {
		t.Fatalf("the resource got %d events past a tap that holds the reader", len(s.Events))
	}
	close(tap.release)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	eventually(t, "every message tapped", func() bool { _, got := tap.seen(); return len(got) == n })
	conns, got := tap.seen()
	for i, raw := range got {
		if !strings.Contains(raw, fmt.Sprintf(`"m%d"`, i)) {
			t.Fatalf("tapped event %d is %s", i, raw)
		}
	}
	if conns != 1 {
		t.Errorf("Connected told %d times for one connection", conns)
	}
	// The client buffer stays as it is: bounded, dropping the oldest.
	eventually(t, "the buffer full", func() bool { return read(t, h, id, "").DroppedEvents == n-MaxEvents })
	if s := read(t, h, id, ""); len(s.Events) != MaxEvents {
		t.Errorf("the buffer holds %d events, want %d", len(s.Events), MaxEvents)
	}
}

// sleepyTap takes a while over the first message, as a feed waiting on a
// slow disk.
type sleepyTap struct {
	once sync.Once
	d    time.Duration
}

func (s *sleepyTap) Connected() {}
func (s *sleepyTap) Event([]byte) {
	s.once.Do(func() { time.Sleep(s.d) })
}

// TestTapPausesWatchdog: a tap that waits longer than the stall watchdog's
// span is back-pressure, not a stalled SnowLuma: the connection stays.
func TestTapPausesWatchdog(t *testing.T) {
	fake := simulator.Start(t, simulator.WithToken(token), simulator.WithHeartbeat(MinHeartbeatInterval))
	h := New(Options{URL: fake.EventsURL(), Token: token})
	t.Cleanup(h.Close)
	h.SetTap(&sleepyTap{d: 3 * StallHeartbeats * MinHeartbeatInterval})
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	c := fake.EventConn(t, 0)
	if err := c.Send(simulator.GroupMessage(20001, 1, "slow")); err != nil {
		t.Fatal(err)
	}
	if err := c.Send(simulator.GroupMessage(20001, 1, "after")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "both messages buffered", func() bool { return len(read(t, h, id, "").Events) == 2 })
	if s := read(t, h, id, ""); s.Status != StatusConnected {
		t.Fatalf("the connection was dropped while the tap waited: %s (%s)", s.Status, s.StatusReason)
	}
}
