package app

import (
	"bytes"
	"testing"
	"time"
)

// TestAnswerWatch: the first answer counts as written once its newline is,
// and every byte passes through.
func TestAnswerWatch(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	a := newAnswerWatch(&buf)
	written := func() bool {
		select {
		case <-a.first:
			return true
		default:
			return false
		}
	}
	a.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	if written() {
		t.Fatal("first answer written before its newline")
	}
	a.Write([]byte("\n"))
	if !written() {
		t.Fatal("first answer not seen after its newline")
	}
	a.Write([]byte("{}\n")) // a second line closes nothing twice
	if got := buf.String(); got != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n{}\n" {
		t.Errorf("passed on %q", got)
	}
}

// TestCatalogTime: the catalog waits for the first answer, the end of
// serving or the grace, whichever comes first.
func TestCatalogTime(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{})
	close(closed)
	never := make(chan struct{})
	fired := make(chan time.Time, 1)
	fired <- time.Time{}
	for _, tc := range []struct {
		name           string
		first, stopped chan struct{}
		grace          chan time.Time
	}{
		{"first answer", closed, never, nil},
		{"stopped", never, closed, nil},
		{"grace", never, never, fired},
	} {
		if got := catalogTime(tc.first, tc.stopped, tc.grace); got != tc.name {
			t.Errorf("catalogTime woke for %q, want %q", got, tc.name)
		}
	}
}
