package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// liveEvents starts a fake SnowLuma and a snowluma-mcp in mode with
// SNOWLUMA_MCP_EVENTS_URL pointing at the fake's event WebSocket.
func liveEvents(t *testing.T, era mcptest.Era, mode string, opts *mcp.ClientOptions, env ...string) (*simulator.Server, *mcptest.Proc, *mcp.ClientSession) {
	t.Helper()
	fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
	p := serve(t, era, append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken,
		"SNOWLUMA_MCP_MODE=" + mode, "SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL()}, env...)...)
	cs := p.Connect(opts)
	t.Cleanup(func() { e2e.NoLeak(t, p) })
	return fake, p, cs
}

func push(t *testing.T, c *simulator.EventConn, frames ...string) {
	t.Helper()
	for _, f := range frames {
		if err := c.Send(f); err != nil {
			t.Fatalf("pushing an event: %v", err)
		}
	}
}

// bundledResources returns the resources every server lists, by URI: the
// failure vocabulary and the catalog.
func bundledResources() []string {
	return []string{"snowluma://mcp/failure-kinds", "snowluma://onebot/actions"}
}

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(mcptest.Context(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cs.InitializeResult().ProtocolVersion == string(mcptest.Modern) && (res.TTLMs != 0 || res.CacheScope != "private") {
		t.Errorf("resources/list cache hint %d %q with events enabled, want 0 private", res.TTLMs, res.CacheScope)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	return uris
}

type eventsRuntime struct {
	EventsEnabled bool `json:"events_enabled"`
	Events        *struct {
		Status       string `json:"status"`
		StatusReason string `json:"status_reason"`
		Resources    int    `json:"resources"`
	} `json:"events"`
}

func runtimeEvents(t *testing.T, cs *mcp.ClientSession) eventsRuntime {
	t.Helper()
	_, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
	return mcptest.Decode[eventsRuntime](t, r.Result)
}

func TestEventsNotConfigured(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		_, _, cs := e2e.Live(t, serve, era, "write", nil)
		if names := e2e.ToolNames(t, cs); slices.Contains(names, "subscribe_events") || slices.Contains(names, "unsubscribe_events") {
			t.Errorf("event tools listed without an events URL: %v", names)
		}
		for _, tool := range []string{"subscribe_events", "unsubscribe_events"} {
			res, r := mcptest.CallTool(t, cs, tool, map[string]any{"self_id": 1})
			if !res.IsError || r.Diagnostics.Kind != "not_configured" || !strings.Contains(r.Diagnostics.NextStep, "SNOWLUMA_MCP_EVENTS_URL") {
				t.Errorf("%s without an events URL: %+v", tool, r.Diagnostics)
			}
		}
		if rt := runtimeEvents(t, cs); rt.EventsEnabled || rt.Events != nil {
			t.Errorf("runtime %+v", rt)
		}

		// Docs mode stays offline whatever the events URL says.
		fake := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		p := serve(t, era, "SNOWLUMA_MCP_EVENTS_URL="+fake.EventsURL())
		docs := p.Connect(nil)
		if names := e2e.ToolNames(t, docs); slices.Contains(names, "subscribe_events") {
			t.Errorf("docs mode lists subscribe_events")
		}
		res, r := mcptest.CallTool(t, docs, "subscribe_events", map[string]any{"self_id": simulator.SelfID})
		if !res.IsError || r.Diagnostics.Kind != "mode_gate" {
			t.Errorf("docs-mode subscribe: %+v", r.Diagnostics)
		}
		if n := len(fake.Upgrades()); n != 0 {
			t.Errorf("docs mode opened %d event connections", n)
		}
		p.Close()
		if !strings.Contains(p.Stderr(), "SNOWLUMA_MCP_EVENTS_URL ignored") {
			t.Errorf("no start-up note: %s", p.Stderr())
		}
	})
}

func TestEventsSubscribeFilterRead(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := liveEvents(t, era, "read", nil)
		names := e2e.ToolNames(t, cs)
		if !slices.Contains(names, "subscribe_events") || !slices.Contains(names, "unsubscribe_events") {
			t.Fatalf("tools %v", names)
		}
		if uris := resourceURIs(t, cs); !slices.Equal(uris, bundledResources()) {
			t.Errorf("resources before subscribing: %v", uris)
		}
		if rt := runtimeEvents(t, cs); !rt.EventsEnabled || rt.Events == nil || rt.Events.Status != "not_connected" {
			t.Errorf("runtime before subscribing: %+v", rt)
		}
		if n := len(fake.Upgrades()); n != 0 {
			t.Fatalf("%d event connections before the first subscribe", n)
		}

		// Bad filters change nothing.
		for _, bad := range []map[string]any{
			{"self_id": 0}, {"types": []string{"meta_event"}}, {"group_ids": []int{-1}}, {"self_id": 1, "extra": true},
			{"user_ids": func() []int {
				ids := make([]int, 101)
				for i := range ids {
					ids[i] = i + 1
				}
				return ids
			}()},
		} {
			if bad["self_id"] == nil {
				bad["self_id"] = simulator.SelfID
			}
			res, r := mcptest.CallTool(t, cs, "subscribe_events", bad)
			if !res.IsError || r.Diagnostics.Kind != "invalid_arguments" {
				t.Errorf("subscribe %v: %+v", bad, r.Diagnostics)
			}
		}
		if n := len(fake.Upgrades()); n != 0 {
			t.Fatalf("a refused subscribe connected")
		}

		all := e2e.SubscribeEvents(t, cs, map[string]any{})
		c := simtest.EventConn(t, fake, 0)
		if got := c.Header.Get("Authorization"); got != "Bearer "+e2e.SecretToken {
			t.Errorf("upgrade Authorization %q", got)
		}
		_, r := mcptest.CallTool(t, cs, "subscribe_events", map[string]any{"self_id": simulator.SelfID, "types": []string{"request", "notice", "notice"}, "group_ids": []int{20001, 20002, 20001}})
		applied := mcptest.Decode[struct {
			Filter struct {
				Types    []string `json:"types"`
				GroupIDs []int64  `json:"group_ids"`
				UserIDs  []int64  `json:"user_ids"`
			} `json:"filter"`
		}](t, r.Result).Filter
		if !slices.Equal(applied.Types, []string{"notice", "request"}) || !slices.Equal(applied.GroupIDs, []int64{20001, 20002}) || applied.UserIDs != nil {
			t.Errorf("filter as applied: %+v", applied)
		}
		noticeReq := mcptest.Decode[struct {
			URI string `json:"uri"`
		}](t, r.Result).URI
		group := e2e.SubscribeEvents(t, cs, map[string]any{"group_ids": []int{20001}})
		both := e2e.SubscribeEvents(t, cs, map[string]any{"types": []string{"message"}, "group_ids": []int{20001}, "user_ids": []int{30001}})
		if n := len(fake.Upgrades()); n != 1 {
			t.Errorf("%d event connections for 4 resources", n)
		}
		uris := resourceURIs(t, cs)
		for _, u := range []string{all, noticeReq, group, both} {
			if !slices.Contains(uris, u) {
				t.Errorf("resources/list %v lacks %s", uris, u)
			}
		}

		sentMsg := `{"time":1700000001,"self_id":10001,"post_type":"message_sent","message_type":"group","group_id":20001,"user_id":10001,"message_id":9,"message":"<b>&amp;</b>","raw_message":"<b>&amp;</b>",  "sender":{"user_id":10001}}`
		frames := []string{
			simulator.Heartbeat(),
			simulator.GroupMessage(20001, 30001, "one"),
			simulator.GroupMessage(20001, 30002, "two"),
			simulator.GroupMessage(20002, 30001, "three"),
			simulator.PrivateMessage(30001, "four"),
			simulator.GroupIncrease(20001, 30003),
			simulator.FriendRequest(30001),
			sentMsg,
		}
		push(t, c, frames...)
		got := e2e.WaitRead(t, cs, e2e.Raw(all), "7 account events", func(r e2e.EventsRead) bool { return len(r.Events) == 7 })
		// Each event's bytes as sent, except that '<' and '>' are written
		// as JSON escapes, so that no markup reaches the model (issue 37).
		inert := strings.NewReplacer("<", `\u003c`, ">", `\u003e`)
		for i, e := range got.Events {
			if string(e.Event) != inert.Replace(frames[i+1]) {
				t.Errorf("event %d not as sent:\n got %s\nwant %s", i, e.Event, frames[i+1])
			}
		}
		if got.Status != "connected" || got.Gap || got.DroppedEvents != 0 || got.NotificationFailed || got.OldestCursor == nil || *got.OldestCursor != got.Events[0].Cursor {
			t.Errorf("read: %+v", got)
		}
		// By default the same read holds the messages as lines, each
		// naming its chat (they are of four), and the notice and the
		// request as SnowLuma sent them, with the same cursors.
		lines := e2e.MustRead(t, cs, all)
		if lines.N() != 7 || len(lines.Events) != 2 || lines.Events[0].Cursor != got.Events[4].Cursor || string(lines.Events[1].Event) != string(got.Events[5].Event) ||
			lines.NextCursor != got.NextCursor || *lines.OldestCursor != *got.OldestCursor {
			t.Errorf("the read as lines: %+v", lines)
		}
		for _, want := range []string{" group:20001 ", "(30001) #", ": one\n", ": two\n", " group:20002 ", ": three\n", " private:30001 ", ": four\n", "(10001)[bot] #9: "} {
			if !strings.Contains(lines.Lines, want) {
				t.Errorf("lines lack %q:\n%s", want, lines.Lines)
			}
		}
		if n := strings.Count(lines.Lines, "\n"); n != 6 { // five messages and one date
			t.Errorf("%d lines:\n%s", n, lines.Lines)
		}
		if after := e2e.MustRead(t, cs, all+"?after="+got.Events[2].Cursor); after.N() != 4 || strings.Contains(after.Lines, ": three\n") || !strings.Contains(after.Lines, ": four\n") {
			t.Errorf("lines after the third: %+v", after)
		}
		count := func(uri string) []string {
			var texts []string
			for _, e := range e2e.MustRead(t, cs, e2e.Raw(uri)).Events {
				var ev struct {
					PostType string `json:"post_type"`
					Raw      string `json:"raw_message"`
					Notice   string `json:"notice_type"`
					Request  string `json:"request_type"`
				}
				json.Unmarshal(e.Event, &ev)
				texts = append(texts, ev.PostType+":"+ev.Raw+ev.Notice+ev.Request)
			}
			return texts
		}
		if got := count(noticeReq); !slices.Equal(got, []string{"notice:group_increase"}) {
			t.Errorf("notice+request in groups 20001/20002: %v", got)
		}
		if got := count(group); !slices.Equal(got, []string{"message:one", "message:two", "notice:group_increase", "message_sent:<b>&amp;</b>"}) {
			t.Errorf("group 20001: %v", got)
		}
		if got := count(both); !slices.Equal(got, []string{"message:one"}) {
			t.Errorf("messages in 20001 from 30001: %v", got)
		}

		// Cursors: after returns only newer entries; next_cursor returns none.
		after := e2e.MustRead(t, cs, e2e.Raw(all+"?after="+got.Events[2].Cursor))
		if len(after.Events) != 4 || string(after.Events[0].Event) != frames[4] || after.Gap {
			t.Errorf("after the third: %d events, gap %v", len(after.Events), after.Gap)
		}
		if none := e2e.MustRead(t, cs, all+"?after="+got.NextCursor); none.N() != 0 || none.NextCursor != got.NextCursor || none.Gap {
			t.Errorf("after next_cursor: %+v", none)
		}
		push(t, c, simulator.PrivateMessage(5, "later"))
		if newer := e2e.WaitRead(t, cs, e2e.Raw(all+"?after="+got.NextCursor), "the later event", func(r e2e.EventsRead) bool { return r.N() == 1 }); !strings.Contains(string(newer.Events[0].Event), "later") {
			t.Errorf("newer: %s", newer.Events[0].Event)
		}
		// Reads never consume.
		if again := e2e.MustRead(t, cs, all); again.N() != 8 {
			t.Errorf("a second read holds %d events", again.N())
		}
		for _, tc := range []struct{ uri, want string }{
			{group + "?after=" + got.Events[0].Cursor, "another event resource"},
			{all + "?after=not-a-cursor", "not a cursor"},
			{all + "?since=1", "only after"},
			{all + "?format=json", "format must be"},
			{e2e.EventsPrefix + "0123456789abcdef", "no live event resource"},
		} {
			if _, err := e2e.ReadEvents(t, cs, tc.uri); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("read %s: %v, want %q", tc.uri, err, tc.want)
			}
		}
		if rt := runtimeEvents(t, cs); rt.Events == nil || rt.Events.Status != "connected" || rt.Events.Resources != 4 {
			t.Errorf("runtime: %+v", rt.Events)
		}

		// Release: the socket stays up until the last resource goes.
		res, r := mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": all + "?after=" + got.NextCursor})
		if !res.IsError || r.Diagnostics.Kind != "invalid_arguments" {
			t.Errorf("unsubscribe with ?after: %+v", r.Diagnostics)
		}
		for i, u := range []string{all, noticeReq, group} {
			res, r := mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": u})
			if res.IsError || mcptest.Decode[struct {
				Remaining int `json:"remaining_resources"`
			}](t, r.Result).Remaining != 3-i {
				t.Fatalf("unsubscribe %s: %s %+v", u, r.Result, r.Diagnostics)
			}
		}
		if !c.Open() {
			t.Fatal("the socket closed while a resource remains")
		}
		if _, err := e2e.ReadEvents(t, cs, all); err == nil {
			t.Error("a released resource is still readable")
		}
		mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": both})
		if code, err := c.Wait(15 * time.Second); err != nil || code != websocket.StatusNormalClosure {
			t.Errorf("after the last release: close %v %v", code, err)
		}
		res, r = mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": both})
		if !res.IsError || r.Diagnostics.Kind != "unknown_resource" {
			t.Errorf("second unsubscribe: %+v", r.Diagnostics)
		}
		if uris := resourceURIs(t, cs); !slices.Equal(uris, bundledResources()) {
			t.Errorf("resources after releasing all: %v", uris)
		}
		if n := len(fake.Requests()); n != 0 {
			t.Errorf("event operations sent %d actions", n)
		}
	})
}

