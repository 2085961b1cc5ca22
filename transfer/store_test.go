package transfer

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNewStoreRefusesSharedDirectory: a download directory others can
// write to is refused with the fix, and left as it was; a private or
// merely readable one is used as it is.
func TestNewStoreRefusesSharedDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	for _, perm := range []fs.FileMode{0o777, 0o770, 0o777 | fs.ModeSticky} {
		dir := filepath.Join(t.TempDir(), "d")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, perm); err != nil {
			t.Fatal(err)
		}
		_, err := NewStore(dir, 0, 0)
		if err == nil || !strings.Contains(err.Error(), "can be written by other users") || !strings.Contains(err.Error(), "chmod go-w") {
			t.Errorf("%#o: %v", perm, err)
		}
		if fi, _ := os.Stat(dir); fi.Mode()&(fs.ModePerm|fs.ModeSticky) != perm {
			t.Errorf("%#o: the mode became %v", perm, fi.Mode())
		}
	}
	for _, perm := range []fs.FileMode{0o700, 0o755} {
		dir := filepath.Join(t.TempDir(), "d")
		os.Mkdir(dir, 0o700)
		os.Chmod(dir, perm)
		if _, err := NewStore(dir, 0, 0); err != nil {
			t.Errorf("%#o: %v", perm, err)
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != perm {
			t.Errorf("%#o: the mode became %v", perm, fi.Mode())
		}
	}
}
