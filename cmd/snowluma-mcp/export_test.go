package main

import (
	"context"
	"io"
)

// Run is run for the tests in package main_test (mcptest.Main): the server
// in the test process, without a terminal or signal handlers.
func Run(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, process{args: args, environ: environ, stdin: stdin, stdout: stdout, stderr: stderr})
}
