package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
		e := &InUseError{Dir: dir, Holder: strings.TrimSpace(string(b[:n]))}
		if m := holderRecord.FindStringSubmatch(e.Holder); m != nil {
			e.PID, e.Since = m[1], m[2]
		}
		return nil, e
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

// InUseError is the error of a task directory whose lease another process
// holds: a second server on the same folder. Its Error is English; PID and
// Since, read from the lease's record, let a caller say it in the
// operator's language.
type InUseError struct {
	Dir    string
	Holder string // the lease's record as written, "" when it is empty
	PID    string // "" when the record is not this server's
	Since  string // RFC 3339, "" as PID
}

func (e *InUseError) Error() string {
	holder := e.Holder
	if holder == "" {
		holder = "another process"
	}
	return fmt.Sprintf("the task directory is in use by %s; stop it or give this server its own SNOWLUMA_MCP_TASK_DIR", holder)
}

// holderRecord reads the record lock writes.
var holderRecord = regexp.MustCompile(`^snowluma-mcp process (\d+) \(since (\S+)\)$`)

// release gives the lease up.
func (l *lease) release() error { return l.f.Close() }
