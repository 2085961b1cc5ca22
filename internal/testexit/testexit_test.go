package testexit_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/testexit"
)

// childEnv names what this binary does when a test runs it again as a
// child: "race" races two goroutines outside any test and exits 0; "late"
// exits 0 while a goroutine is still asleep before its racing write;
// "fail" exits with 3; "leak" ends by End's path while a goroutine it
// started still runs, "ending" while one is about to end.
const childEnv = "TESTEXIT_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "race":
		n := 0
		done := make(chan struct{})
		go func() { n = 1; close(done) }()
		n = 2
		<-done
		_ = n
		testexit.Exit(0)
	case "late":
		n := new(int)
		go func() { time.Sleep(50 * time.Millisecond); *n = 1 }()
		done := make(chan struct{})
		go func() { *n = 2; close(done) }()
		<-done
		testexit.Exit(0)
	case "fail":
		testexit.Exit(3)
	case "leak":
		block := make(chan struct{})
		go leakedGoroutine(block)
		testexit.EndWithin(0, 50*time.Millisecond)
	case "ending":
		go time.Sleep(20 * time.Millisecond)
		testexit.EndWithin(0, testexit.Grace)
	}
	testexit.Main(m)
}

// child runs this test binary as a child doing what, and returns its
// exit code and output.
func child(t *testing.T, what string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+what)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("running the child: %v", err)
	return 0, ""
}

// needRace skips t without the race detector, and fails it under CI,
// which runs the tests with -race.
func needRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		return
	}
	if reference.UnderCI() {
		t.Fatal("CI runs the tests with -race; this one needs it")
	}
	t.Skip("needs -race: go test -race ./internal/testexit")
}

// leakedGoroutine blocks until done is closed.
func leakedGoroutine(done chan struct{}) { <-done }

// TestEndFailsOnLeftovers: a binary whose goroutine outlives its tests
// fails, naming the goroutine, and ends with the detector's wait; one
// whose last goroutine ends within the grace passes.
func TestEndFailsOnLeftovers(t *testing.T) {
	t.Parallel()
	code, out := child(t, "leak")
	if code != 1 || !strings.Contains(out, "goroutines outlived the tests") || !strings.Contains(out, "leakedGoroutine") {
		t.Errorf("leak: exit code %d, want 1 naming the goroutine; output:\n%s", code, out)
	}
	if code, out := child(t, "ending"); code != 0 {
		t.Errorf("ending: exit code %d, want 0; output:\n%s", code, out)
	}
}

// TestLeftover sees a goroutine this test started while it runs, and none
// once it ended.
func TestLeftover(t *testing.T) {
	done, started := make(chan struct{}), make(chan struct{})
	go func() { close(started); leakedGoroutine(done) }()
	<-started
	if left := testexit.Leftover(0); !strings.Contains(left, "TestLeftover") {
		t.Errorf("a running goroutine is not left over:\n%s", left)
	}
	close(done)
	// Other tests' goroutines may run meanwhile: look for this one only.
	deadline := time.Now().Add(testexit.Grace)
	for strings.Contains(testexit.Leftover(0), "TestLeftover") {
		if time.Now().After(deadline) {
			t.Fatalf("an ended goroutine is left over:\n%s", testexit.Leftover(0))
		}
		time.Sleep(time.Millisecond)
	}
}

func TestExitKeepsTheCode(t *testing.T) {
	t.Parallel()
	if code, out := child(t, "fail"); code != 3 {
		t.Errorf("exit code %d, want 3; output:\n%s", code, out)
	}
}

// TestRaceOutsideTestsFails shows both halves of Exit under -race: a race
// seen outside any test still fails the binary, and the detector's
// finalizer (where the wait at exit is, and which prints its count of
// races) did not run.
func TestRaceOutsideTestsFails(t *testing.T) {
	t.Parallel()
	needRace(t)
	code, out := child(t, "race")
	if code != 66 {
		t.Errorf("exit code %d, want 66; output:\n%s", code, out)
	}
	if !strings.Contains(out, "WARNING: DATA RACE") {
		t.Errorf("the race was not reported:\n%s", out)
	}
	if strings.Contains(out, "Found 1 data race") {
		t.Errorf("the detector's finalizer ran:\n%s", out)
	}
}

// TestNoWaitAtExit shows what Exit gives up under -race: the detector's
// second of waiting for goroutines still running, which would have seen
// the late write race and failed the binary.
func TestNoWaitAtExit(t *testing.T) {
	t.Parallel()
	needRace(t)
	if code, out := child(t, "late"); code != 0 || strings.Contains(out, "DATA RACE") {
		t.Errorf("exit code %d, want 0 with no race reported; output:\n%s", code, out)
	}
}
