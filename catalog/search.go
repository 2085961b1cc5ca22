package catalog

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A Filter narrows a listing or a search. Zero fields match everything.
type Filter struct {
	Category string // canonical category name, already resolved
	ReadOnly *bool
	Stream   *bool
}

func (f Filter) match(a *Action) bool {
	return (f.Category == "" || a.Category == f.Category) &&
		(f.ReadOnly == nil || a.ReadOnly == *f.ReadOnly) &&
		(f.Stream == nil || a.Stream == *f.Stream)
}

// List returns the actions that pass f, in catalog order.
func (c *Catalog) List(f Filter) []*Action {
	var out []*Action
	for _, a := range c.actions {
		if f.match(a) {
			out = append(out, a)
		}
	}
	return out
}

// foldedAction is an action's search text, lower-cased once.
type foldedAction struct {
	names   []string // name, then aliases
	summary string
	// text is the summary and both names of the category.
	text string
}

func (c *Catalog) fold() []foldedAction {
	labels := make(map[string]string, len(c.categories))
	for _, cat := range c.categories {
		labels[cat.Name] = strings.ToLower(cat.Label)
	}
	out := make([]foldedAction, len(c.actions))
	for i, a := range c.actions {
		summary := strings.ToLower(a.Summary)
		out[i] = foldedAction{
			names:   append([]string{strings.ToLower(a.Name)}, lowerAll(a.Aliases)...),
			summary: summary,
			text:    summary + "\n" + strings.ToLower(a.Category) + "\n" + labels[a.Category],
		}
	}
	return out
}

// Search returns the actions that pass f and whose name, summary or an alias
// contains query, ignoring case, in catalog order. It is the baseline
// substring search.
func (c *Catalog) Search(query string, f Filter) []*Action {
	q := strings.ToLower(query)
	folded := c.folded()
	var out []*Action
	for i, a := range c.actions {
		if !f.match(a) {
			continue
		}
		fa := folded[i]
		if strings.Contains(fa.summary, q) || slices.ContainsFunc(fa.names, func(s string) bool { return strings.Contains(s, q) }) {
			out = append(out, a)
		}
	}
	return out
}

// SearchKeywords splits query on white space and returns the actions that
// pass f and match every term, where a term also matches through its
// synonyms (Chinese and English). Terms are looked for in names, aliases,
// summaries and both names of the category. Exact names or aliases rank
// first, then actions whose name or alias matches every term, then the rest;
// ties keep catalog order.
func (c *Catalog) SearchKeywords(query string, f Filter) []*Action {
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return nil
	}
	expanded := make([][]string, len(terms))
	for i, t := range terms {
		expanded[i] = expand(t)
	}
	whole := strings.ToLower(strings.TrimSpace(query))
	folded := c.folded()

	type hit struct {
		a    *Action
		rank int
	}
	var hits []hit
	for i, a := range c.actions {
		if !f.match(a) {
			continue
		}
		names, text := folded[i].names, folded[i].text
		inNames, inAll := true, true
		for _, alts := range expanded {
			n := containsAny(names, alts)
			if !n {
				inNames = false
				if !containsAny([]string{text}, alts) {
					inAll = false
					break
				}
			}
		}
		if !inAll {
			continue
		}
		rank := 2
		switch {
		case slices.Contains(names, whole) || (len(terms) == 1 && slices.ContainsFunc(names, func(n string) bool { return slices.Contains(expanded[0], n) })):
			rank = 0
		case inNames:
			rank = 1
		}
		hits = append(hits, hit{a, rank})
	}
	slices.SortStableFunc(hits, func(x, y hit) int { return x.rank - y.rank })
	out := make([]*Action, len(hits))
	for i, h := range hits {
		out[i] = h.a
	}
	return out
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

func containsAny(hay []string, needles []string) bool {
	for _, h := range hay {
		for _, n := range needles {
			if strings.Contains(h, n) {
				return true
			}
		}
	}
	return false
}

// expand returns term with its synonyms. An English plural falls back to its
// singular when only the singular is in the table.
func expand(term string) []string {
	if g, ok := synonymIndex[term]; ok {
		return synonyms[g]
	}
	if s, ok := strings.CutSuffix(term, "s"); ok {
		if g, ok := synonymIndex[s]; ok {
			return synonyms[g]
		}
	}
	return []string{term}
}

// Suggest returns up to n action names or aliases close to name: those that
// contain it or that it contains, then the nearest by edit distance.
func (c *Catalog) Suggest(name string, n int) []string {
	q := strings.ToLower(name)
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	for key := range c.byName {
		k := strings.ToLower(key)
		d := editDistance(q, k)
		if q != "" && (strings.Contains(k, q) || strings.Contains(q, k)) {
			d = min(d, 1+abs(utf8.RuneCountInString(k)-utf8.RuneCountInString(q))/4)
		}
		limit := max(2, utf8.RuneCountInString(q)/3)
		if d <= limit {
			cands = append(cands, cand{key, d})
		}
	}
	slices.SortFunc(cands, func(x, y cand) int {
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return strings.Compare(x.name, y.name)
	})
	out := []string{}
	for _, cd := range cands[:min(n, len(cands))] {
		out = append(out, cd.name)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
