package version

import (
	"runtime/debug"
	"testing"
)

// TestOf covers each way a binary comes to be: at a tag, between tags,
// with uncommitted changes, installed by go install, and without any VCS
// stamp (go run, -buildvcs=false, a git worktree).
func TestOf(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := func(v string, modified bool) *debug.BuildInfo {
		m := "false"
		if modified {
			m = "true"
		}
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/snowluma/snowluma-mcp", Version: v},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: m}}}
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build information", nil, Base + "-dev"},
		{"go run or -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Base + "-dev"},
		{"at a release tag", stamped("v1.2.0", false), "1.2.0"},
		{"at a pre-release tag", stamped("v1.3.0-rc.1", false), "1.3.0-rc.1"},
		{"at a tag with changes", stamped("v1.2.0+dirty", true), "1.2.0+dirty"},
		{"go install at a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "1.2.0"},
		{"untagged commit", stamped("v0.0.0-20261201093000-0123456789ab", false), Base + "-dev+0123456789ab"},
		{"after a tag", stamped("v1.2.1-0.20261201093000-0123456789ab", false), Base + "-dev+0123456789ab"},
		{"untagged with changes", stamped("v0.0.0-20261201093000-0123456789ab+dirty", true), Base + "-dev+0123456789ab.dirty"},
		{"go install at a commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201093000-abcdefabcdef"}}, Base + "-dev+abcdefabcdef"},
	} {
		if got := Of(tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := Commit(stamped("v1.2.0", false)); got != rev[:12] {
		t.Errorf("Commit: %q", got)
	}
}
