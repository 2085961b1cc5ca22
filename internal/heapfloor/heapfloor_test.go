package heapfloor

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const floor = 32 << 20
	for _, tc := range []struct {
		live, roots uint64
		want        int
	}{
		{0, 0, DefaultPercent},               // before the first collection
		{4 << 20, 0, 700},                    // may grow to 32 MiB
		{4 << 20, 4 << 20, 350},              // with as much again in stacks to scan
		{8 << 20, 0, 300},                    // likewise
		{12 << 20, 12 << 20, DefaultPercent}, // never below the default
		{16 << 20, 0, DefaultPercent},        // half the floor: Go's default
		{100 << 20, 0, DefaultPercent},       // a large heap: as under the default
		{1 << 10, 0, maxPercent},             // bounded
		{floor/2 - 1<<20, 0, 113},            // just under half
	} {
		if got := Percent(tc.live, tc.roots, floor); got != tc.want {
			t.Errorf("Percent(%d, %d, %d) = %d, want %d", tc.live, tc.roots, floor, got, tc.want)
		}
	}
}

// TestKeepFollowsTheHeap: after collections, GOGC is raised while the live
// heap is small, back at the default while something large is live, raised
// again once it is gone, and the default for good once Keep is stopped.
func TestKeepFollowsTheHeap(t *testing.T) {
	const floor = 16 << 20
	stop := Keep(floor)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	settles(t, "a small heap", func(p int) bool { return p > DefaultPercent })

	big := make([]byte, floor) // live, and more than half the floor
	settles(t, "a large live heap", func(p int) bool { return p == DefaultPercent })
	runtime.KeepAlive(big)
	big = nil

	settles(t, "the large heap gone", func(p int) bool { return p > DefaultPercent })
	stop()
	stopped = true
	if p := gogc(); p != DefaultPercent {
		t.Fatalf("GOGC %d once stopped", p)
	}
	// A cleanup that runs after stop finds it stopped and sets nothing.
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
	if p := gogc(); p != DefaultPercent {
		t.Errorf("GOGC %d after collections once stopped", p)
	}
}

// settles collects until GOGC satisfies ok, failing after a deadline: the
// cleanup that sets it runs on its own goroutine after a collection.
func settles(t *testing.T, what string, ok func(int) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		runtime.Gosched()
		if p := gogc(); ok(p) {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%s: GOGC stayed %d", what, p)
		}
		time.Sleep(time.Millisecond)
	}
}

func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
