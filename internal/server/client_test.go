package server_test

import (
	"context"
	"io"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/app"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/testexit"
)

// The files *_client_test.go hold the behaviour tests: each runs the
// whole server (app.Run, configured by environment as the command is) in
// the test process on in-memory pipes, talks to it as an MCP client does,
// and drives a fake SnowLuma over loopback. Every message is checked
// against the official schema of its era and every structuredContent
// against its tool's outputSchema (mcptest.Start). What needs a process of
// its own (signals, the ends of stdin and stdout, kill -9, memory, doctor,
// another client's process) is tested in cmd/snowluma-mcp; the helpers
// both share (a live server, the task client, event reads...) are in
// internal/mcptest/e2e.

func TestMain(m *testing.M) {
	e2e.SetParallel() // more at once than there are cores; -parallel wins
	testexit.Main(m)
}

// serve runs the server in the test process with env as its environment
// (plus PATH, and a HOME of its own), checked as a process is (mcptest.Start):
// the in-process e2e.Starter.
func serve(t testing.TB, era mcptest.Era, env ...string) *mcptest.Proc {
	t.Helper()
	return mcptest.Start(t, run, era, env...)
}

// run is app.Run as mcptest.Start calls it: without a terminal or signal
// handlers.
func run(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return app.Run(ctx, app.Process{Args: args, Environ: environ, Stdin: stdin, Stdout: stdout, Stderr: stderr, Catalog: server.SharedCatalog})
}

// hintWords are words of the one stderr hint shown when stdin is a
// terminal (cmd/snowluma-mcp's terminal test shows it).
const hintWords = "meant to be started by an MCP host"

// hostile is a draft that must reach the screen and SnowLuma as text: an
// HTML element with a script handler, and a CQ code that would mention the
// whole group if it were parsed (cmd/snowluma-mcp's browser test shows it
// on the panel).
const hostile = `<img src=x onerror=alert(1)> [CQ:at,qq=all]`
