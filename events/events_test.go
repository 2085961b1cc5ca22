package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

const token = "ev-5ecret"

func TestNormalize(t *testing.T) {
	f, err := Filter{SelfID: 1, Types: []string{"request", "message", "request"}, GroupIDs: []int64{3, 1, 3}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Types, []string{"message", "request"}) || !slices.Equal(f.GroupIDs, []int64{1, 3}) || f.UserIDs != nil {
		t.Errorf("normalized %+v", f)
	}
	if f, _ := (Filter{SelfID: 1}).Normalize(); !slices.Equal(f.Types, AllTypes) {
		t.Errorf("omitted types: %v", f.Types)
	}
	many := make([]int64, 101)
	for i := range many {
		many[i] = int64(i + 1)
	}
	for _, tc := range []struct {
		f     Filter
		field string
	}{
		{Filter{}, "self_id"},
		{Filter{SelfID: -5}, "self_id"},
		{Filter{SelfID: 1, Types: []string{"meta_event"}}, "types"},
		{Filter{SelfID: 1, Types: []string{"message_sent"}}, "types"},
		{Filter{SelfID: 1, GroupIDs: []int64{5, 0}}, "group_ids"},
		{Filter{SelfID: 1, UserIDs: many}, "user_ids"},
	} {
		_, err := tc.f.Normalize()
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidFilter || e.Field != tc.field || !strings.Contains(e.Message, tc.field) {
			t.Errorf("%+v: %v, want a %s error", tc.f, err, tc.field)
		}
	}
	// 100 distinct ids, even when repeated, are accepted.
	if _, err := (Filter{SelfID: 1, UserIDs: append(many[:100:100], many[:100]...)}).Normalize(); err != nil {
		t.Errorf("100 distinct ids: %v", err)
	}
}

