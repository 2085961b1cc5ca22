package e2e

import (
	"bytes"
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// SetParallel is for a TestMain, before m.Run: it parses the flags and,
// unless the command line gave -test.parallel, lets max(8, 4×GOMAXPROCS)
// tests run at once. End-to-end tests mostly wait (grace periods, a fake's
// delays, idle timeouts) rather than compute, so more run at once than
// there are cores.
func SetParallel() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(max(8, 4*runtime.GOMAXPROCS(0))))
	}
}

// RunMain runs run (app.Run, as the test package wires it) in the test
// process with args, exactly env (plus PATH, and a HOME of its own) and
// no input, returning its exit status, stdout and stderr.
func RunMain(t *testing.T, run mcptest.Main, args []string, env ...string) (int, string, string) {
	t.Helper()
	// A private HOME: the default download directory lives in its cache.
	environ := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	code := run(mcptest.Context(t), args, environ, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}
