// Package testexit ends a test binary the way os.Exit does, less the race
// detector's wait at exit.
//
// A binary built with -race sleeps for a second as it exits, so that
// goroutines still running can report a last race (the detector's
// atexit_sleep_ms, 1000 unless GORACE says otherwise). go test -race ./...
// runs one such binary per package, two at a time on two cores, so the
// wait costs the suite about twenty seconds of idle cores. What is given
// up is the wait for a goroutine still running after the last test; every
// race the detector saw during the run already fails its test.
package testexit

import "testing"

// Main runs m's tests and ends the binary with their exit code.
//
//	func TestMain(m *testing.M) { testexit.Main(m) }
func Main(m *testing.M) {
	Exit(m.Run())
}
