// Command snowluma-mcp is a stdio MCP server that gives MCP clients
// SnowLuma's OneBot action catalog and, when configured, drives a running
// SnowLuma instance. It is configured by environment variables only; run it
// with --help for the list.
//
// The command is a shell: it hands its arguments, environment, standard
// streams and signals to internal/app, which runs the server.
package main

import (
	"context"
	"os"

	"github.com/snowluma/snowluma-mcp/internal/app"
	"github.com/snowluma/snowluma-mcp/internal/heapfloor"
)

// heapFloor is the heap the server may grow to before it collects (see
// heapfloor): about 32 MiB, where the live heap is about 8, so that a
// docs call is not half garbage collection. An operator's own GOGC wins.
const heapFloor = 32 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		heapfloor.Keep(heapFloor)
	}
	os.Exit(app.Run(context.Background(), app.Process{
		Args:     os.Args[1:],
		Environ:  os.Environ(),
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Terminal: stdinIsTerminal(),
		Signals:  true,
	}))
}
