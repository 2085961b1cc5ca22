package server

import (
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// BenchmarkNew measures building the server, the part of a cold start that
// is ours: compiling every tool's input schema (each distinct property
// once) and registering the tools, resources and middleware, as the binary
// builds it: the output schemas' check is handed over (CheckOutputsLater)
// and measured on its own by BenchmarkNew/output_check, since the binary
// runs it after its first answer, as it decodes the catalog then (here it
// is loaded beforehand). It runs warm, so it shows less than a fresh
// process pays; go run ./scripts/bench measures the real binary's cold
// start.
func BenchmarkNew(b *testing.B) {
	cat := catalog.Preload()
	if _, err := cat(); err != nil {
		b.Fatal(err)
	}
	client, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
	if err != nil {
		b.Fatal(err)
	}
	options := func(mode config.Mode, check *func() error) Options {
		b := &backend.Backend{}
		opts := Options{Catalog: cat, Mode: mode, Speed: Speed{CheckOutputsLater: func(c func() error) { *check = c }}, Backend: b}
		if mode != config.ModeDocs {
			b.Client = client
		}
		return opts
	}
	for _, mode := range []config.Mode{config.ModeDocs, config.ModeWrite} {
		b.Run(string(mode), func(b *testing.B) {
			var check func() error
			opts := options(mode, &check)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("output_check", func(b *testing.B) {
		var check func() error
		opts := options(config.ModeWrite, &check)
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			if _, err := New(opts); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := check(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