func TestEventsCaps(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := liveEvents(t, era, "read", nil)
		msgs := e2e.SubscribeEvents(t, cs, map[string]any{"types": []string{"message"}})
		notices := e2e.SubscribeEvents(t, cs, map[string]any{"types": []string{"notice"}})
		// A friend request after each batch marks its end. The hub adds a
		// connection's events in order, so once a mark is read its batch
		// is in: the test polls the marks, not the batch's resource, whose
		// every read would carry up to a megabyte.
		marks := e2e.SubscribeEvents(t, cs, map[string]any{"types": []string{"request"}})
		c := simtest.EventConn(t, fake, 0)
		batchIn := func(n int, what string) {
			push(t, c, simulator.FriendRequest(int64(n)))
			e2e.WaitRead(t, cs, marks, what, func(r e2e.EventsRead) bool { return len(r.Events) == n })
		}
		first := e2e.MustRead(t, cs, msgs).NextCursor
		for i := range 300 {
			push(t, c, simulator.PrivateMessage(1, fmt.Sprint(i)))
		}
		batchIn(1, "300 events seen")
		r := e2e.MustRead(t, cs, e2e.Raw(msgs))
		if r.DroppedEvents != 300-256 || len(r.Events) != 256 || !r.Gap || !strings.Contains(string(r.Events[0].Event), `"raw_message":"44"`) {
			t.Errorf("after 300 events: %d held, gap %v, oldest %s", len(r.Events), r.Gap, r.Events[0].Event)
		}
		if r := e2e.MustRead(t, cs, e2e.Raw(msgs+"?after="+first)); !r.Gap || len(r.Events) != 256 {
			t.Errorf("after a cursor whose successors were evicted: gap %v, %d events", r.Gap, len(r.Events))
		}
		if r := e2e.MustRead(t, cs, e2e.Raw(msgs+"?after="+r.Events[10].Cursor)); r.Gap || len(r.Events) != 245 {
			t.Errorf("after a held cursor: gap %v, %d events", r.Gap, len(r.Events))
		}

		pad := strings.Repeat("x", 200<<10)
		for i := range 8 {
			push(t, c, fmt.Sprintf(`{"time":1,"self_id":10001,"post_type":"notice","notice_type":"notify","n":%d,"pad":%q}`, i, pad))
		}
		batchIn(2, "8 large notices seen")
		r = e2e.MustRead(t, cs, notices)
		held := 0
		for _, e := range r.Events {
			held += len(e.Event)
		}
		if r.DroppedEvents != 3 || len(r.Events) != 5 || held > 1<<20 || !r.Gap || !strings.Contains(string(r.Events[0].Event), `"n":3`) {
			t.Errorf("1 MiB cap: %d events of %d bytes, gap %v", len(r.Events), held, r.Gap)
		}

		for range 13 {
			e2e.SubscribeEvents(t, cs, map[string]any{})
		}
		res, tr := mcptest.CallTool(t, cs, "subscribe_events", map[string]any{"self_id": simulator.SelfID})
		if !res.IsError || tr.Diagnostics.Kind != "too_many_resources" || !strings.Contains(tr.Diagnostics.NextStep, "unsubscribe_events") {
			t.Errorf("17th resource: %+v", tr.Diagnostics)
		}
		if n := len(fake.Upgrades()); n != 1 {
			t.Errorf("%d connections for 16 resources", n)
		}
		mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": msgs})
		e2e.SubscribeEvents(t, cs, map[string]any{})
	})
}

func TestEventsConnectionEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		end    func(c *simulator.EventConn) error
		status string
		reason string
	}{
		{"account mismatch", func(c *simulator.EventConn) error {
			return c.Send(strings.Replace(simulator.PrivateMessage(1, "x"), `"self_id":10001`, `"self_id":20002`, 1))
		}, "stopped", "self_id 20002"},
		{"malformed", func(c *simulator.EventConn) error { return c.Send(`{"self_id":10001,"message":"no post_type"}`) }, "stopped", "malformed"},
		{"not an object", func(c *simulator.EventConn) error { return c.Send(`"hello"`) }, "stopped", "malformed"},
		{"oversized", func(c *simulator.EventConn) error {
			return c.Send(`{"self_id":10001,"post_type":"notice","pad":"` + strings.Repeat("y", 256<<10) + `"}`)
		}, "stopped", "256 KiB"},
		{"server close", func(c *simulator.EventConn) error { return c.Close(websocket.StatusGoingAway) }, "disconnected", "closed the connection"},
		{"shutdown", func(c *simulator.EventConn) error { return c.Shutdown() }, "disconnected", "lifecycle disable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
				fake, _, cs := liveEvents(t, era, "read", nil)
				uri := e2e.SubscribeEvents(t, cs, map[string]any{})
				c := simtest.EventConn(t, fake, 0)
				push(t, c, simulator.PrivateMessage(7, "kept"))
				e2e.WaitRead(t, cs, uri, "the first event", func(r e2e.EventsRead) bool { return r.N() == 1 })
				tc.end(c)
				r := e2e.WaitRead(t, cs, uri, "status "+tc.status, func(r e2e.EventsRead) bool { return r.Status == tc.status })
				if !strings.Contains(r.StatusReason, tc.reason) || r.N() != 1 || !strings.Contains(r.Lines, ": kept\n") {
					t.Errorf("status_reason %q (want %q), %d events kept: %q", r.StatusReason, tc.reason, r.N(), r.Lines)
				}
				if _, err := c.Wait(15 * time.Second); err != nil {
					t.Error(err)
				}
				if rt := runtimeEvents(t, cs); rt.Events == nil || rt.Events.Status != tc.status {
					t.Errorf("runtime: %+v", rt.Events)
				}
				// No silent reconnect.
				res, tr := mcptest.CallTool(t, cs, "subscribe_events", map[string]any{"self_id": simulator.SelfID})
				if !res.IsError || tr.Diagnostics.Kind != "release_required" {
					t.Errorf("subscribe after the end: %+v", tr.Diagnostics)
				}
				if n := len(fake.Upgrades()); n != 1 {
					t.Errorf("%d connections", n)
				}
				mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": uri})
				e2e.SubscribeEvents(t, cs, map[string]any{})
				simtest.EventConn(t, fake, 1)
			})
		})
	}
}

