package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// trialEras are the protocol revisions the trial tests run as: the
// per-request era, and a legacy initialize client.
var trialEras = []string{"", "2025-11-25"}

// trialSession serves b in write mode on a world of fake and connects a
// client at revision (empty: the SDK's newest).
func trialSession(t *testing.T, fake *simulator.Server, b *backend.Backend, revision string) *mcp.ClientSession {
	t.Helper()
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	b.Client = client
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeWrite, Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var opts *mcp.ClientSessionOptions
	if revision != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: revision}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// trialCall is one tool call's structured content, decoded.
type trialCall struct {
	Result      json.RawMessage `json:"result"`
	Diagnostics struct {
		Outcome string `json:"outcome"`
		Kind    string `json:"kind"`
		Sandbox bool   `json:"sandbox"`
	} `json:"diagnostics"`
}

func callTrial(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) trialCall {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var c trialCall
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %s: %v", tool, raw, err)
	}
	return c
}

// TestTrialSandboxMark: with a sandbox backend every tool result says
// sandbox, successes and refusals alike, as do get_runtime_info and the
// instructions; without one nothing does.
func TestTrialSandboxMark(t *testing.T) {
	t.Parallel()
	for _, rev := range trialEras {
		for _, sandbox := range []bool{true, false} {
			fake := simtest.Start(t, simulator.WithWorld(2))
			cs := trialSession(t, fake, &backend.Backend{Sandbox: sandbox}, rev)
			calls := map[string]trialCall{
				"list_categories": callTrial(t, cs, "list_categories", map[string]any{}),
				"query_action":    callTrial(t, cs, "query_action", map[string]any{"action": "get_status"}),
				"unknown action":  callTrial(t, cs, "invoke_action", map[string]any{"action": "no_such_action"}),
				"runtime":         callTrial(t, cs, "get_runtime_info", map[string]any{}),
			}
			for name, c := range calls {
				if c.Diagnostics.Sandbox != sandbox {
					t.Errorf("%q sandbox %v: %s says sandbox %v", rev, sandbox, name, c.Diagnostics.Sandbox)
				}
			}
			if calls["unknown action"].Diagnostics.Kind != "unknown_action" {
				t.Errorf("%q: %+v", rev, calls["unknown action"].Diagnostics)
			}
			var info struct {
				Sandbox, DryRun bool
			}
			json.Unmarshal(calls["runtime"].Result, &info)
			if info.Sandbox != sandbox || info.DryRun {
				t.Errorf("%q sandbox %v: get_runtime_info %s", rev, sandbox, calls["runtime"].Result)
			}
			if says := strings.Contains(cs.InitializeResult().Instructions, "sandbox"); says != sandbox {
				t.Errorf("%q sandbox %v: instructions %q", rev, sandbox, cs.InitializeResult().Instructions)
			}
		}
	}
}

// TestTrialDryRun: a dry run answers a write with kind dry_run and its
// targets and sends nothing, still applies the pacer (a second send to the
// same group at once is refused), and lets reads through.
func TestTrialDryRun(t *testing.T) {
	t.Parallel()
	for _, rev := range trialEras {
		fake := simtest.Start(t, simulator.WithWorld(2))
		cs := trialSession(t, fake, &backend.Backend{DryRun: true, Safety: &safety.Policy{Sensitive: safety.SensitiveDeny, Confirm: safety.ConfirmNone}}, rev)
		send := map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001, "message": "hi"}}
		c := callTrial(t, cs, "invoke_action", send)
		var got struct {
			DryRun struct {
				Action string  `json:"action"`
				Groups []int64 `json:"groups"`
				Users  []int64 `json:"users"`
			} `json:"dry_run"`
		}
		if err := json.Unmarshal(c.Result, &got); err != nil || c.Diagnostics.Outcome != "success" || c.Diagnostics.Kind != "dry_run" ||
			got.DryRun.Action != "send_group_msg" || len(got.DryRun.Groups) != 1 || got.DryRun.Groups[0] != 20001 || got.DryRun.Users == nil {
			t.Errorf("%q: dry-run send %+v %s", rev, c.Diagnostics, c.Result)
		}
		if c := callTrial(t, cs, "invoke_action", send); c.Diagnostics.Kind != "rate_limited" {
			t.Errorf("%q: a second send at once: %+v", rev, c.Diagnostics)
		}
		if len(fake.Requests()) != 0 {
			t.Errorf("%q: a dry run sent %v", rev, fake.Requests())
		}
		if c := callTrial(t, cs, "query_action", map[string]any{"action": "get_login_info"}); c.Diagnostics.Outcome != "success" || len(fake.Requests()) != 1 {
			t.Errorf("%q: a read in a dry run: %+v, %d requests", rev, c.Diagnostics, len(fake.Requests()))
		}
		if !strings.Contains(cs.InitializeResult().Instructions, "Dry run") {
			t.Errorf("%q: instructions %q", rev, cs.InitializeResult().Instructions)
		}
	}
}
