package main_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/app"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/testexit"
)

// binDir holds the snowluma-mcp binary, built by the first test that needs
// a process (binary).
var binDir string

func TestMain(m *testing.M) {
	e2e.SetParallel() // more at once than there are cores; -parallel wins
	dir, err := os.MkdirTemp("", "snowluma-mcp-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	testexit.End(code)
}

// built and builtPlain build the binaries once, for the tests that need a
// process.
var (
	built      = sync.OnceValues(func() (string, error) { return mcptest.Build(binDir) })
	builtPlain = sync.OnceValues(func() (string, error) {
		dir := filepath.Join(binDir, "plain")
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", err
		}
		return readmeBuild(filepath.Join(dir, "snowluma-mcp"))
	})
)

// binary is the snowluma-mcp binary for a test whose subject is the
// process's own concurrency: signals, the ends of stdin and stdout, a
// crash, the exit status. Under go test -race it has the detector too, and
// a race in it fails the test (mcptest.Spawn). Every other test runs the
// server in process (serve) or, when it needs a process for another
// reason, plainBinary.
func binary(t testing.TB) string { return builtOrFail(t, built) }

// plainBinary is the binary without the race detector, built by the
// README's own build command (TestStaticBuild checks what it gives), for a
// test that needs a process for what it is rather than for its
// concurrency: doctor, another client's process (the TypeScript SDK, the
// Inspector, the panel in a browser), the sandbox, a terminal, and the
// memory figures, which must be the product's. The detector makes each
// start and call of a process several times dearer, and the same code is
// race-checked in process: this package started 180 race-built processes,
// and it took 141 busy core-seconds instead of 172 once most of them were
// plain.
func plainBinary(t testing.TB) string { return builtOrFail(t, builtPlain) }

// builtOrFail returns the binary build made, failing t if it could not.
func builtOrFail(t testing.TB, build func() (string, error)) string {
	t.Helper()
	bin, err := build()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// serve runs the server in the test process with env as its environment
// (plus PATH, and a HOME of its own), checked as a process is (mcptest.Start):
// the in-process e2e.Starter.
func serve(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc {
	t.Helper()
	return mcptest.Start(t, run, era, env...)
}

// sharedCatalog is the catalog of every in-process server of these tests,
// decoded once: it is immutable (see app.Process.Catalog).
var sharedCatalog = sync.OnceValues(catalog.Load)

// run is app.Run as mcptest.Start calls it: in the test process, without
// a terminal or signal handlers.
func run(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return app.Run(ctx, app.Process{Args: args, Environ: environ, Stdin: stdin, Stdout: stdout, Stderr: stderr, Catalog: sharedCatalog})
}

// spawn starts the binary with env as its environment (plus PATH and
// HOME), for a test that needs a process (binary): the binary's
// e2e.Starter.
func spawn(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc {
	t.Helper()
	return mcptest.Spawn(t, binary(t), era, env...)
}
