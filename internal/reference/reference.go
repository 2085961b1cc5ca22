// Package reference finds the shared reference data (official MCP schemas,
// SnowLuma's catalog snapshot) that tests compare against. The data lives
// beside the repository in ../shared/reference and is never copied into it.
package reference

import (
	"os"
	"path/filepath"
	"testing"
)

// Path returns the path of the reference file called name, looking in
// shared/reference beside the repository (or beside any parent of the test's
// working directory). When it is absent, as outside CI, the test is skipped
// with a message saying so.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "..", "shared", "reference", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skipf("reference file %s not found in ../shared/reference: skipping the comparison", name)
		}
		dir = parent
	}
}
