package events

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestSubscribeFunc: a resource made for a reader in this process tells
// its own function of its updates, never the Hub's OnUpdate one, and
// shares the connection with ordinary resources.
func TestSubscribeFunc(t *testing.T) {
	fake := simtest.Start(t)
	h := New(Options{URL: fake.EventsURL()})
	defer h.Close()
	var hubCalls atomic.Int64
	h.OnUpdate(func(string) { hubCalls.Add(1) })
	notified := make(chan struct{}, 10)
	ctx := context.Background()
	own, err := h.SubscribeFunc(ctx, Filter{SelfID: simulator.SelfID, Types: []string{TypeMessage}}, func() { notified <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	simtest.EventConn(t, fake, 0).Send(simulator.GroupMessage(20001, 30001, "hi"))
	select {
	case <-notified:
	case <-time.After(30 * time.Second):
		t.Fatal("the resource's function was never told")
	}
	if snap, err := h.Read(own.ID, ""); err != nil || len(snap.Events) != 1 {
		t.Fatalf("read %d events, %v", len(snap.Events), err)
	}
	if n := hubCalls.Load(); n != 0 {
		t.Fatalf("OnUpdate was told %d times of a SubscribeFunc resource", n)
	}
	// An ordinary resource on the same connection still goes to OnUpdate.
	if _, err := h.Subscribe(ctx, Filter{SelfID: simulator.SelfID}); err != nil {
		t.Fatal(err)
	}
	simtest.EventConn(t, fake, 0).Send(simulator.GroupMessage(20001, 30001, "again"))
	for deadline := time.Now().Add(30 * time.Second); hubCalls.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("OnUpdate was never told of the ordinary resource")
		}
	}
	if len(fake.EventConns()) != 1 {
		t.Errorf("%d connections, want one shared", len(fake.EventConns()))
	}
}