// updates collects notifications/resources/updated.
type updates struct {
	mu    sync.Mutex
	times []time.Time
	metas []mcp.Meta
	uris  []string
}

func (u *updates) handler(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.times = append(u.times, time.Now())
	u.metas = append(u.metas, req.Params.Meta)
	u.uris = append(u.uris, req.Params.URI)
}

func (u *updates) snapshot() ([]time.Time, []mcp.Meta, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.times), slices.Clone(u.metas), slices.Clone(u.uris)
}

func TestEventsNotifications(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		u := &updates{}
		fake, p, cs := liveEvents(t, era, "read", &mcp.ClientOptions{ResourceUpdatedHandler: u.handler})
		uri := e2e.SubscribeEvents(t, cs, map[string]any{})
		other := e2e.SubscribeEvents(t, cs, map[string]any{"types": []string{"request"}})
		c := simtest.EventConn(t, fake, 0)

		// Only event resources, by their canonical URI, can be watched. The
		// SDK's 2026-07-28 Subscribe does not wait for the listen's answer,
		// so that era's refusals are read off the wire.
		for _, bad := range []struct{ uri, want string }{
			{"snowluma://onebot/actions", "only event resources"},
			{uri + "?after=x", "without ?after"},
			{e2e.EventsPrefix + "0011223344556677", "no live event resource"},
		} {
			err := cs.Subscribe(mcptest.Context(t), &mcp.SubscribeParams{URI: bad.uri})
			if era == mcptest.Legacy && (err == nil || !strings.Contains(err.Error(), bad.want)) {
				t.Errorf("subscribing to %s: %v, want %q", bad.uri, err, bad.want)
			}
			if era == mcptest.Modern {
				for deadline := time.Now().Add(15 * time.Second); !slices.ContainsFunc(p.Received(), func(l string) bool {
					return strings.Contains(l, `"error"`) && strings.Contains(l, bad.want)
				}); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("listen on %s was not refused", bad.uri)
					}
				}
			}
			cs.Unsubscribe(mcptest.Context(t), &mcp.UnsubscribeParams{URI: bad.uri})
		}

		listening := make(chan error, 1)
		if era == mcptest.Modern {
			// The SDK holds a subscriptions/listen stream open until
			// Unsubscribe; it is acknowledged before any update.
			go func() { listening <- cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}) }()
			for deadline := time.Now().Add(15 * time.Second); !slices.ContainsFunc(p.Received(), func(l string) bool {
				return strings.Contains(l, "notifications/subscriptions/acknowledged") && strings.Contains(l, uri)
			}); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no notifications/subscriptions/acknowledged for the event resource")
				}
			}
		} else if err := cs.Subscribe(mcptest.Context(t), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}

		start := time.Now()
		const burst = 60
		for i := range burst {
			push(t, c, simulator.PrivateMessage(1, fmt.Sprint(i)))
		}
		e2e.WaitRead(t, cs, uri, "the burst", func(r e2e.EventsRead) bool { return r.N() == burst })
		// The property below holds for every prefix of the updates, so
		// there is no quiet period to wait out: one update is enough.
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if ts, _, _ := u.snapshot(); len(ts) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no notifications/resources/updated")
			}
		}
		times, metas, uris := u.snapshot()
		// Coalescing: the server sends one update per resource per 100 ms
		// at most, so n updates need at least (n-1)×100 ms after the first
		// event was pushed, however slow the machine is.
		if span := times[len(times)-1].Sub(start); time.Duration(len(times)-1)*100*time.Millisecond > span {
			t.Errorf("%d updates within %v: not coalesced to one per 100 ms", len(times), span)
		}
		for i, got := range uris {
			if got != uri {
				t.Errorf("update for %s, which this client did not subscribe to", got)
			}
			if _, ok := metas[i]["io.modelcontextprotocol/subscriptionId"]; ok != (era == mcptest.Modern) {
				t.Errorf("update _meta %v: subscriptionId present %v in era %s", metas[i], ok, era)
			}
		}
		if r := e2e.MustRead(t, cs, uri); r.NotificationFailed {
			t.Error("notification_failed after delivered updates")
		}

		cs.Unsubscribe(mcptest.Context(t), &mcp.UnsubscribeParams{URI: uri})
		if era == mcptest.Modern {
			if err := mcptest.Await(t, "the listen stream to end", listening); err != nil && !strings.Contains(err.Error(), "context canceled") {
				t.Errorf("listen ended with %v", err)
			}
			// Closing the listen stream keeps the buffer.
			if r := e2e.MustRead(t, cs, uri); r.N() != burst {
				t.Errorf("after closing the listen stream: %d events", r.N())
			}
			mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": uri})
		}
		// Legacy resources/unsubscribe releases, as unsubscribe_events does.
		if _, err := e2e.ReadEvents(t, cs, uri); err == nil {
			t.Error("the resource survives its release")
		}
		if !c.Open() {
			t.Error("the socket closed while a resource remains")
		}
		mcptest.CallTool(t, cs, "unsubscribe_events", map[string]any{"uri": other})
		if code, err := c.Wait(15 * time.Second); err != nil || code != websocket.StatusNormalClosure {
			t.Errorf("close %v %v", code, err)
		}
	})
}

