package transfer

import (
	"context"
	"encoding/json"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

// TestBurstReusesConnections: after a warm-up burst of IdleConns calls in
// flight at once, a second burst as wide reuses every connection and the
// fake SnowLuma accepts no new one. Each burst holds its calls at the fake
// until all of them have arrived, so each really needs IdleConns
// connections at once.
func TestBurstReusesConnections(t *testing.T) {
	fake := simtest.Start(t, simulator.WithoutRecording())
	c, err := New(Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	// Each connection is offered back to the pool just after its body is
	// read; puts says how each offer went.
	puts := make(chan error, 2*IdleConns)
	burst := func(name string) (reused int64) {
		arrived, release := atomic.Int64{}, make(chan struct{})
		fake.Handle("get_status", func(json.RawMessage) simulator.Reply {
			if arrived.Add(1) == IdleConns {
				close(release)
			}
			<-release
			return simulator.Reply{Envelope: simulator.Envelope{Status: "ok", Data: json.RawMessage(`{"online":true}`)}}
		})
		var wg sync.WaitGroup
		var reusedN atomic.Int64
		for range IdleConns {
			wg.Go(func() {
				ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
					GotConn: func(info httptrace.GotConnInfo) {
						if info.Reused {
							reusedN.Add(1)
						}
					},
					PutIdleConn: func(err error) { puts <- err },
				})
				resp, err := c.Call(ctx, Request{Action: "get_status"})
				if err != nil || resp.Status != "ok" {
					t.Errorf("%s: %v %+v", name, err, resp)
				}
			})
		}
		wg.Wait()
		return reusedN.Load()
	}

	burst("warm-up")
	if got := fake.Conns(); got != IdleConns {
		t.Fatalf("warm-up opened %d connections, want %d", got, IdleConns)
	}
	for range IdleConns {
		select {
		case err := <-puts:
			if err != nil {
				t.Errorf("a warm connection was not kept: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the warm-up's connections never went back to the pool")
		}
	}
	if reused := burst("second burst"); reused != IdleConns {
		t.Errorf("second burst reused %d of %d connections", reused, IdleConns)
	}
	if got := fake.Conns(); got != IdleConns {
		t.Errorf("second burst opened %d new connections", got-IdleConns)
	}
}
