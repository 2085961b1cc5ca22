package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/snowluma/snowluma-mcp/internal/dirperm"
)

// Probe checks, without creating or changing anything, that dir would open
// for scope: an absolute private directory, as dirperm decides it for this
// system (or a missing one whose parent exists), bound to scope or not yet
// bound, with its lease free. exists is false when dir is yet to be
// created; doctor words the finding.
func Probe(dir string, scope Scope) (exists bool, err error) {
	if !filepath.IsAbs(dir) {
		return false, fmt.Errorf("%q is not an absolute path", dir)
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(dir)
		if pfi, perr := os.Stat(parent); perr != nil || !pfi.IsDir() {
			return false, fmt.Errorf("%s does not exist, and neither does its parent %s", dir, parent)
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if problem := dirperm.Problem(runtime.GOOS, fi.Mode()); problem != "" {
		return false, fmt.Errorf("%s %s", dir, problem)
	}
	if _, err := checkScope(dir, scope); errors.Is(err, ErrScopeMismatch) {
		return false, fmt.Errorf("%w; choose a new private SNOWLUMA_MCP_TASK_DIR for this configuration", err)
	} else if err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(dir, leaseFile)); err == nil {
		l, err := lock(dir, false)
		if err != nil {
			return false, err
		}
		l.release()
	}
	return true, nil
}
