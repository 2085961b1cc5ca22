// Command snowluma-mcp is a stdio MCP server that gives MCP clients
// SnowLuma's OneBot action catalog and, when configured, drives a running
// SnowLuma instance. It is configured by environment variables only; run it
// with --help for the list.
//
// The command is a shell: it hands its arguments, environment, standard
// streams and signals to internal/app, which runs the server.
//
// It runs Go code on every processor the runtime gives it (GOMAXPROCS): a
// 12-megapixel picture or an ingest burst then leaves a small call within a
// few milliseconds, where on one processor every hand-off between the
// SDK's goroutines waited behind them (docs/performance.md, "Small calls
// under load").
package main

import (
	"context"
	"os"

	"github.com/snowluma/snowluma-mcp/internal/app"
)

func main() {
	code := app.Run(context.Background(), app.Process{
		Args:     os.Args[1:],
		Environ:  os.Environ(),
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Terminal: stdinIsTerminal(),
		Signals:  true,
	})
	os.Exit(code)
}
