//go:build race

package testexit

import (
	"runtime"
	"syscall"
)

// raceExitCode is the detector's own exit code for a run that reported a
// race (GORACE exitcode, 66 by default).
const raceExitCode = 66

// Exit ends the binary with code without the detector's finalizer, which is
// where the wait is. The finalizer would also turn a reported race into a
// failing exit code; Exit does that here, for a race reported outside any
// test, which testing itself does not count.
func Exit(code int) {
	if code == 0 && runtime.RaceErrors() > 0 {
		code = raceExitCode
	}
	syscall.Exit(code)
}
