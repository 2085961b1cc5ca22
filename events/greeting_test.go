package events

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// refusal subscribes on h and returns the refusal, failing the test when
// there is none.
func refusal(t *testing.T, h *Hub) *Error {
	t.Helper()
	_, err := h.Subscribe(context.Background(), Filter{SelfID: simulator.SelfID})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("subscribe: %v, want a refusal", err)
	}
	if h.State().Status != StatusNotConnected {
		t.Errorf("state after a refusal: %+v", h.State())
	}
	return e
}

// TestRefusedTokenAfterUpgrade: SnowLuma upgrades first and closes with
// 1008 when the token is wrong; that is unauthorized, not connected.
func TestRefusedTokenAfterUpgrade(t *testing.T) {
	fake := simtest.Start(t, simulator.WithToken("http-token"), simulator.WithEventsToken(token))
	e := refusal(t, New(Options{URL: fake.EventsURL(), Token: "http-token"}))
	if e.Code != CodeUnauthorized || !strings.Contains(e.Message, "1008") || !strings.Contains(e.Message, `"invalid access token"`) ||
		!strings.Contains(e.NextStep, "SNOWLUMA_MCP_EVENTS_TOKEN") || strings.Contains(e.Message+e.NextStep, "http-token") {
		t.Errorf("wrong token: %+v", e)
	}
	if n := len(fake.Upgrades()); n != 1 || len(fake.EventConns()) != 0 {
		t.Errorf("%d upgrades, %d accepted", n, len(fake.EventConns()))
	}
	// No token at all is refused the same way.
	if e := refusal(t, New(Options{URL: fake.EventsURL()})); e.Code != CodeUnauthorized {
		t.Errorf("no token: %+v", e)
	}

	// The WebSocket server's own token is accepted, and the answer comes
	// with the greeting, not after a wait.
	h := New(Options{URL: fake.EventsURL(), Token: token})
	t.Cleanup(h.Close)
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	if s := read(t, h, id, ""); s.Status != StatusConnected || !strings.Contains(s.StatusReason, "greeted") {
		t.Errorf("with the WebSocket token: %+v", s)
	}
	if got := simtest.EventConn(t, fake, 0).Header.Get("Authorization"); got != "Bearer "+token {
		t.Errorf("Authorization %q", got)
	}
}

// quietServer is a WebSocket server that accepts every upgrade, sends
// frames, then stays open and silent until the test ends. It returns its
// ws:// URL.
func quietServer(t *testing.T, frames ...string) string {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for _, f := range frames {
			ws.Write(r.Context(), websocket.MessageText, []byte(f))
		}
		go ws.Read(context.Background())
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestOtherCloseBeforeGreeting: any other close right after the upgrade is
// a connect failure that gives SnowLuma's close code and reason.
func TestOtherCloseBeforeGreeting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ws.Close(websocket.StatusTryAgainLater, "busy\x00 now")
	}))
	t.Cleanup(srv.Close)
	e := refusal(t, New(Options{URL: "ws" + strings.TrimPrefix(srv.URL, "http")}))
	if e.Code != CodeConnect || !strings.Contains(e.Message, "status 1013") || !strings.Contains(e.Message, `reason "busy now"`) {
		t.Errorf("close 1013: %+v", e)
	}
}

// TestNoGreeting: a server that upgrades and sends nothing is taken as
// open once GreetingWait passes with the socket up, and says so.
func TestNoGreeting(t *testing.T) {
	url := quietServer(t)
	h := New(Options{URL: url})
	t.Cleanup(h.Close)
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	if s := read(t, h, id, ""); s.Status != StatusConnected || !strings.Contains(s.StatusReason, "nothing arrived") {
		t.Errorf("without a greeting: %+v", s)
	}

	// A caller's deadline shorter than the wait ends the subscribe.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	h2 := New(Options{URL: url})
	_, err := h2.Subscribe(ctx, Filter{SelfID: simulator.SelfID})
	if e := (*Error)(nil); !errors.As(err, &e) || (e.Code != CodeTimeout && e.Code != CodeConnect) || h2.State().Status != StatusNotConnected {
		t.Errorf("deadline while waiting: %v", err)
	}
}

// TestGreetingOfAnotherAccount: a greeting with another self_id refuses
// the subscribe, since every later event would stop the connection.
func TestGreetingOfAnotherAccount(t *testing.T) {
	fake := simtest.Start(t, simulator.WithToken(token))
	h := New(Options{URL: fake.EventsURL(), Token: token})
	_, err := h.Subscribe(context.Background(), Filter{SelfID: 4242})
	e := (*Error)(nil)
	if !errors.As(err, &e) || h.State().Status != StatusNotConnected {
		t.Fatalf("another account: %v, %+v", err, h.State())
	}
	if e.Code != CodeConnect || !strings.Contains(e.Message, "self_id 10001") || !strings.Contains(e.NextStep, "self_id") {
		t.Errorf("another account: %+v", e)
	}
}