func TestEventsSessionEnd(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p, cs := liveEvents(t, era, "write", nil)
		e2e.SubscribeEvents(t, cs, map[string]any{})
		e2e.SubscribeEvents(t, cs, map[string]any{"types": []string{"notice"}})
		c := simtest.EventConn(t, fake, 0)
		p.Close() // stdin closed: the session ends
		if code, err := c.Wait(15 * time.Second); err != nil || code != websocket.StatusNormalClosure {
			t.Errorf("after stdin closed: close %v %v", code, err)
		}
		if strings.Contains(p.Stderr(), "panic") {
			t.Errorf("stderr: %s", p.Stderr())
		}
	})
}

// TestEventsAllowlist: with the target allowlists set, a filter naming
// another group or user is refused, and events of other groups and users
// are never buffered, whatever the filter.
func TestEventsAllowlist(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := liveEvents(t, era, "read", nil, "SNOWLUMA_MCP_ALLOWED_GROUPS=20001", "SNOWLUMA_MCP_ALLOWED_USERS=30001,30002")
		for _, bad := range []map[string]any{{"group_ids": []int{20002}}, {"user_ids": []int{30001, 39999}}} {
			bad["self_id"] = simulator.SelfID
			res, r := mcptest.CallTool(t, cs, "subscribe_events", bad)
			if !res.IsError || r.Diagnostics.Kind != "target_not_allowed" {
				t.Errorf("subscribe %v: %+v", bad, r.Diagnostics)
			}
		}
		if n := len(fake.Upgrades()); n != 0 {
			t.Fatal("a refused subscribe connected")
		}
		all := e2e.SubscribeEvents(t, cs, map[string]any{})
		c := simtest.EventConn(t, fake, 0)
		push(t, c,
			simulator.GroupMessage(20001, 30001, "allowed"),
			simulator.GroupMessage(20002, 30001, "other group"),
			simulator.GroupMessage(20001, 39999, "other user"),
			simulator.PrivateMessage(39999, "other private"),
			simulator.PrivateMessage(30002, "allowed private"),
		)
		got := e2e.WaitRead(t, cs, e2e.Raw(all), "the allowed events", func(r e2e.EventsRead) bool { return len(r.Events) >= 2 })
		var texts []string
		for _, e := range got.Events {
			var ev struct {
				Raw string `json:"raw_message"`
			}
			json.Unmarshal(e.Event, &ev)
			texts = append(texts, ev.Raw)
		}
		if !slices.Equal(texts, []string{"allowed", "allowed private"}) {
			t.Errorf("buffered %v", texts)
		}
	})
}

