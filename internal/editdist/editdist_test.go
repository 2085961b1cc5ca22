package editdist

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"kitten", "sitting", 3},
		{"send_grup_msg", "send_group_msg", 1},
		{"禁严", "禁言", 1},
		{"SNOWLUMA_MCP_TIMOUT_MS", "SNOWLUMA_MCP_TIMEOUT_MS", 1},
		{"abc", "", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
	long := strings.Repeat("x", 256<<10)
	if got := Distance(long, "get_msg"); got != len(long) {
		t.Errorf("a 256 KiB string: %d, want its length", got)
	}
}
