package completion

import (
	"slices"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
)

// Ranks of an action name, best first.
const (
	rankExact = iota
	rankPrefix
	rankWordPrefix
	rankInside
	rankSearch
)

// actions completes action names and aliases from the catalog, in every
// mode: a name or alias equal to value, then those starting with it, then
// those with a word (after an underscore) starting with it, then those
// containing it, each rank in catalog order. When nothing matches by
// spelling (a Chinese or colloquial word such as 禁言), the catalog's search
// answers, best first. An empty value lists every name.
func (c *Completer) actions(value string) Result {
	cat := c.opts.Catalog
	if cat == nil {
		return Result{}
	}
	value = Fold(value)
	type hit struct {
		rank int
		name string
	}
	var hits []hit
	for _, a := range cat.Actions() {
		for _, n := range append([]string{a.Name}, a.Aliases...) {
			if r, ok := nameRank(strings.ToLower(n), value); ok {
				hits = append(hits, hit{r, n})
			}
		}
	}
	if len(hits) == 0 {
		for _, a := range cat.Search(value, catalog.Filter{}) {
			hits = append(hits, hit{rankSearch, a.Name})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.rank - b.rank })
	res := Result{Total: len(hits), HasMore: len(hits) > MaxValues}
	for _, h := range hits[:min(len(hits), MaxValues)] {
		res.Values = append(res.Values, h.name)
	}
	return res
}

// nameRank says whether value matches the lower-case name n, and how well.
func nameRank(n, value string) (int, bool) {
	switch {
	case n == value:
		return rankExact, true
	case strings.HasPrefix(n, value):
		return rankPrefix, true
	case strings.Contains(n, "_"+value):
		return rankWordPrefix, true
	case strings.Contains(n, value):
		return rankInside, true
	}
	return 0, false
}