// TestStall: a connection from which nothing arrives for StallHeartbeats
// announced intervals is dropped, whether SnowLuma falls silent or stops
// inside a frame.
func TestStall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stall func(c *simulator.EventConn) error
	}{
		{"silence", func(c *simulator.EventConn) error { c.Stall(); return nil }},
		{"inside a frame", func(c *simulator.EventConn) error { return c.StallInFrame(4096) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const beat = 200 * time.Millisecond
			fake := simtest.Start(t, simulator.WithToken(token), simulator.WithHeartbeat(beat))
			h := New(Options{URL: fake.EventsURL(), Token: token})
			t.Cleanup(h.Close)
			id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
			c := simtest.EventConn(t, fake, 0)
			if err := c.Send(simulator.PrivateMessage(7, "kept")); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the event", func() bool { return len(read(t, h, id, "").Events) == 1 })
			if err := tc.stall(c); err != nil {
				t.Fatal(err)
			}
			eventually(t, "disconnected", func() bool { return read(t, h, id, "").Status == StatusDisconnected })
			s := read(t, h, id, "")
			if !strings.Contains(s.StatusReason, "stalled") || !strings.Contains(s.StatusReason, "600ms") || !strings.Contains(s.StatusReason, "announced heartbeat interval of 200ms") || len(s.Events) != 1 {
				t.Errorf("after the stall: %+v", s)
			}
			if _, err := c.Wait(10 * time.Second); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestStallAfterAnnouncingHeartbeat: the heartbeat that announces an
// interval also re-arms the watchdog with it. A server that greets,
// announces 200 ms and falls silent is dropped after 600 ms, not after
// StallHeartbeats times the 30 s assumed before the announcement.
func TestStallAfterAnnouncingHeartbeat(t *testing.T) {
	h := New(Options{URL: quietServer(t,
		fmt.Sprintf(`{"self_id":%d,"post_type":"meta_event","meta_event_type":"lifecycle","sub_type":"connect"}`, simulator.SelfID),
		fmt.Sprintf(`{"self_id":%d,"post_type":"meta_event","meta_event_type":"heartbeat","interval":200}`, simulator.SelfID))})
	t.Cleanup(h.Close)
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	eventually(t, "disconnected", func() bool { return read(t, h, id, "").Status == StatusDisconnected })
	if s := read(t, h, id, ""); !strings.Contains(s.StatusReason, "600ms") {
		t.Errorf("after the stall: %+v", s)
	}
}

// TestRedirectNotFollowed: a 3xx to the upgrade fails, naming where it
// pointed, and nothing reaches that place.
func TestRedirectNotFollowed(t *testing.T) {
	elsewhere := simtest.Start(t)
	fake := simtest.Start(t, simulator.WithToken(token), simulator.WithEventsRedirect(elsewhere.EventsURL()+"?access_token=leak"))
	e := refusal(t, New(Options{URL: fake.EventsURL(), Token: token}))
	target := elsewhere.EventsURL()
	if e.Code != CodeConnect || !strings.Contains(e.Message, "HTTP 307") || !strings.Contains(e.Message, target) || strings.Contains(e.Message, "leak") {
		t.Errorf("redirect: %+v (want %s)", e, target)
	}
	if n := len(fake.Upgrades()); n != 1 {
		t.Errorf("%d upgrades at the configured server", n)
	}
	if n := len(elsewhere.Upgrades()); n != 0 {
		t.Errorf("the redirect was followed: %d upgrades elsewhere", n)
	}
}

// TestBadPath: SnowLuma refuses an upgrade to a path it does not serve
// with HTTP 400; the refusal says so and gives SnowLuma's default.
func TestBadPath(t *testing.T) {
	fake := simtest.Start(t, simulator.WithToken(token))
	e := refusal(t, New(Options{URL: fake.EventsURL() + "event", Token: token}))
	if e.Code != CodeConnect || !strings.Contains(e.Message, "HTTP 400") || !strings.Contains(e.Message, `"Bad path for WebSocket"`) ||
		!strings.Contains(e.Message, `"/event"`) || !strings.Contains(e.NextStep, "default is /") {
		t.Errorf("bad path: %+v", e)
	}
}
