// Package editdist measures how far apart two short strings are, for the
// "did you mean" suggestions of the catalog and of the configuration.
package editdist

// MaxRunes is the longest string Distance compares in full. Names and words
// are far shorter; past it Distance answers from the lengths alone, so that
// a hostile megabyte name costs nothing.
const MaxRunes = 256

// Distance is the Levenshtein distance between a and b, counted in runes.
// When either is longer than MaxRunes it returns the larger length, which is
// at least the true distance's lower bound and far past any useful limit.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > MaxRunes || len(rb) > MaxRunes {
		return max(len(ra), len(rb))
	}
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
