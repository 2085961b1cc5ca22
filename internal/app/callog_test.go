package app

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// syncBuffer is a bytes.Buffer for one writer at a time, counting writes.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestCallLogKeepsEveryLineInOrder(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	l := newCallLog(&out)
	const writers, lines = 8, 500
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(l, "w%d %d\n", w, i)
			}
		})
	}
	wg.Wait()
	l.Close()
	fmt.Fprintf(l, "after close\n")

	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines+1 || got[len(got)-1] != "after close" {
		t.Fatalf("%d lines, last %q; want %d, then the line written after Close", len(got), got[len(got)-1], writers*lines+1)
	}
	next := make([]int, writers)
	for _, line := range got[:len(got)-1] {
		var w, i int
		if _, err := fmt.Sscanf(line, "w%d %d", &w, &i); err != nil || w >= writers {
			t.Fatalf("torn line %q", line)
		}
		if i != next[w] {
			t.Fatalf("writer %d: line %d after line %d", w, i, next[w]-1)
		}
		next[w]++
	}
}

// TestCallLogGathersLinesCloseTogether: the lines of calls that follow
// each other closely go out in a few writes, not one each.
func TestCallLogGathersLinesCloseTogether(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	l := newCallLog(&out)
	const lines = 100
	for i := range lines {
		fmt.Fprintf(l, "call %d\n", i)
		runtime.Gosched() // the log's goroutine may run between calls, as between answers
	}
	l.Close()
	if n := strings.Count(out.String(), "\n"); n != lines || out.writes > lines/10 {
		t.Errorf("%d lines in %d writes; want %d lines in a few", n, out.writes, lines)
	}
}

// blockingWriter holds every write until released.
type blockingWriter struct {
	release chan struct{}
	entered chan struct{}
	out     syncBuffer
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	return b.out.Write(p)
}

func TestCallLogWaitsForRoomRatherThanDropping(t *testing.T) {
	t.Parallel()
	w := &blockingWriter{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	l := newCallLog(w)
	line := strings.Repeat("x", 1023) + "\n"
	l.Write([]byte(line))
	<-w.entered // the first line is being written, and stderr is stuck

	// Fill the queue, then one more: that writer must wait, not drop.
	for range callLogBytes / len(line) {
		l.Write([]byte(line))
	}
	wrote := make(chan struct{})
	go func() {
		l.Write([]byte("last\n"))
		close(wrote)
	}()
	for waiting := false; !waiting; {
		select {
		case <-wrote:
			t.Fatal("a line was taken while the queue was full")
		default:
		}
		l.mu.Lock()
		waiting = l.waits > 0
		l.mu.Unlock()
		runtime.Gosched()
	}
	close(w.release)
	<-wrote
	l.Close()
	got := w.out.String()
	if n := strings.Count(got, line); n != callLogBytes/len(line)+1 || !strings.HasSuffix(got, "last\n") {
		t.Errorf("%d full lines (want %d), ends %q", n, callLogBytes/len(line)+1, got[max(0, len(got)-10):])
	}
	if w.out.writes >= callLogBytes/len(line) {
		t.Errorf("%d writes for %d lines: queued lines are not written together", w.out.writes, callLogBytes/len(line)+2)
	}
}
