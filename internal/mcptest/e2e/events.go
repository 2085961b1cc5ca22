package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// EventsPrefix begins the URI of every event resource.
const EventsPrefix = "snowluma://onebot/events/"

// EventsRead is an event resource read, in either of its forms: by
// default Count events, the message events as Lines (of Chat when they
// are of one) and the others in Events; with format=raw (see Raw) every event in Events and no Count.
type EventsRead struct {
	Count  *int   `json:"count"`
	Chat   string `json:"chat"`
	Lines  string `json:"lines"`
	Events []struct {
		Cursor string          `json:"cursor"`
		Event  json.RawMessage `json:"event"`
	} `json:"events"`
	Status             string  `json:"status"`
	StatusReason       string  `json:"status_reason"`
	NextCursor         string  `json:"next_cursor"`
	OldestCursor       *string `json:"oldest_cursor"`
	DroppedEvents      int64   `json:"dropped_events"`
	Gap                bool    `json:"gap"`
	NotificationFailed bool    `json:"notification_failed"`
}

// N is the number of events read, in either form.
func (r EventsRead) N() int {
	if r.Count != nil {
		return *r.Count
	}
	return len(r.Events)
}

// Raw is uri asking for every event as SnowLuma sent it (format=raw),
// for a test that reads the events' own fields.
func Raw(uri string) string {
	if strings.Contains(uri, "?") {
		return uri + "&format=raw"
	}
	return uri + "?format=raw"
}

// SubscribeEvents calls subscribe_events with args (self_id the fake's
// unless given) and returns the resource URI, failing unless connected.
func SubscribeEvents(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	if args["self_id"] == nil {
		args["self_id"] = simulator.SelfID
	}
	res, r := mcptest.CallTool(t, cs, "subscribe_events", args)
	if res.IsError {
		t.Fatalf("subscribe_events %v: %+v", args, r.Diagnostics)
	}
	out := mcptest.Decode[struct {
		URI    string `json:"uri"`
		Status string `json:"status"`
	}](t, r.Result)
	if !strings.HasPrefix(out.URI, EventsPrefix) || strings.Contains(out.URI, "?") || out.Status != "connected" {
		t.Fatalf("subscribe_events: %s", r.Result)
	}
	return out.URI
}

// ReadEvents reads uri, checking the cache hint of 2026-07-28 answers.
func ReadEvents(t *testing.T, cs *mcp.ClientSession, uri string) (EventsRead, error) {
	t.Helper()
	res, err := cs.ReadResource(mcptest.Context(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return EventsRead{}, err
	}
	if cs.InitializeResult().ProtocolVersion == string(mcptest.Modern) && (res.TTLMs != 0 || res.CacheScope != "private") {
		t.Errorf("event read cache hint %d %q, want 0 private", res.TTLMs, res.CacheScope)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || res.Contents[0].URI != uri {
		t.Fatalf("read %s: contents %+v", uri, res.Contents)
	}
	return mcptest.Decode[EventsRead](t, json.RawMessage(res.Contents[0].Text)), nil
}

// MustRead is ReadEvents, failing the test on an error.
func MustRead(t *testing.T, cs *mcp.ClientSession, uri string) EventsRead {
	t.Helper()
	r, err := ReadEvents(t, cs, uri)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	return r
}

// WaitRead polls uri until cond holds, failing after a generous wait.
func WaitRead(t *testing.T, cs *mcp.ClientSession, uri string, what string, cond func(EventsRead) bool) EventsRead {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for wait := pollFirst; ; wait = nextPoll(wait) {
		r := MustRead(t, cs, uri)
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held: %d events, status %s (%s)", what, r.N(), r.Status, r.StatusReason)
		}
		time.Sleep(wait)
	}
}
