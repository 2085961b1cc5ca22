package server

import (
	"testing"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// BenchmarkNew measures building the server, the part of a cold start that
// is ours: compiling every tool's input and output schemas (deduplicated by
// property) and registering the tools, resources and middleware. The
// catalog is loaded beforehand, as the binary decodes it only after its
// first answer. It runs warm, so it shows less than a fresh process pays;
// go run ./scripts/bench measures the cold start of the real binary.
func BenchmarkNew(b *testing.B) {
	cat := catalog.Preload()
	if _, err := cat(); err != nil {
		b.Fatal(err)
	}
	client, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []Mode{ModeDocs, ModeWrite} {
		b.Run(string(mode), func(b *testing.B) {
			opts := Options{Catalog: cat, Mode: mode}
			if mode != ModeDocs {
				opts.Client = client
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
