package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// stdinIsTerminal reports whether standard input is a console: a person
// started the server by hand rather than an MCP host with a pipe.
func stdinIsTerminal() bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(os.Stdin.Fd()), &mode) == nil
}