// wsToken is the WebSocket server's own token in the tests where it
// differs from the HTTP one, as in SnowLuma's generated configuration.
const wsToken = "ws-tok-9f3c1d"

// liveEventsFake is liveEvents over a fake SnowLuma built with fakeOpts.
func liveEventsFake(t *testing.T, era mcptest.Era, fakeOpts []simulator.Option, env ...string) (*simulator.Server, *mcptest.Proc, *mcp.ClientSession) {
	t.Helper()
	fake := simtest.Start(t, append([]simulator.Option{simulator.WithToken(e2e.SecretToken)}, fakeOpts...)...)
	p := serve(t, era, append([]string{"SNOWLUMA_MCP_ENDPOINT=" + fake.URL, "SNOWLUMA_MCP_TOKEN=" + e2e.SecretToken,
		"SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_EVENTS_URL=" + fake.EventsURL()}, env...)...)
	cs := p.Connect(nil)
	t.Cleanup(func() {
		e2e.NoLeak(t, p)
		if strings.Contains(p.Stderr(), wsToken) || slices.ContainsFunc(p.Received(), func(l string) bool { return strings.Contains(l, wsToken) }) {
			t.Error("the WebSocket token left the server")
		}
	})
	return fake, p, cs
}

// refusedSubscribe calls subscribe_events, which must fail with kind, and
// checks that no resource came of it.
func refusedSubscribe(t *testing.T, cs *mcp.ClientSession, kind string) mcptest.ToolResult {
	t.Helper()
	res, r := mcptest.CallTool(t, cs, "subscribe_events", map[string]any{"self_id": simulator.SelfID})
	if !res.IsError || r.Diagnostics.Kind != kind {
		t.Fatalf("subscribe_events: %s %+v, want kind %s", r.Result, r.Diagnostics, kind)
	}
	if uris := resourceURIs(t, cs); !slices.Equal(uris, []string{"snowluma://mcp/failure-kinds", "snowluma://onebot/actions"}) {
		t.Errorf("resources after a refused subscribe: %v, want only the static ones", uris)
	}
	if rt := runtimeEvents(t, cs); rt.Events == nil || rt.Events.Status != "not_connected" {
		t.Errorf("runtime after a refused subscribe: %+v", rt.Events)
	}
	return r
}

