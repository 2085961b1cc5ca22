// Package heapfloor lets a small heap grow to a floor before the garbage
// collector runs, and leaves a large one to Go's default.
//
// Go collects when the heap has grown by GOGC percent (100 by default)
// over what the last collection left live. A server whose live heap is a
// few megabytes (snowluma-mcp's is the catalog and its index) and whose
// calls each allocate a hundred kilobytes or more (half of it the SDK's
// request decoding) then collects every few dozen calls, and the
// collector costs as much CPU as the calls. Keep raises GOGC while the
// live heap is under half the floor, so that the heap may grow to the
// floor first, and gives it back as the live heap grows: a large transfer
// or picture is collected as often as under the default, and its peak is
// what it was.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultPercent is Go's GOGC default, which Keep never goes below.
const DefaultPercent = 100

// maxPercent bounds the GOGC Keep sets, for a live heap so small that the
// floor would be hundreds of times it (as at start-up).
const maxPercent = 1000

// Percent is the GOGC whose heap goal is floor for a collection that left
// live bytes of heap and roots bytes of stacks and globals to scan (Go
// grows the heap by GOGC percent of both), or DefaultPercent once live is
// half of floor or more.
func Percent(live, roots, floor uint64) int {
	if live == 0 || live >= floor/2 {
		return DefaultPercent
	}
	return int(max(DefaultPercent, min((floor-live)*100/(live+roots), maxPercent)))
}

// A tuner sets GOGC after each collection from the heap it left live.
type tuner struct {
	floor uint64

	mu      sync.Mutex
	stopped bool
	live    []metrics.Sample // the live heap, stacks and globals
}

// token is the object whose cleanup runs once a collection has found it
// unreachable; it holds a pointer so that it is not in a tiny block, whose
// cleanups may never run.
type token struct{ _ *token }

// Keep holds the heap's goal at floor bytes or more, until the function
// it returns is called, which gives GOGC back to DefaultPercent. It
// overrides GOGC: a caller honouring the operator's own GOGC calls Keep
// only when it is unset.
func Keep(floor uint64) (stop func()) {
	t := &tuner{floor: floor, live: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	t.adjust()
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(DefaultPercent)
	}
}

// arm runs adjust after the next collection that finds a fresh token
// unreachable, and arms again from there.
func (t *tuner) arm() {
	runtime.AddCleanup(&token{}, func(t *tuner) {
		if t.adjust() {
			t.arm()
		}
	}, t)
}

// adjust sets GOGC from the live heap the last collection measured, and
// reports whether t still runs.
func (t *tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.live)
	var v [3]uint64
	for i, s := range t.live {
		if s.Value.Kind() != metrics.KindUint64 {
			return true // not measured by this runtime: GOGC stays as it is
		}
		v[i] = s.Value.Uint64()
	}
	debug.SetGCPercent(Percent(v[0], v[1]+v[2], t.floor))
	return true
}
