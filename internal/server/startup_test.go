package server

import (
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// TestOutputChecksLater: a server built with CheckOutputsLater, as the
// binary builds it, hands over one check of its tools' output schemas, and
// it passes in every mode.
func TestOutputChecksLater(t *testing.T) {
	t.Parallel()
	client, err := transfer.New(transfer.Options{Endpoint: "http://127.0.0.1:9/"})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
		var checks []func() error
		b := &backend.Backend{}
		opts := Options{Catalog: sharedCatalog, Mode: mode, Speed: Speed{CheckOutputsLater: func(c func() error) { checks = append(checks, c) }}, Backend: b}
		if mode != config.ModeDocs {
			b.Client = client
		}
		if _, err := New(opts); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(checks) != 1 {
			t.Fatalf("%s: %d checks handed over", mode, len(checks))
		}
		if err := checks[0](); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
	}
}
