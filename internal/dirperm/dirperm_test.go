package dirperm

import (
	"io/fs"
	"strings"
	"testing"
)

func TestProblem(t *testing.T) {
	for _, tc := range []struct {
		goos string
		mode fs.FileMode
		want string // a part of the problem; "" for none
	}{
		{"linux", fs.ModeDir | 0o700, ""},
		{"linux", fs.ModeDir | 0o755, "mode 0755); run chmod 700"},
		{"linux", fs.ModeDir | 0o710, "mode 0710"},
		{"darwin", fs.ModeDir | 0o707, "mode 0707"},
		{"freebsd", fs.ModeDir | 0o700, ""},
		{"linux", 0o600, "is not a directory"},
		// Go reports every Windows directory as 0777: not a refusal.
		{"windows", fs.ModeDir | 0o777, ""},
		{"windows", fs.ModeDir | 0o555, ""},
		{"windows", 0o666, "is not a directory"},
	} {
		got := Problem(tc.goos, tc.mode)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: %q, want %q", tc.goos, tc.mode, got, tc.want)
		}
	}
}

func TestPOSIX(t *testing.T) {
	if !POSIX("linux") || !POSIX("darwin") || POSIX("windows") {
		t.Error("POSIX: linux and darwin have modes, windows has access lists")
	}
}

func TestWritableByOthers(t *testing.T) {
	for _, tc := range []struct {
		goos string
		perm fs.FileMode
		want bool
	}{
		{"linux", 0o700, false},
		{"linux", 0o755, false},
		{"darwin", 0o750, false},
		{"linux", 0o770, true},
		{"linux", 0o777, true},
		{"freebsd", 0o702, true},
		{"darwin", 0o720, true},
		{"windows", 0o777, false}, // what Go reports for any writable directory there
		{"windows", 0o700, false},
	} {
		if got := WritableByOthers(tc.goos, tc.perm); got != tc.want {
			t.Errorf("WritableByOthers(%s, %#o) = %v, want %v", tc.goos, tc.perm, got, tc.want)
		}
	}
}
