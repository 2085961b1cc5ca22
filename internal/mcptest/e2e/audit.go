package e2e

import (
	"bufio"
	"os"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest"
)

// AuditLines reads the records of the audit file at path.
func AuditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, mcptest.Decode[map[string]any](t, sc.Bytes()))
	}
	return out
}
