package tasks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Probe checks, without creating or changing anything, that dir would open
// for scope: an absolute private directory (or a missing one whose parent
// exists), bound to scope or not yet bound, with its lease free. It
// returns a short description of what it found.
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
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%s is readable by other users (mode %#o); run chmod 700 on it", dir, perm)
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
	return dir + " is private, belongs to this configuration and its lease is free", nil
}
