package simulator

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// startFake and eventConn are simtest.Start and simtest.EventConn for the
// simulator's own tests, which cannot import simtest (it imports this
// package).
func startFake(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

func eventConn(tb testing.TB, s *Server, i int) *EventConn {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if conns := s.EventConns(); len(conns) > i {
			return conns[i]
		}
		if time.Now().After(deadline) {
			tb.Fatalf("event connection %d was never accepted", i)
			return nil
		}
	}
}

// TestBinaryLinksNoTestScaffolding: the binary, whose sandbox command runs
// this fake for operators, links neither package testing nor simtest,
// which holds what tests drive (Start, EventConn, StallUploads, FailOCR).
func TestBinaryLinksNoTestScaffolding(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/snowluma-mcp").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/snowluma/snowluma-mcp/internal/simulator") {
		t.Fatalf("the binary does not link the simulator: %q", deps)
	}
	for _, p := range deps {
		if p == "testing" || strings.HasSuffix(p, "/internal/simulator/simtest") {
			t.Errorf("the binary links %s", p)
		}
	}
}
