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
	names []string // name, then aliases
	// summaries holds the English and the Chinese summary.
	summaries []string
	// text is both summaries and both names of the category.
	text string
}

func (c *Catalog) fold() []foldedAction {
	out := make([]foldedAction, len(c.actions))
	for i, a := range c.actions {
		summaries := lowerAll([]string{a.Summary, a.SummaryZh})
		out[i] = foldedAction{
			names:     append([]string{strings.ToLower(a.Name)}, lowerAll(a.Aliases)...),
			summaries: summaries,
			text:      strings.Join(append(summaries, strings.ToLower(a.Category), strings.ToLower(a.CategoryLabel)), "\n"),
		}
	}
	return out
}

// Search returns the actions that pass f and whose name, an alias, or the
// English or Chinese summary contains query, ignoring case. It is the
// baseline substring search: catalog order, except that unsupported actions
// (stubs and no-ops) come last.
func (c *Catalog) Search(query string, f Filter) []*Action {
	q := strings.ToLower(query)
	folded := c.folded()
	var out, unsupported []*Action
	for i, a := range c.actions {
		if !f.match(a) {
			continue
		}
		fa := folded[i]
		if !containsAny(fa.summaries, []string{q}) && !containsAny(fa.names, []string{q}) {
			continue
		}
		if a.IsSupported() {
			out = append(out, a)
		} else {
			unsupported = append(unsupported, a)
		}
	}
	return append(out, unsupported...)
}

// SearchKeywords splits query on white space and returns the actions that
// pass f and match every term, where a term also matches through its
// synonyms (Chinese and English). Terms are looked for in names, aliases,
// both summaries and both names of the category.
//
// The best match comes first: an exact name or alias; then, with
// unsupported actions (stubs and no-ops) always after the rest, the action
// whose name or aliases hit more terms, then whose summaries hit more terms,
// then a OneBot v11 standard action before an extension; ties keep catalog
// order.
func (c *Catalog) SearchKeywords(query string, f Filter) []*Action {
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return nil
	}
	hits := make([]termHits, len(terms))
	for i, t := range terms {
		hits[i] = c.hitsOf(t)
	}
	firstAlts := expand(terms[0])
	whole := strings.ToLower(strings.TrimSpace(query))
	folded := c.folded()

	type hit struct {
		a                    *Action
		exact, supported     bool
		nameHits, summaryHit int
		common               bool
	}
	var found []hit
	for i, a := range c.actions {
		if !f.match(a) {
			continue
		}
		fa := folded[i]
		h := hit{a: a, supported: a.IsSupported(), common: onebot11[a.Name]}
		all := true
		for _, th := range hits {
			inName, inSummary := th.names.has(i), th.summaries.has(i)
			if !inName && !inSummary && !th.text.has(i) {
				all = false
				break
			}
			if inName {
				h.nameHits++
			}
			if inSummary {
				h.summaryHit++
			}
		}
		if !all {
			continue
		}
		h.exact = slices.Contains(fa.names, whole) ||
			(len(terms) == 1 && slices.ContainsFunc(fa.names, func(n string) bool { return slices.Contains(firstAlts, n) }))
		found = append(found, h)
	}
	slices.SortStableFunc(found, func(x, y hit) int {
		switch {
		case x.exact != y.exact:
			return first(x.exact)
		case x.supported != y.supported:
			return first(x.supported)
		case x.nameHits != y.nameHits:
			return y.nameHits - x.nameHits
		case x.summaryHit != y.summaryHit:
			return y.summaryHit - x.summaryHit
		case x.common != y.common:
			return first(x.common)
		}
		return 0
	})
	out := make([]*Action, len(found))
	for i, h := range found {
		out[i] = h.a
	}
	return out
}

// termHits is which actions one keyword term matches, through any of its
// synonyms: in a name or alias, in a summary, and anywhere in the search
// text.
type termHits struct{ names, summaries, text bitset }

// maxTerms bounds the remembered terms; past it a term is matched anew on
// every search.
const maxTerms = 1024

// hitsOf returns the actions term matches, computed on its first search.
func (c *Catalog) hitsOf(term string) termHits {
	c.termsMu.Lock()
	h, ok := c.terms[term]
	c.termsMu.Unlock()
	if ok {
		return h
	}
	alts := expand(term)
	n := len(c.actions)
	h = termHits{names: newBitset(n), summaries: newBitset(n), text: newBitset(n)}
	for i, fa := range c.folded() {
		if containsAny(fa.names, alts) {
			h.names.set(i)
		}
		if containsAny(fa.summaries, alts) {
			h.summaries.set(i)
		}
		if containsOne(fa.text, alts) {
			h.text.set(i)
		}
	}
	c.termsMu.Lock()
	if c.terms == nil {
		c.terms = make(map[string]termHits)
	}
	if len(c.terms) < maxTerms {
		c.terms[term] = h
	}
	c.termsMu.Unlock()
	return h
}

// bitset is a set of action indices.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// first orders a pair that differs in one flag: the one holding it (x when
// xHas) first.
func first(xHas bool) int {
	if xHas {
		return -1
	}
	return 1
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
		if containsOne(h, needles) {
			return true
		}
	}
	return false
}

// containsOne reports whether h contains any of needles.
func containsOne(h string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(h, n) {
			return true
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
