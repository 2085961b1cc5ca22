// Package testexit ends a test binary without the race detector's wait at
// exit, once the binary has shown that the wait has nothing to wait for.
//
// A binary built with -race sleeps for a second as it exits, so that
// goroutines still running can report a last race (the detector's
// atexit_sleep_ms, 1000 unless GORACE says otherwise). go test -race ./...
// runs one such binary per package, two at a time on two cores. Skipping
// the wait gives up reports from goroutines that outlive the tests, so Main
// skips it only when none do: after the tests it waits, for at most Grace,
// until every goroutine they started has ended, and fails the binary,
// naming the goroutines left, when one has not (a leak, which the package
// fixes, or else drops Main and lets the detector wait). Every race the
// detector saw during the run already fails its test.
package testexit

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Grace is how long End waits for the goroutines the tests started to end:
// a server's connections close, a cancelled reader returns. A package
// whose tests leave none waits not at all.
const Grace = 10 * time.Second

// Main runs m's tests and ends the binary by End.
//
//	func TestMain(m *testing.M) { testexit.Main(m) }
func Main(m *testing.M) {
	End(m.Run())
}

// End ends the binary with code, as TestMain does once its tests ran and
// its own cleanup is done. When goroutines the tests started are still
// running after Grace, it names them on stderr and ends with code 1 and
// the detector's wait (which may report a race of theirs); otherwise it
// ends at once (Exit).
func End(code int) { end(code, Grace) }

func end(code int, grace time.Duration) {
	if left := Leftover(grace); left != "" {
		fmt.Fprintf(os.Stderr, "testexit: goroutines outlived the tests (a leak; fix it, or drop testexit.Main so that the race detector waits for them):\n\n%s\n", left)
		if code == 0 {
			code = 1
		}
		os.Exit(code)
	}
	Exit(code)
}

// Leftover waits up to grace for every goroutine but the caller and the
// runtime's own to end, and returns the stacks of those still running, or
// "" when none is.
func Leftover(grace time.Duration) string {
	deadline := time.Now().Add(grace)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		left := running()
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		time.Sleep(wait)
	}
}

// running returns the stacks of the goroutines other than the caller's
// that the program started, leaving out the runtime's own and the
// signal handler that os/signal starts once for the process.
func running() []string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var left []string
	// The first stack is the caller's own.
	for i, g := range bytes.Split(buf, []byte("\n\n")) {
		if i == 0 || len(bytes.TrimSpace(g)) == 0 || ignored(string(g)) {
			continue
		}
		left = append(left, string(g))
	}
	return left
}

// ignored reports whether the goroutine of stack g belongs to the runtime
// or the process rather than to a test.
func ignored(g string) bool {
	for _, f := range []string{
		"\nos/signal.signal_recv", "\nos/signal.loop", // signal.Notify's, for the process
		"\ncreated by runtime.", // the runtime's workers, shown under GOTRACEBACK=system
	} {
		if strings.Contains(g, f) {
			return true
		}
	}
	return !strings.Contains(g, "\ncreated by ")
}
