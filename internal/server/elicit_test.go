package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// writeServer is a write-mode server talking to fake, with clock, and a
// client that advertises forms and answers continuations by hand.
func writeServer(t *testing.T, fake *simulator.Server, clock *fakeClock) *mcp.ClientSession {
	t.Helper()
	return connect(t, liveServer(t, config.ModeWrite, fake.URL, clock.Now), &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
	})
}

func diagnosticsOf(t *testing.T, res *mcp.CallToolResult) outcome.Diagnostics {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var sc struct {
		Diagnostics outcome.Diagnostics `json:"diagnostics"`
	}
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	return sc.Diagnostics
}

// TestContinuationExpiryAndRestart needs a clock and two server lifetimes,
// so it runs the server in process (SnowLuma is still a real loopback fake).
func TestContinuationExpiryAndRestart(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t)
	clock := &fakeClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	cs := writeServer(t, fake, clock)
	args := map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001}}
	ctx := context.Background()
	ask := func(cs *mcp.ClientSession) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "invoke_action_with_input", Arguments: args})
		if err != nil || !res.NeedsInput() {
			t.Fatalf("ask: %v %+v", err, res)
		}
		return res.RequestState
	}
	answer := func(cs *mcp.ClientSession, state string) outcome.Diagnostics {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "invoke_action_with_input", Arguments: args, RequestState: state,
			InputResponses: mcp.InputResponseMap{"params": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"params_json": `{"message":"hi"}`}}}})
		if err != nil {
			t.Fatal(err)
		}
		return diagnosticsOf(t, res)
	}

	state := ask(cs)
	clock.Add(10*time.Minute + time.Second)
	if d := answer(cs, state); d.Kind != outcome.KindContinuation || !strings.Contains(d.Message, "expired") {
		t.Errorf("expired: %+v", d)
	}

	// A restart (a new server, a new key) invalidates every state.
	state = ask(cs)
	restarted := writeServer(t, fake, clock)
	if d := answer(restarted, state); d.Kind != outcome.KindContinuation || !strings.Contains(d.Message, "earlier run") {
		t.Errorf("after restart: %+v", d)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests reached SnowLuma", n)
	}
	// Within its lifetime the state still works on the server that made it.
	clock.Add(9 * time.Minute)
	if d := answer(cs, state); d.Outcome != outcome.OutcomeSuccess {
		t.Errorf("live state: %+v", d)
	}
}
