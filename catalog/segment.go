package catalog

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// segment cuts a lower-cased query into search terms. White space and
// punctuation separate words; an underscore or a dot does too, so an action
// name typed with a typo still yields its words. A run of Chinese is cut
// into dictionary words (segmentHan); filler words in either language are
// dropped. A term that matches nothing is replaced by the nearest known word
// when one is close enough: an English word by a word of an action name
// within one or two edits, a Chinese run by a dictionary word of the same
// length that differs in one character.
func (c *Catalog) segment(q string) []string {
	var terms []string
	add := func(t string) {
		if t != "" && !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	var word, han strings.Builder
	flushWord := func() {
		w := word.String()
		word.Reset()
		if w == "" || englishFiller[w] {
			return
		}
		if c.hitsOf(w).text.count() == 0 {
			w = c.nearestNameWord(w)
		}
		add(w)
	}
	flushHan := func() {
		h := han.String()
		han.Reset()
		for _, t := range segmentHan(h) {
			if c.hitsOf(t).text.count() == 0 {
				t = nearestHanWord(t)
			}
			add(t)
		}
	}
	for _, r := range q {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			han.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '@':
			flushHan()
			word.WriteRune(r)
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	return terms
}

// segmentHan cuts a run of Chinese characters into the fewest pieces, where
// a piece is a word of the dictionary (a synonym, a compound or a filler
// word) or a character the dictionary does not know, which costs more.
// Consecutive unknown characters come back as one term; fillers are dropped
// and compounds are replaced by the terms they stand for.
func segmentHan(s string) []string {
	rs := []rune(s)
	n := len(rs)
	const unknown = 2
	cost := make([]int, n+1)
	from := make([]int, n+1) // start of the piece that ends at i
	for i := 1; i <= n; i++ {
		cost[i] = cost[i-1] + unknown
		from[i] = i - 1
		for l := 2; l <= min(i, maxWordRunes); l++ {
			if _, ok := hanDictionary[string(rs[i-l:i])]; ok && cost[i-l]+1 <= cost[i] {
				cost[i] = cost[i-l] + 1
				from[i] = i - l
			}
		}
		if _, ok := hanDictionary[string(rs[i-1])]; ok && cost[i-1]+1 < cost[i] {
			cost[i] = cost[i-1] + 1
			from[i] = i - 1
		}
	}
	var pieces []string
	for i := n; i > 0; i = from[i] {
		pieces = append(pieces, string(rs[from[i]:i]))
	}
	slices.Reverse(pieces)
	var terms []string
	var rest strings.Builder
	flush := func() {
		if rest.Len() > 0 {
			terms = append(terms, rest.String())
			rest.Reset()
		}
	}
	for _, p := range pieces {
		known, ok := hanDictionary[p]
		if !ok {
			rest.WriteString(p)
			continue
		}
		flush()
		terms = append(terms, known...)
	}
	flush()
	return terms
}

// hanPairs returns the pairs of adjacent Chinese characters in q, fillers
// included: the character-pair index that still finds a summary when a word
// is misspelt or unknown to the dictionary.
func hanPairs(q string) []string {
	var out []string
	var prev rune
	for _, r := range q {
		if unicode.Is(unicode.Han, r) && prev != 0 {
			if p := string([]rune{prev, r}); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		prev = 0
		if unicode.Is(unicode.Han, r) {
			prev = r
		}
	}
	return out
}

// nearestNameWord returns the word of an action name or alias nearest to w
// (one edit for a word of four to six letters, two from seven), or w itself
// when none is that close.
func (c *Catalog) nearestNameWord(w string) string {
	n := utf8.RuneCountInString(w)
	if n < 4 {
		return w
	}
	limit := 1
	if n >= 7 {
		limit = 2
	}
	best, bestDist := w, limit+1
	for _, fa := range c.folded() {
		for _, name := range fa.names {
			for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '.' }) {
				if d := editDistance(w, part); d < bestDist || (d == bestDist && d <= limit && part < best) {
					best, bestDist = part, d
				}
			}
		}
	}
	if bestDist > limit {
		return w
	}
	return best
}

// nearestHanWord returns the first dictionary word (in sorted order) of the
// same length as t that differs from it in one character, or t when there is
// none: 禁严 is taken for 禁言.
func nearestHanWord(t string) string {
	rt := []rune(t)
	if len(rt) < 2 {
		return t
	}
	for _, w := range hanWords {
		rw := []rune(w)
		if len(rw) != len(rt) {
			continue
		}
		diff := 0
		for i := range rw {
			if rw[i] != rt[i] {
				diff++
			}
		}
		if diff == 1 {
			if known := hanDictionary[w]; len(known) == 1 {
				return known[0]
			}
		}
	}
	return t
}
