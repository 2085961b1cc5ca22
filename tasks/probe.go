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
// bound, with its lease free. It returns a short description of what it
// found.
func Probe(dir string, scope Scope) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%q is not an absolute path", dir)
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(dir)
		if pfi, perr := os.Stat(parent); perr != nil || !pfi.IsDir() {
			return "", fmt.Errorf("%s does not exist, and neither does its parent %s", dir, parent)
		}
		return dir + " does not exist yet; it will be created (0700) on start", nil
	}
	if err != nil {
		return "", err
	}
	if problem := dirperm.Problem(runtime.GOOS, fi.Mode()); problem != "" {
		return "", fmt.Errorf("%s %s", dir, problem)
	}
	if _, err := checkScope(dir, scope); errors.Is(err, ErrScopeMismatch) {
		return "", fmt.Errorf("%w; choose a new private SNOWLUMA_MCP_TASK_DIR for this configuration", err)
	} else if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, leaseFile)); err == nil {
		l, err := lock(dir, false)
		if err != nil {
			return "", err
		}
		l.release()
	}
	return dir + " is private (" + dirperm.Checked(runtime.GOOS) + "), belongs to this configuration and its lease is free", nil
}
