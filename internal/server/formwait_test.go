package server

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// TestLegacyFormWaitExpires: a 2025-11-25 client that never answers the
// server's elicitation/create is not waited for past the continuation's
// lifetime (shortened here from ten minutes): the form is withdrawn and the
// call ends as an expired continuation, with nothing sent to SnowLuma.
func TestLegacyFormWaitExpires(t *testing.T) {
	t.Parallel()
	fake := simtest.Start(t)
	client, err := transfer.New(transfer.Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Catalog: sharedCatalog, Mode: config.ModeWrite, Backend: &backend.Backend{Client: client}, ContinuationTTL: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	withdrawn := make(chan struct{}, 1)
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		// The user never answers; the request's context ends when the
		// server withdraws it.
		ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			<-ctx.Done()
			withdrawn <- struct{}{}
			return nil, ctx.Err()
		},
	})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "invoke_action_with_input",
		Arguments: map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": 20001}}})
	if err != nil {
		t.Fatalf("the call failed instead of reporting the expiry: %v", err)
	}
	if d := diagnosticsOf(t, res); !res.IsError || d.Kind != outcome.KindContinuation || d.NextStep == "" {
		t.Errorf("diagnostics %+v", d)
	}
	select {
	case <-withdrawn:
	case <-ctx.Done():
		t.Error("the unanswered form was never withdrawn")
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("%d requests reached SnowLuma", n)
	}
}
