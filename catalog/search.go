package catalog

import (
	"math"
	"math/bits"
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

// Search is the default search. It returns every action that passes f and
// whose name, an alias, or the English or Chinese summary contains query,
// ignoring case (the baseline substring match, so nothing it finds is ever
// lost), together with the actions that match part of query once it is cut
// into terms (see terms: unspaced Chinese is segmented, colloquial words go
// through the synonym table, a misspelt English word is taken as the nearest
// word of an action name).
//
// The order is by relevance, not catalog order: an exact name or alias
// first; then, with unsupported actions (stubs and no-ops) always after the
// rest, by score, where the whole query as a substring counts as one more
// term; ties keep catalog order. An action that only matches part of the
// query is kept when the terms it matches weigh at least half of all terms
// and its score is at least half the best.
func (c *Catalog) Search(query string, f Filter) []*Action {
	return c.rank(query, f, false)
}

// SearchKeywords is the keyword search. It cuts query into terms as Search
// does (white space, then dictionary words and synonyms inside unspaced
// Chinese) and returns the actions that pass f and match every term first,
// then the actions that match only some of them. A term matches through its
// synonyms (Chinese and English), in names, aliases, both summaries and both
// names of the category.
//
// The order: an exact name or alias; then, with unsupported actions always
// after the rest, the actions matching every term before the others; then by
// score, which weighs each term by how rare it is and counts a hit in the
// name or an alias above one in a summary, above one in the category; then a
// OneBot v11 standard action before an extension; ties keep catalog order.
func (c *Catalog) SearchKeywords(query string, f Filter) []*Action {
	return c.rank(query, f, true)
}

// rank scores every action that passes f against query and returns the
// matches in order; keywords selects SearchKeywords' rules over Search's.
func (c *Catalog) rank(query string, f Filter, keywords bool) []*Action {
	whole := strings.ToLower(strings.TrimSpace(query))
	if whole == "" {
		return nil
	}
	terms := c.segment(whole)
	hits := make([]termHits, len(terms))
	weights := make([]float64, len(terms))
	for i, t := range terms {
		hits[i] = c.hitsOf(t)
		weights[i] = c.weight(hits[i].text)
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	folded := c.folded()
	// The whole query as one substring: the baseline match of Search.
	var substr bitset
	var substrWeight float64
	if !keywords {
		substr = newBitset(len(c.actions))
		for i, fa := range folded {
			if containsAny(fa.summaries, []string{whole}) || containsAny(fa.names, []string{whole}) {
				substr.set(i)
			}
		}
		substrWeight = c.weight(substr)
	}
	var exactAlts []string
	if len(terms) == 1 {
		exactAlts = expand(terms[0])
	}
	pairs := hanPairs(whole)

	type hit struct {
		a                     *Action
		exact, supported, all bool
		most                  bool // matches at least half the terms
		substring             bool
		score                 float64
		index                 int
	}
	var found []hit
	best := 0.0
	for i, a := range c.actions {
		if !f.match(a) {
			continue
		}
		fa := folded[i]
		h := hit{a: a, supported: a.IsSupported(), all: len(terms) > 0, index: i}
		matched, weighed := 0, 0.0
		for k, th := range hits {
			switch {
			case th.names.has(i):
				h.score += 3 * weights[k]
			case th.summaries.has(i):
				h.score += 2 * weights[k]
			case th.text.has(i):
				h.score += weights[k]
			default:
				h.all = false
				continue
			}
			matched++
			weighed += weights[k]
		}
		if substr != nil && substr.has(i) {
			h.substring = true
			// In a name the whole query is strong evidence; in a summary its
			// words already counted as terms, so it only scores an action
			// no term found.
			if slices.ContainsFunc(fa.names, func(n string) bool { return strings.Contains(n, whole) }) {
				h.score += 3 * substrWeight
			} else if matched == 0 {
				h.score += substrWeight
			}
		}
		// Character pairs of the Chinese in the query found in the Chinese
		// summary: a little credit that survives typos and unknown words.
		for _, p := range pairs {
			if strings.Contains(fa.summaries[1], p) {
				h.score += 0.1
			}
		}
		if matched == 0 && !h.substring {
			continue
		}
		h.most = 2*weighed >= total
		h.exact = slices.Contains(fa.names, whole) ||
			slices.ContainsFunc(fa.names, func(n string) bool { return slices.Contains(exactAlts, n) })
		if onebot11[a.Name] {
			h.score += 0.2
		}
		// Of two names that match alike, the one with fewer words left over
		// is the more precise.
		h.score -= 0.05 * float64(strings.Count(fa.names[0], "_"))
		best = max(best, h.score)
		found = append(found, h)
	}
	kept := found[:0]
	for _, h := range found {
		if h.exact || h.substring || (keywords && h.all) || (h.most && h.score >= best/2) {
			kept = append(kept, h)
		}
	}
	slices.SortStableFunc(kept, func(x, y hit) int {
		switch {
		case x.exact != y.exact:
			return first(x.exact)
		case x.supported != y.supported:
			return first(x.supported)
		case keywords && x.all != y.all:
			return first(x.all)
		case x.score != y.score:
			if x.score > y.score {
				return -1
			}
			return 1
		}
		return x.index - y.index
	})
	out := make([]*Action, len(kept))
	for i, h := range kept {
		out[i] = h.a
	}
	return out
}

// weight is how much a term that matches the actions in set counts: the
// rarer the term, the more (an inverse document frequency). A term that
// matches nothing weighs as much as the rarest, so that a query of one
// unknown word and one common word does not answer with everything the
// common word matches.
func (c *Catalog) weight(set bitset) float64 {
	return math.Log(1 + float64(len(c.actions))/float64(max(1, set.count())))
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

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

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

// Closest returns up to n action names for a name that is not one: the
// best matches of Search first (so 禁言 and set_group_mute both lead to
// set_group_ban), then the names Suggest finds by spelling.
func (c *Catalog) Closest(name string, n int) []string {
	out := []string{}
	for _, a := range c.Search(name, Filter{}) {
		if len(out) == n {
			return out
		}
		out = append(out, a.Name)
	}
	for _, s := range c.Suggest(name, n) {
		if len(out) == n {
			break
		}
		if a, ok := c.Lookup(s); ok && !slices.Contains(out, a.Name) {
			out = append(out, s)
		}
	}
	return out
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
