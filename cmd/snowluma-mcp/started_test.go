package main_test

import (
	"context"
	"io"
	"sync/atomic"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/app"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// TestStartedOnceServing: the hook for the end of the start-up
// (app.Process.Started, where the binary goes to one processor) runs once
// the server has answered and announced itself, and only once, in both
// eras.
func TestStartedOnceServing(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		var calls atomic.Int32
		started := make(chan struct{})
		run := func(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer) int {
			return app.Run(ctx, app.Process{Args: args, Environ: environ, Stdin: stdin, Stdout: stdout, Stderr: stderr, Catalog: sharedCatalog,
				Started: func() {
					if calls.Add(1) == 1 {
						close(started)
					}
				}})
		}
		p := mcptest.Start(t, run, era)
		cs := p.Connect(nil)
		ctx := mcptest.Context(t)
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-started:
		case <-ctx.Done():
			t.Fatal("Started was not called once the server answered")
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		p.Close()
		if n := calls.Load(); n != 1 {
			t.Errorf("Started called %d times", n)
		}
	})
}
