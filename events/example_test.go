package events_test

import (
	"context"
	"fmt"
	"time"

	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// A resource buffers the events its filter selects from the one event
// connection, which the first Subscribe opens; a read never consumes.
func Example() {
	snowluma, err := simulator.New(simulator.WithToken("ws-token"))
	if err != nil {
		panic(err)
	}
	defer snowluma.Close()

	hub := events.New(events.Options{URL: snowluma.EventsURL(), Token: "ws-token"})
	defer hub.Close()
	updated := make(chan struct{}, 16)
	info, err := hub.SubscribeFunc(context.Background(),
		events.Filter{SelfID: simulator.SelfID, Types: []string{events.TypeMessage}, GroupIDs: []int64{20001}},
		func() { updated <- struct{}{} })
	if err != nil {
		panic(err)
	}
	conn := snowluma.EventConns()[0]
	conn.Send(simulator.GroupMessage(20002, 30001, "another group: filtered out"))
	conn.Send(simulator.GroupMessage(20001, 30001, "hello"))

	for deadline := time.After(10 * time.Second); ; {
		snap, err := hub.Read(info.ID, "")
		if err != nil {
			panic(err)
		}
		if len(snap.Events) > 0 {
			fmt.Println(len(snap.Events), snap.Status)
			break
		}
		select {
		case <-updated:
		case <-deadline:
			panic("no event within 10 s")
		}
	}
	// Output: 1 connected
}
