package server

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// extraFields refuses an accepted form answer holding a field the form
// did not ask for (fields lists those it did): what the person saw and
// answered is not what came back.
func extraFields(content map[string]any, restart string, fields ...string) (toolkit.Reply, bool) {
	var extra []string
	for _, k := range slices.Sorted(maps.Keys(content)) {
		if !slices.Contains(fields, k) {
			if len(k) > 40 {
				k = k[:40] + "…"
			}
			extra = append(extra, strconv.Quote(k))
		}
	}
	if extra == nil {
		return toolkit.Reply{}, true
	}
	if len(extra) > 5 {
		extra = append(extra[:5], "…")
	}
	return toolkit.Fail(toolkit.KindInvalidAnswer, fmt.Sprintf("the answer has field(s) %s that the form did not ask for (it asked for %s only); nothing was run",
		strings.Join(extra, ", "), strings.Join(fields, " and ")), restart), false
}