// TestEventsWebSocketToken: SnowLuma's WebSocket server has a token of its
// own and checks it after the upgrade, closing with 1008. The HTTP token
// alone is refused as unauthorized (never connected);
// SNOWLUMA_MCP_EVENTS_TOKEN gives the right one.
func TestEventsWebSocketToken(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := liveEventsFake(t, era, []simulator.Option{simulator.WithEventsToken(wsToken)})
		r := refusedSubscribe(t, cs, "unauthorized")
		d := r.Diagnostics
		if !strings.Contains(d.Message, "1008") || !strings.Contains(d.Message, `"invalid access token"`) || !strings.Contains(d.NextStep, "SNOWLUMA_MCP_EVENTS_TOKEN") {
			t.Errorf("refusal: %+v", d)
		}
		if ups := fake.Upgrades(); len(ups) != 1 || ups[0].Get("Authorization") != "Bearer "+e2e.SecretToken || len(fake.EventConns()) != 0 {
			t.Errorf("%d upgrades, %d accepted", len(ups), len(fake.EventConns()))
		}

		fake2, _, cs2 := liveEventsFake(t, era, []simulator.Option{simulator.WithEventsToken(wsToken)}, "SNOWLUMA_MCP_EVENTS_TOKEN= "+wsToken+"\r\n")
		uri := e2e.SubscribeEvents(t, cs2, map[string]any{})
		c := simtest.EventConn(t, fake2, 0)
		if got := c.Header.Get("Authorization"); got != "Bearer "+wsToken {
			t.Errorf("upgrade Authorization %q", got)
		}
		push(t, c, simulator.PrivateMessage(30001, "over the WebSocket token"))
		e2e.WaitRead(t, cs2, uri, "the event", func(r e2e.EventsRead) bool { return r.N() == 1 })
		// The HTTP calls keep the HTTP token.
		if res, r := mcptest.CallTool(t, cs2, "query_action", map[string]any{"action": "get_login_info"}); res.IsError {
			t.Errorf("get_login_info: %+v", r.Diagnostics)
		}
		for _, rq := range fake2.Requests() {
			if rq.Header.Get("Authorization") != "Bearer "+e2e.SecretToken {
				t.Errorf("%s sent Authorization %q", rq.Action, rq.Header.Get("Authorization"))
			}
		}
		if len(fake2.Requests()) == 0 {
			t.Error("no HTTP call reached the fake")
		}
	})
}

