// Package version says which build of snowluma-mcp is running. A plain
// go build, a release archive and an MCP Bundle all answer through Of, from
// the build information the Go toolchain writes into every binary, so the
// three say the same thing for the same commit: scripts/release reads the
// version out of the binaries it built rather than working it out again.
package version

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Base is the release the source is heading for. A binary built from a
// commit with a release tag (or installed with go install at that tag) is
// the tag's version instead; any other build is Base-dev, with the commit
// when the toolchain stamped it.
const Base = "0.1.0"

// release matches a tag that is a semantic version, v1.2.3 or v1.2.3-rc.1;
// pseudo matches the end of a Go pseudo-version, the toolchain's name for
// an untagged commit (v0.0.0-20261201093000-0123456789ab).
var (
	release = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
	pseudo  = regexp.MustCompile(`[-.][0-9]{14}-[0-9a-f]{12}$`)
)

// Of is the version of the build bi describes:
//
//   - 1.2.0 for a binary built at tag v1.2.0, from a clean checkout or by
//     go install ...@v1.2.0; 1.2.0+dirty with uncommitted changes;
//   - Base-dev+0123456789ab (.dirty appended with uncommitted changes) for
//     any other commit the toolchain stamped;
//   - Base-dev when nothing says the commit: go run, -buildvcs=false, or a
//     git worktree, whose .git file the toolchain does not follow.
//
// A nil bi is a binary without build information.
func Of(bi *debug.BuildInfo) string {
	if bi == nil {
		return Base + "-dev"
	}
	v, dirty := strings.CutSuffix(bi.Main.Version, "+dirty")
	if release.MatchString(v) && !pseudo.MatchString(v) {
		v = strings.TrimPrefix(v, "v")
		if dirty {
			v += "+dirty"
		}
		return v
	}
	out := Base + "-dev"
	if rev := Commit(bi); rev != "" {
		out += "+" + rev
		if modified(bi) {
			out += ".dirty"
		}
	}
	return out
}

// Commit is the first twelve hex digits of the commit bi was built from:
// the toolchain's VCS stamp, else the end of a pseudo-version (go install
// at a commit); "" when neither says.
func Commit(bi *debug.BuildInfo) string {
	if bi == nil {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	if v, _ := strings.CutSuffix(bi.Main.Version, "+dirty"); pseudo.MatchString(v) {
		return v[len(v)-12:]
	}
	return ""
}

func modified(bi *debug.BuildInfo) bool {
	for _, s := range bi.Settings {
		if s.Key == "vcs.modified" {
			return s.Value == "true"
		}
	}
	return false
}

// Current is the version of the running binary.
func Current() string {
	bi, _ := debug.ReadBuildInfo()
	return Of(bi)
}

// CurrentCommit is the commit of the running binary, "" when unknown.
func CurrentCommit() string {
	bi, _ := debug.ReadBuildInfo()
	return Commit(bi)
}

// UserAgent is the User-Agent header of every request the running binary
// sends: snowluma-mcp/<version>.
func UserAgent() string { return "snowluma-mcp/" + Current() }
