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
)

func main() {
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