func TestParseFrame(t *testing.T) {
	for _, bad := range []string{``, `[]`, `null`, `"x"`, `{}`, `{"post_type":""}`, `{"post_type":5}`, `{"post_type":"message"`, ` 7`, `{"post_type":"message"}x`} {
		if _, err := parseFrame([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	f, err := parseFrame([]byte(simulator.GroupMessage(20001, 30001, "hi")))
	if err != nil || f.category != TypeMessage || f.selfID != simulator.SelfID || !f.hasGroup || f.groupID != 20001 || f.userID != 30001 {
		t.Errorf("group message: %+v %v", f, err)
	}
	f, _ = parseFrame([]byte(`{"post_type":"message_sent","self_id":"10001","user_id":"42"}`))
	if f.category != TypeMessage || f.selfID != 10001 || f.userID != 42 || f.hasGroup {
		t.Errorf("message_sent with string ids: %+v", f)
	}
	f, _ = parseFrame([]byte(simulator.Heartbeat()))
	if f.category != "" || f.lifecycleDisable {
		t.Errorf("heartbeat: %+v", f)
	}
	f, _ = parseFrame([]byte(`{"post_type":"meta_event","self_id":1,"meta_event_type":"lifecycle","sub_type":"disable"}`))
	if !f.lifecycleDisable {
		t.Errorf("lifecycle disable not seen")
	}
}

func TestFilterMatch(t *testing.T) {
	frames := map[string]string{
		"group":   simulator.GroupMessage(20001, 30001, "a"),
		"other":   simulator.GroupMessage(20002, 30002, "b"),
		"private": simulator.PrivateMessage(30001, "c"),
		"notice":  simulator.GroupIncrease(20001, 30003),
		"request": simulator.FriendRequest(30001),
		"meta":    simulator.Heartbeat(),
	}
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{SelfID: 1}, []string{"group", "notice", "other", "private", "request"}},
		{Filter{SelfID: 1, Types: []string{"notice", "request"}}, []string{"notice", "request"}},
		{Filter{SelfID: 1, GroupIDs: []int64{20001}}, []string{"group", "notice"}},
		{Filter{SelfID: 1, UserIDs: []int64{30001}}, []string{"group", "private", "request"}},
		{Filter{SelfID: 1, GroupIDs: []int64{20001}, UserIDs: []int64{30001}}, []string{"group"}},
	} {
		f, err := tc.f.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for name, raw := range frames {
			fr, err := parseFrame([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if f.match(fr) {
				got = append(got, name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v matched %v, want %v", tc.f, got, tc.want)
		}
	}
}

func newResource(t *testing.T) *resource {
	r := &resource{conn: &conn{status: StatusConnected, reason: "up"}}
	copy(r.id[:], fmt.Sprintf("%-8d", time.Now().UnixNano()%1e8))
	return r
}

func TestBufferCountCap(t *testing.T) {
	r := newResource(t)
	first := r.snapshot(0)
	if len(first.Events) != 0 || first.OldestCursor != nil || first.Gap || first.DroppedEvents != 0 {
		t.Fatalf("empty: %+v", first)
	}
	for i := range 10 {
		r.add([]byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	s := r.snapshot(0)
	if len(s.Events) != 10 || s.Gap || string(s.Events[0].Event) != `{"n":0}` {
		t.Fatalf("10 events: %+v", s)
	}
	mid, err := r.parseCursor(s.Events[4].Cursor)
	if err != nil {
		t.Fatal(err)
	}
	if after := r.snapshot(mid); len(after.Events) != 5 || string(after.Events[0].Event) != `{"n":5}` || after.Gap {
		t.Errorf("after the 5th: %+v", after)
	}
	next, _ := r.parseCursor(s.NextCursor)
	if s := r.snapshot(next); len(s.Events) != 0 || s.Gap {
		t.Errorf("after next_cursor: %+v", s)
	}
	for i := 10; i < 300; i++ {
		r.add([]byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	s = r.snapshot(mid)
	if len(s.Events) != MaxEvents || s.DroppedEvents != 300-MaxEvents || !s.Gap || string(s.Events[0].Event) != `{"n":44}` {
		t.Errorf("after eviction: %d events, dropped %d, gap %v, first %s", len(s.Events), s.DroppedEvents, s.Gap, s.Events[0].Event)
	}
	oldest, _ := r.parseCursor(*s.OldestCursor)
	if s := r.snapshot(oldest - 1); s.Gap || len(s.Events) != MaxEvents {
		t.Errorf("reading from just before the oldest: gap %v, %d events", s.Gap, len(s.Events))
	}
	if s := r.snapshot(oldest); s.Gap || len(s.Events) != MaxEvents-1 {
		t.Errorf("reading after the oldest: gap %v, %d events", s.Gap, len(s.Events))
	}
}

func TestBufferByteCap(t *testing.T) {
	r := newResource(t)
	big := []byte(`{"pad":"` + strings.Repeat("x", 200<<10) + `"}`)
	for range 12 {
		r.add(big)
	}
	s := r.snapshot(0)
	if r.bytes > MaxBytes || len(s.Events) != MaxBytes/len(big) || s.DroppedEvents != int64(12-len(s.Events)) || !s.Gap {
		t.Errorf("held %d bytes in %d events, dropped %d", r.bytes, len(s.Events), s.DroppedEvents)
	}
}

func TestCursors(t *testing.T) {
	a, b := newResource(t), newResource(t)
	b.id[0] ^= 0xff
	a.add([]byte(`{}`))
	b.add([]byte(`{}`))
	ca := a.snapshot(0).NextCursor
	for _, tc := range []struct {
		cursor, want string
	}{
		{"garbage!", "not a cursor"},
		{"", "not a cursor"},
		{ca + "A", "not a cursor"},
		{ca, "another event resource"},
		{a.cursor(99), "another event resource"},
	} {
		_, err := b.parseCursor(tc.cursor)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeBadCursor || !strings.Contains(e.Message, tc.want) {
			t.Errorf("cursor %q: %v, want %q", tc.cursor, err, tc.want)
		}
	}
	if _, err := a.parseCursor(a.cursor(2)); err == nil || !strings.Contains(err.Error(), "ahead") {
		t.Errorf("future cursor: %v", err)
	}
	if seq, err := a.parseCursor(ca); err != nil || seq != 1 {
		t.Errorf("own cursor: %d %v", seq, err)
	}
}

// updates records OnUpdate calls, with the status each one would read.
type updates struct {
	h        *Hub
	mu       sync.Mutex
	times    map[string][]time.Time
	statuses map[string][]Status
}

func (u *updates) on(id string) {
	st := Status("released")
	if s, err := u.h.Read(id, ""); err == nil {
		st = s.Status
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.times == nil {
		u.times, u.statuses = map[string][]time.Time{}, map[string][]Status{}
	}
	u.times[id] = append(u.times[id], time.Now())
	u.statuses[id] = append(u.statuses[id], st)
}

// saw reports whether an update of id was delivered once id had status.
// Updates coalesce, so their number says nothing.
func (u *updates) saw(id string, status Status) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Contains(u.statuses[id], status)
}

func (u *updates) of(id string) []time.Time {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.times[id])
}

func start(t *testing.T) (*simulator.Server, *Hub, *updates) {
	fake := simtest.Start(t, simulator.WithToken(token))
	h := New(Options{URL: fake.EventsURL(), Token: token})
	u := &updates{h: h}
	h.OnUpdate(u.on)
	t.Cleanup(h.Close)
	return fake, h, u
}

func subscribe(t *testing.T, h *Hub, f Filter) string {
	t.Helper()
	info, err := h.Subscribe(context.Background(), f)
	if err != nil {
		t.Fatalf("subscribe %+v: %v", f, err)
	}
	return info.ID
}

// eventually polls cond until it holds, failing after a generous wait.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func read(t *testing.T, h *Hub, id, after string) Snapshot {
	t.Helper()
	s, err := h.Read(id, after)
	if err != nil {
		t.Fatalf("read %s: %v", id, err)
	}
	return s
}

func TestHubLifecycle(t *testing.T) {
	fake, h, u := start(t)
	if len(fake.Upgrades()) != 0 || h.State().Status != StatusNotConnected {
		t.Fatal("connected before the first subscribe")
	}
	all := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	group := subscribe(t, h, Filter{SelfID: simulator.SelfID, Types: []string{"message"}, GroupIDs: []int64{20001}})
	c := simtest.EventConn(t, fake, 0)
	if n := len(fake.Upgrades()); n != 1 || c.Header.Get("Authorization") != "Bearer "+token {
		t.Fatalf("%d upgrades, Authorization %q", n, c.Header.Get("Authorization"))
	}
	for _, ev := range []string{simulator.Heartbeat(), simulator.GroupMessage(20001, 1, "in"), simulator.GroupMessage(20002, 1, "out"), simulator.FriendRequest(5)} {
		if err := c.Send(ev); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "3 events buffered", func() bool { return len(read(t, h, all, "").Events) == 3 })
	g := read(t, h, group, "")
	if len(g.Events) != 1 || !strings.Contains(string(g.Events[0].Event), `"in"`) || g.Status != StatusConnected {
		t.Errorf("group resource: %+v", g)
	}
	eventually(t, "an update per resource", func() bool { return len(u.of(all)) > 0 && len(u.of(group)) > 0 })

	// Another account is refused while the connection serves this one.
	_, err := h.Subscribe(context.Background(), Filter{SelfID: 999})
	if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeReleaseFirst {
		t.Errorf("other account: %v", err)
	}
	if err := h.Release(group); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Read(group, ""); err == nil || err.(*Error).Code != CodeUnknownResource {
		t.Errorf("read after release: %v", err)
	}
	if err := h.Release(group); err == nil || err.(*Error).Code != CodeUnknownResource {
		t.Errorf("second release: %v", err)
	}
	if !c.Open() {
		t.Fatal("socket closed while a resource remains")
	}
	if err := h.Release(all); err != nil {
		t.Fatal(err)
	}
	if code, err := c.Wait(10 * time.Second); err != nil || code != websocket.StatusNormalClosure {
		t.Errorf("after the last release: close %v, %v", code, err)
	}
	if h.State().Status != StatusNotConnected {
		t.Errorf("state %+v", h.State())
	}
	// A new subscribe opens a new connection.
	subscribe(t, h, Filter{SelfID: simulator.SelfID})
	simtest.EventConn(t, fake, 1)
}

func TestHubStops(t *testing.T) {
	for _, tc := range []struct {
		name   string
		send   func(c *simulator.EventConn) error
		status Status
		reason string
		code   websocket.StatusCode
	}{
		{"mismatch", func(c *simulator.EventConn) error {
			return c.Send(strings.Replace(simulator.PrivateMessage(1, "x"), `"self_id":10001`, `"self_id":10002`, 1))
		}, StatusStopped, "self_id 10002", websocket.StatusPolicyViolation},
		{"malformed", func(c *simulator.EventConn) error { return c.Send(`[1,2]`) }, StatusStopped, "malformed", websocket.StatusInvalidFramePayloadData},
		{"no post_type", func(c *simulator.EventConn) error { return c.Send(`{"self_id":10001}`) }, StatusStopped, "malformed", websocket.StatusInvalidFramePayloadData},
		{"oversized", func(c *simulator.EventConn) error {
			return c.Send(`{"post_type":"notice","self_id":10001,"pad":"` + strings.Repeat("x", MaxFrame) + `"}`)
		}, StatusStopped, "256 KiB", websocket.StatusMessageTooBig},
		{"binary", func(c *simulator.EventConn) error { return c.SendBinary([]byte("{}")) }, StatusStopped, "binary", websocket.StatusUnsupportedData},
		{"server close", func(c *simulator.EventConn) error { return c.Close(websocket.StatusGoingAway) }, StatusDisconnected, "status 1001", -1},
		{"shutdown", func(c *simulator.EventConn) error { return c.Shutdown() }, StatusDisconnected, "lifecycle disable", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake, h, u := start(t)
			id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
			c := simtest.EventConn(t, fake, 0)
			if err := c.Send(simulator.PrivateMessage(7, "kept")); err != nil {
				t.Fatal(err)
			}
			eventually(t, "first event", func() bool { return len(read(t, h, id, "").Events) == 1 })
			tc.send(c)
			eventually(t, "status "+string(tc.status), func() bool { return read(t, h, id, "").Status == tc.status })
			s := read(t, h, id, "")
			if !strings.Contains(s.StatusReason, tc.reason) || len(s.Events) != 1 {
				t.Errorf("status_reason %q (want %q), %d events", s.StatusReason, tc.reason, len(s.Events))
			}
			code, err := c.Wait(10 * time.Second)
			if err != nil || (tc.code != -1 && code != tc.code) {
				t.Errorf("close code %v (want %v), %v", code, tc.code, err)
			}
			eventually(t, "an update telling the new status", func() bool { return u.saw(id, tc.status) })
			// No silent reconnect: subscribing again needs a release first.
			_, err = h.Subscribe(context.Background(), Filter{SelfID: simulator.SelfID})
			if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeReleaseFirst || !strings.Contains(e.Message, string(tc.status)) {
				t.Errorf("subscribe after the end: %v", err)
			}
			if n := len(fake.Upgrades()); n != 1 {
				t.Errorf("%d upgrades", n)
			}
			if err := h.Release(id); err != nil {
				t.Fatal(err)
			}
			subscribe(t, h, Filter{SelfID: simulator.SelfID})
			simtest.EventConn(t, fake, 1)
		})
	}
}

func TestHubLimitsAndClose(t *testing.T) {
	fake, h, _ := start(t)
	var ids []string
	for range MaxResources {
		ids = append(ids, subscribe(t, h, Filter{SelfID: simulator.SelfID}))
	}
	_, err := h.Subscribe(context.Background(), Filter{SelfID: simulator.SelfID})
	if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeTooManyResources || !strings.Contains(e.NextStep, "unsubscribe_events") {
		t.Errorf("17th: %v", err)
	}
	if n := len(fake.Upgrades()); n != 1 {
		t.Errorf("%d upgrades for %d resources", n, MaxResources)
	}
	h.Release(ids[0])
	subscribe(t, h, Filter{SelfID: simulator.SelfID})
	h.Close()
	if code, err := simtest.EventConn(t, fake, 0).Wait(10 * time.Second); err != nil || code != websocket.StatusNormalClosure {
		t.Errorf("after Close: %v %v", code, err)
	}
	if _, err := h.Read(ids[1], ""); err == nil {
		t.Error("resource survives Close")
	}
	if _, err := h.Subscribe(context.Background(), Filter{SelfID: simulator.SelfID}); err == nil || err.(*Error).Code != CodeClosed {
		t.Errorf("subscribe after Close: %v", err)
	}
}

func TestDialFailures(t *testing.T) {
	fake := simtest.Start(t, simulator.WithToken(token))
	h := New(Options{URL: fake.EventsURL(), Token: "wrong"})
	_, err := h.Subscribe(context.Background(), Filter{SelfID: 1})
	if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeUnauthorized || strings.Contains(e.Message, "wrong") {
		t.Errorf("bad token: %v", err)
	}
	if h.State().Status != StatusNotConnected {
		t.Errorf("state after a failed dial: %+v", h.State())
	}
	h = New(Options{URL: "ws://127.0.0.1:1/event", Token: token})
	if _, err := h.Subscribe(context.Background(), Filter{SelfID: 1}); err == nil || err.(*Error).Code != CodeConnect {
		t.Errorf("closed port: %v", err)
	}
}

func TestUpdatesCoalesce(t *testing.T) {
	fake, h, u := start(t)
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	c := simtest.EventConn(t, fake, 0)
	start := time.Now()
	for i := range 200 {
		if err := c.Send(simulator.PrivateMessage(1, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "200 events", func() bool { return len(read(t, h, id, "").Events) == 200 })
	eventually(t, "an update after the last event", func() bool {
		ts := u.of(id)
		return len(ts) > 0 && ts[len(ts)-1].After(time.Now().Add(-time.Hour))
	})
	// Wait for the pending update, if any, to have fired and been seen.
	eventually(t, "no update pending", func() bool {
		h.mu.Lock()
		_, r, err := h.find(id)
		pending, last := err == nil && r.pending, time.Time{}
		if err == nil {
			last = r.lastUpdate
		}
		h.mu.Unlock()
		ts := u.of(id)
		return !pending && len(ts) > 0 && !ts[len(ts)-1].Before(last)
	})
	ts := u.of(id)
	// Coalescing: the hub starts updates at least UpdateInterval apart, so
	// however the callbacks are scheduled, n updates that all started
	// after start and were seen by end need (n-1) intervals between them.
	// (Gaps between two callbacks' own timestamps can look shorter when the
	// first one ran late, so they are not compared.)
	if span := ts[len(ts)-1].Sub(start); time.Duration(len(ts)-1)*UpdateInterval > span {
		t.Errorf("%d updates within %v: not coalesced to one per %v", len(ts), span, UpdateInterval)
	}
}

func TestSnapshotJSON(t *testing.T) {
	r := newResource(t)
	r.filter, _ = Filter{SelfID: 1}.Normalize()
	r.add([]byte(`{"post_type":"notice","n":12345678901234567890}`))
	b, err := json.Marshal(r.snapshot(0))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	for _, k := range []string{"events", "status", "status_reason", "next_cursor", "oldest_cursor", "dropped_events", "gap", "notification_failed", "filter"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in %s", k, b)
		}
	}
	if !strings.Contains(string(m["events"]), `12345678901234567890`) {
		t.Errorf("event not exactly as received: %s", m["events"])
	}
}

func TestScanDepthLimit(t *testing.T) {
	for _, n := range []int{9998, 9999, 10000} {
		raw := []byte(`{"post_type":"notice","a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		_, err := parseFrame(raw)
		if (err == nil) != json.Valid(raw) {
			t.Errorf("nesting %d: parseFrame %v, json.Valid %v", n+1, err, json.Valid(raw))
		}
	}
}
