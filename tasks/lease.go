package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// leaseFile holds the runtime lease: one process at a time runs the tasks
// of a directory.
const leaseFile = "lease"

// A lease is the open, locked lease file.
type lease struct{ f *os.File }

// takeLease locks dir's lease for this process and records who holds it.
// When another process holds it, the error says which.
func takeLease(dir string) (*lease, error) { return lock(dir, true) }

// lock locks dir's lease; record writes this process into it.
func lock(dir string, record bool) (*lease, error) {
	path := filepath.Join(dir, leaseFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the task lease: %w", err)
	}
	held, err := lockFile(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the task lease: %w", err)
	}
	if held {
		b := make([]byte, 256)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		holder := strings.TrimSpace(string(b[:n]))
		if holder == "" {
			holder = "another process"
		}
		return nil, fmt.Errorf("the task directory is in use by %s; stop it or give this server its own SNOWLUMA_MCP_TASK_DIR", holder)
	}
	if !record {
		return &lease{f: f}, nil
	}
	// Say who holds it, for the next process that asks.
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("snowluma-mcp process %d (since %s)\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))), 0)
	f.Sync()
	return &lease{f: f}, nil
}

// release gives the lease up.
func (l *lease) release() error { return l.f.Close() }
