package simtest

import (
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/testexit"
)

// TestMain skips the race detector's second of waiting at exit.
func TestMain(m *testing.M) { testexit.Main(m) }
