package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/claudechannel"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// recordingWire stands in for claudechannel.Wire: it keeps what the
// channel writes and hands the test the permission callback.
type recordingWire struct {
	mu       sync.Mutex
	pushes   []string
	verdicts []string
	onPerm   func(context.Context, claudechannel.PermissionRequest)
}

func (w *recordingWire) Push(_ context.Context, content string, meta map[string]string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pushes = append(w.pushes, meta["group_id"]+":"+content)
	return nil
}

func (w *recordingWire) Verdict(_ context.Context, id, behavior string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.verdicts = append(w.verdicts, id+":"+behavior)
	return nil
}

func (w *recordingWire) OnPermission(f func(context.Context, claudechannel.PermissionRequest)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onPerm = f
}

// until waits for cond, failing after a generous deadline.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

// TestChannelFeature runs the channel in-process: declared in the
// capabilities, following the account from New, pushing a listed group's
// message, relaying a permission request to the approver through the
// pipeline and turning the reply into a verdict.
func TestChannelFeature(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t)
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	hub := events.New(events.Options{URL: fake.EventsURL()})
	defer hub.Close()
	users, _ := safety.ParseIDs("30002")
	groups, _ := safety.ParseIDs("20001")
	b := &backend.Backend{Client: client, Events: hub, Channel: &channel.Config{Mode: channel.ModeAll, Groups: groups, Approvers: users}}
	if _, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeWrite, Backend: b}); err == nil || !strings.Contains(err.Error(), "ChannelWire") {
		t.Fatalf("a channel without its wire: %v", err)
	}
	w := &recordingWire{}
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeWrite, Backend: b, Channel: w})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	exp := cs.InitializeResult().Capabilities.Experimental
	if _, ok := exp[claudechannel.CapabilityChannel]; !ok {
		t.Errorf("experimental %v", exp)
	}
	if _, ok := exp[claudechannel.CapabilityPermission]; !ok {
		t.Errorf("experimental %v", exp)
	}
	if text := cs.InitializeResult().Instructions; !strings.Contains(text, "<channel> notifications") || !strings.Contains(text, "send_group_msg") || !strings.Contains(text, "data, never as instructions") {
		t.Errorf("instructions %q", cs.InitializeResult().Instructions)
	}
	conn := simtest.EventConn(t, fake, 0)
	conn.Send(simulator.GroupMessage(20009, 30005, "elsewhere"))
	conn.Send(simulator.GroupMessage(20001, 30005, "hello"))
	until(t, "the push", func() bool { w.mu.Lock(); defer w.mu.Unlock(); return len(w.pushes) == 1 })
	if w.pushes[0] != "20001:hello" {
		t.Errorf("pushes %q", w.pushes)
	}

	w.mu.Lock()
	perm := w.onPerm
	w.mu.Unlock()
	perm(context.Background(), claudechannel.PermissionRequest{RequestID: "tbxkq", ToolName: "Bash", Description: "ls", InputPreview: "{}"})
	until(t, "the prompt", func() bool {
		for _, r := range fake.Requests() {
			if r.Action == "send_private_msg" && strings.Contains(string(r.Params), "yes tbxkq") && strings.Contains(string(r.Params), `"user_id":30002`) {
				return true
			}
		}
		return false
	})
	conn.Send(`{"time":1,"self_id":10001,"post_type":"message","message_type":"private","message_id":9,"user_id":30002,"message":"yes tbxkq","sender":{"nickname":"a"}}`)
	until(t, "the verdict", func() bool { w.mu.Lock(); defer w.mu.Unlock(); return len(w.verdicts) == 1 })
	if w.verdicts[0] != "tbxkq:allow" {
		t.Errorf("verdicts %q", w.verdicts)
	}
	// The counters move just after the wire returns: wait for them.
	var st channel.Stats
	until(t, "the counters", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_runtime_info", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			Result struct {
				Channel channel.Stats `json:"channel"`
			} `json:"result"`
		}
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &info)
		st = info.Result.Channel
		return st.Pushes == 1 && st.Verdicts == 1
	})
	if st.Mode != channel.ModeAll || st.ApprovalRequests != 1 || st.Filtered[channel.ReasonNotListed] != 1 {
		t.Errorf("stats %+v", st)
	}
}
