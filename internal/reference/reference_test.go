package reference

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// outcome records how Path ended a test: the fake's Fatalf and Skipf stop
// the goroutine Path runs in, as the real ones stop a test.
type outcome struct {
	testing.TB
	failed, skipped string
}

func (o *outcome) Helper() {}
func (o *outcome) Fatalf(format string, args ...any) {
	o.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (o *outcome) Skipf(format string, args ...any) {
	o.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// path runs Path with a fake TB in its own goroutine, so that the fake can
// stop it without stopping the test.
func path(t *testing.T, name string) (string, *outcome) {
	o := &outcome{TB: t}
	got := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		got <- Path(o, name)
	}()
	<-done
	select {
	case p := <-got:
		return p, o
	default:
		return "", o
	}
}

func TestPath(t *testing.T) {
	shared := t.TempDir()
	if err := os.Mkdir(filepath.Join(shared, "reference"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(shared, "reference", "present.json")
	if err := os.WriteFile(want, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()

	for _, tc := range []struct {
		shared, name, ci      string
		path, failed, skipped string // what Path returns, or the substring of its failure or skip
	}{
		{shared: shared, name: "present.json", ci: "true", path: want},
		{shared: shared, name: "present.json", path: want},
		{shared: shared, name: "absent.json", ci: "true", failed: "absent.json not found"},
		{shared: shared, name: "absent.json", skipped: "absent.json not found"},
		{shared: empty, name: "present.json", ci: "true", failed: "reference not found"},
		{shared: empty, name: "present.json", ci: "1", failed: "reference not found"},
		{shared: empty, name: "present.json", skipped: "reference not found"},
		{shared: empty, name: "present.json", ci: "false", skipped: "reference not found"},
		{shared: "relative/shared", name: "present.json", ci: "true", failed: "not an absolute path"},
	} {
		t.Setenv(EnvShared, tc.shared)
		t.Setenv("CI", tc.ci)
		p, o := path(t, tc.name)
		what := fmt.Sprintf("shared %s, %s, CI=%q", tc.shared, tc.name, tc.ci)
		switch {
		case tc.path != "" && (p != tc.path || o.failed != "" || o.skipped != ""):
			t.Errorf("%s: path %q, failed %q, skipped %q; want the path %s", what, p, o.failed, o.skipped, tc.path)
		case tc.failed != "" && (!strings.Contains(o.failed, tc.failed) || o.skipped != ""):
			t.Errorf("%s: failed %q, skipped %q; want a failure naming %q", what, o.failed, o.skipped, tc.failed)
		case tc.skipped != "" && (!strings.Contains(o.skipped, tc.skipped) || o.failed != ""):
			t.Errorf("%s: failed %q, skipped %q; want a skip naming %q", what, o.failed, o.skipped, tc.skipped)
		}
	}
}

// TestDirBesideParents finds ../shared/reference from a directory several
// levels below the one it is beside, as a package's tests do.
func TestDirBesideParents(t *testing.T) {
	root := t.TempDir()
	ref := filepath.Join(root, "shared", "reference")
	deep := filepath.Join(root, "repo", "cmd", "tool")
	for _, d := range []string{ref, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvShared, "")
	t.Chdir(deep)
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := filepath.EvalSymlinks(dir); got != mustEval(t, ref) {
		t.Errorf("Dir() = %s, want %s", dir, ref)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
