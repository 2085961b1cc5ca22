// Package reference finds the shared reference data (official MCP schemas,
// SnowLuma's catalog snapshot) that tests compare against. The data lives
// beside the repository in ../shared/reference and is never copied into it.
//
// Whether its absence is acceptable depends on where the tests run: under
// CI (see UnderCI) a test that needs the data and cannot find it fails;
// elsewhere it says so and goes on without the comparison.
package reference

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// EnvShared names the environment variable that points the tests at a
// shared directory other than ../shared, by its absolute path: its
// reference subdirectory is then the only place looked in. Tests of the harness set it to an empty
// directory to see what happens without the data.
const EnvShared = "SNOWLUMA_MCP_TEST_SHARED"

// UnderCI reports whether the tests run under continuous integration: the
// CI environment variable is set to anything but "", "0" or "false".
func UnderCI() bool {
	switch os.Getenv("CI") {
	case "", "0", "false":
		return false
	}
	return true
}

// Dir returns the shared reference directory: $SNOWLUMA_MCP_TEST_SHARED/
// reference when that variable is set, else shared/reference beside the
// working directory or beside any of its parents (tests run in their
// package's directory, several levels below the repository's root). The
// error says where it looked.
func Dir() (string, error) {
	if shared := os.Getenv(EnvShared); shared != "" {
		if !filepath.IsAbs(shared) {
			// Each package's tests run in its own directory.
			return "", fmt.Errorf("%s=%s is not an absolute path", EnvShared, shared)
		}
		dir := filepath.Join(shared, "reference")
		if isDir(dir) {
			return dir, nil
		}
		return "", fmt.Errorf("%s not found (%s=%s)", dir, EnvShared, shared)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding ../shared/reference: %w", err)
	}
	for dir := wd; ; {
		ref := filepath.Join(dir, "..", "shared", "reference")
		if isDir(ref) {
			return filepath.Clean(ref), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("../shared/reference not found beside %s or any of its parents", wd)
		}
		dir = parent
	}
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Find returns the path of the reference file called name, or an error
// saying what is missing.
func Find(name string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("reference file %s not found in %s", name, dir)
		}
		return "", fmt.Errorf("reference file %s: %w", name, err)
	}
	return p, nil
}

// Path returns the path of the reference file called name, for a test that
// cannot do its work without it. When the file is missing the test fails
// under CI and is skipped elsewhere, with the reason either way.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	p, err := Find(name)
	if err != nil {
		Missing(tb, err)
	}
	return p
}

// Missing ends a test whose reference data is missing (err says what):
// under CI it fails, elsewhere it is skipped with the reason.
func Missing(tb testing.TB, err error) {
	tb.Helper()
	if UnderCI() {
		tb.Fatalf("%v: CI needs ../shared/reference beside the repository", err)
	}
	tb.Skipf("%v: skipping this test (under CI it fails)", err)
}