// TestEventsBadPath: SnowLuma refuses an upgrade to a path it does not
// serve with HTTP 400; the refusal says so and names its default, /.
func TestEventsBadPath(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		probe := simtest.Start(t)
		_, _, cs := liveEventsFake(t, era, nil, "SNOWLUMA_MCP_EVENTS_URL="+strings.TrimSuffix(probe.EventsURL(), "/")+"/event")
		r := refusedSubscribe(t, cs, "transport")
		if d := r.Diagnostics; !strings.Contains(d.Message, "HTTP 400") || !strings.Contains(d.Message, `"/event" is not one SnowLuma`) || !strings.Contains(d.NextStep, "default is /") {
			t.Errorf("bad path: %+v", d)
		}
	})
}

// TestEventsStall: when nothing arrives for StallHeartbeats announced
// heartbeat intervals, the connection is disconnected as stalled, whether
// SnowLuma falls silent or stops inside a frame.
func TestEventsStall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		stall func(c *simulator.EventConn) error
	}{
		{"silence", func(c *simulator.EventConn) error { c.Stall(); return nil }},
		{"inside a frame", func(c *simulator.EventConn) error { return c.StallInFrame(2048) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
				fake, _, cs := liveEventsFake(t, era, []simulator.Option{simulator.WithHeartbeat(250 * time.Millisecond)})
				uri := e2e.SubscribeEvents(t, cs, map[string]any{})
				c := simtest.EventConn(t, fake, 0)
				push(t, c, simulator.PrivateMessage(7, "kept"))
				e2e.WaitRead(t, cs, uri, "the first event", func(r e2e.EventsRead) bool { return r.N() == 1 })
				if err := tc.stall(c); err != nil {
					t.Fatal(err)
				}
				r := e2e.WaitRead(t, cs, uri, "disconnected", func(r e2e.EventsRead) bool { return r.Status == "disconnected" })
				if !strings.Contains(r.StatusReason, "stalled") || !strings.Contains(r.StatusReason, "750ms") || r.N() != 1 {
					t.Errorf("status_reason %q, %d events", r.StatusReason, r.N())
				}
				rt := runtimeEvents(t, cs)
				if rt.Events == nil || rt.Events.Status != "disconnected" {
					t.Errorf("runtime: %+v", rt.Events)
				}
				if _, err := c.Wait(15 * time.Second); err != nil {
					t.Error(err)
				}
			})
		})
	}
}

// TestEventsLivenessReported: get_runtime_info names the liveness limits.
func TestEventsLivenessReported(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		_, _, cs := liveEventsFake(t, era, nil)
		_, r := mcptest.CallTool(t, cs, "get_runtime_info", map[string]any{})
		got := mcptest.Decode[struct {
			Events struct {
				GreetingWaitMS   int64 `json:"greeting_wait_ms"`
				StallHeartbeats  int   `json:"stall_after_heartbeats"`
				DefaultHeartbeat int64 `json:"default_heartbeat_interval_ms"`
			} `json:"events"`
		}](t, r.Result).Events
		if got.GreetingWaitMS != 2000 || got.StallHeartbeats != 3 || got.DefaultHeartbeat != 30000 {
			t.Errorf("runtime events limits: %+v", got)
		}
	})
}

// TestEventsRedirect: a redirect answering the upgrade is not followed;
// the server it names receives nothing, the token least of all.
func TestEventsRedirect(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		elsewhere := simtest.Start(t, simulator.WithToken(e2e.SecretToken))
		fake, _, cs := liveEventsFake(t, era, []simulator.Option{simulator.WithEventsRedirect(elsewhere.EventsURL())})
		r := refusedSubscribe(t, cs, "transport")
		if d := r.Diagnostics; !strings.Contains(d.Message, "redirect (HTTP 307) to "+elsewhere.EventsURL()) || !strings.Contains(d.NextStep, "SNOWLUMA_MCP_EVENTS_URL") {
			t.Errorf("redirect: %+v", d)
		}
		if n := len(fake.Upgrades()); n != 1 {
			t.Errorf("%d upgrades at the configured server", n)
		}
		if n, m := len(elsewhere.Upgrades()), len(elsewhere.Requests()); n != 0 || m != 0 {
			t.Errorf("the redirect was followed: %d upgrades and %d requests elsewhere", n, m)
		}
	})
}
