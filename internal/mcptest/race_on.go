//go:build race

package mcptest

// RaceEnabled reports whether the tests run with the race detector; Build
// then builds the server with it too, so that the concurrency tests check
// the server's goroutines, not only the test process's.
const RaceEnabled = true
