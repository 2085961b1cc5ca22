// Package dirperm decides whether a directory counts as private, the same
// way for the task directory and the download directory, as a pure function
// of the operating system and the directory's mode so that the decision for
// every system can be tested on any one.
//
// On POSIX systems a private directory has no permission bit for its group
// or for others. Windows keeps access in access control lists, which Go's
// file modes do not show: Go reports every Windows directory as mode 0777.
// There only that the path is a directory is checked from its mode (callers
// check writability by writing); the access list is left to the operator.
package dirperm

import (
	"fmt"
	"io/fs"
)

// posix reports whether goos has POSIX permission bits that mean what they
// say.
func posix(goos string) bool { return goos != "windows" }

// Problem says what keeps a directory whose os.Stat mode is mode from
// counting as private on goos, in words that follow its path ("is not a
// directory", "is readable by other users (mode 0755); run chmod 700 on
// it"), or "" when nothing does.
func Problem(goos string, mode fs.FileMode) string {
	if !mode.IsDir() {
		return "is not a directory"
	}
	if perm := mode.Perm(); posix(goos) && perm&0o077 != 0 {
		return fmt.Sprintf("is readable by other users (mode %#o); run chmod 700 on it", perm)
	}
	return ""
}

// WritableByOthers reports whether a directory of mode perm on goos (a
// runtime.GOOS value) can be written by users other than its owner, which
// refuses it as a place for files the server saves and reports. On
// Windows, where Go reports 0777 for any directory it may write, the
// answer is always false.
func WritableByOthers(goos string, perm fs.FileMode) bool {
	return posix(goos) && perm&0o022 != 0
}

// POSIX reports whether "private" means mode 0700 on goos, as it does
// everywhere but on Windows, where only that the path is a directory is
// checked; doctor says which in the person's language.
func POSIX(goos string) bool { return posix(goos) }
