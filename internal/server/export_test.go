package server

import (
	"sync"

	"github.com/snowluma/snowluma-mcp/catalog"
)

// sharedCatalog is the catalog of every server this package's tests run,
// built with New or in process through app.Run, loaded once: it is
// immutable (see app.Process.Catalog), and loading it for each server was a
// few percent of the package's time under the race detector.
var sharedCatalog = sync.OnceValues(catalog.Load)

// SharedCatalog is sharedCatalog for the external tests.
var SharedCatalog = sharedCatalog
