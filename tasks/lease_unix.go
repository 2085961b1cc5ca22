//go:build unix

package tasks

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive, non-blocking lock on f, held until f is
// closed or the process ends (a kill -9 included: the kernel drops it).
func lockFile(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// isUnsupportedSync reports a directory fsync the file system refuses.
func isUnsupportedSync(err error) bool { return errors.Is(err, syscall.EINVAL) }
