// Command snowluma-mcp is a stdio MCP server that gives MCP clients
// SnowLuma's OneBot action catalog and, when configured, drives a running
// SnowLuma instance. It is configured by environment variables only; run it
// with --help for the list.
//
// The command is a shell: it hands its arguments, environment, standard
// streams and signals to internal/app, which runs the server.
//
// When standard input is a pipe or a socket, as an MCP host starts it, the
// server reads it through the runtime's poller and, once started, runs Go
// code on one processor (GOMAXPROCS=1, unless the environment sets
// GOMAXPROCS). A call then goes from the request line to the answer on one
// thread, as Node's event loop does: with a blocking read and two
// processors, the runtime woke a second thread for every hand-off between
// the SDK's goroutines, about seven context switches a call, and a docs
// call took half again as much CPU and time (docs/performance.md).
package main

import (
	"context"
	"os"
	"runtime"

	"github.com/snowluma/snowluma-mcp/internal/app"
)

func main() {
	stdin, restore, started := os.Stdin, func() {}, func() {}
	if f, r, ok := pollable(0); ok {
		stdin, restore = f, r
		if os.Getenv("GOMAXPROCS") == "" {
			// After the start-up, which compiles schemas and opens the
			// archive in parallel.
			started = func() { runtime.GOMAXPROCS(1) }
		}
	}
	code := app.Run(context.Background(), app.Process{
		Args:     os.Args[1:],
		Environ:  os.Environ(),
		Stdin:    stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Terminal: stdinIsTerminal(),
		Signals:  true,
		Started:  started,
	})
	restore()
	runtime.KeepAlive(stdin) // its finalizer would close descriptor 0
	os.Exit(code)
}
