package server

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/safety"
)

// catchUpSink records the catch-up pushes; during the first one, a new
// message of the chat arrives and asks for another pass, as a live
// message that found the chat behind does.
type catchUpSink struct {
	pushes chan channel.Push
	first  func()
}

func (s *catchUpSink) Push(ctx context.Context, p channel.Push) error {
	if f := s.first; f != nil {
		s.first = nil
		f()
	}
	s.pushes <- p
	return nil
}

func (s *catchUpSink) Verdict(context.Context, channel.Verdict) error { return nil }

// TestCatchUpRequestDuringPass: a catch-up requested while a pass runs is
// not lost when that pass succeeds. (It was: the pass cleared a flag that
// the request had just set, and a message archived during a catch-up push
// waited for the next request, which might never come.)
func TestCatchUpRequestDuringPass(t *testing.T) {
	t.Parallel()
	const group = 555
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := archive.Open(ctx, archive.Options{Path: filepath.Join(t.TempDir(), "archive.db"),
		Groups: archive.Selection{IDs: map[int64]bool{group: true}}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	say := func(id int64, text string) {
		b, _ := json.Marshal(map[string]any{"post_type": "message", "self_id": 1, "message_type": "group", "sub_type": "normal",
			"message_id": id, "group_id": group, "user_id": 2, "time": time.Now().Unix(), "message": text,
			"sender": map[string]any{"user_id": 2, "nickname": "n"}})
		if _, err := store.Ingest(ctx, [][]byte{b}); err != nil {
			t.Fatal(err)
		}
	}
	svc := &archiveService{store: store, log: io.Discard, catchUp: make(chan struct{}, 1)}
	sink := &catchUpSink{pushes: make(chan channel.Push, 4)}
	sink.first = func() { say(2, "second"); svc.requestCatchUp() }
	say(1, "first")
	svc.requestCatchUp()
	go svc.catchUpLoop(ctx, channel.Config{Groups: safety.IDSet{group: {}}}, sink)

	for _, want := range []string{"1", "2"} {
		select {
		case p := <-sink.pushes:
			if p.Meta[channel.MetaMessageID] != want {
				t.Fatalf("catch-up push for message %s, want %s: %+v", p.Meta[channel.MetaMessageID], want, p)
			}
		case <-ctx.Done():
			t.Fatalf("no catch-up push for message %s: the request made during the first pass was lost", want)
		}
	}
}
