package archive

import (
	"strings"
	"unicode"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// Fold is the normalization both the indexed text and a query go through
// before they are cut into tokens: action search's own (qqmsg.Fold:
// full-width forms to their usual width, lower case, traditional Chinese
// to simplified with the mainland's words), so that 開會 finds 开会 and
// ＷｅｂＳｏｃｋｅｔ finds WebSocket.
func Fold(s string) string { return qqmsg.Fold(s) }

// han reports whether r is written without spaces between words (Chinese,
// Japanese kana, Korean syllables): such runs are indexed by character
// pairs.
func han(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func wordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !han(r)
}

// A run is a stretch of the folded text that is one kind of token source:
// a Chinese run or a word.
type run struct {
	text []rune
	han  bool
}

func runs(s string) []run {
	var out []run
	var cur []rune
	curHan := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, run{cur, curHan})
		}
		cur = nil
	}
	for _, r := range Fold(s) {
		switch {
		case han(r):
			if !curHan {
				flush()
			}
			curHan = true
			cur = append(cur, r)
		case wordRune(r):
			if curHan {
				flush()
			}
			curHan = false
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// maxTokens bounds the tokens of one message (its text is capped anyway).
const maxTokens = 2000

// indexTokens returns the text the full-text index stores for s: the
// character pairs of each Chinese run followed by the run's last
// character alone (so that a one-character query finds every occurrence
// as a prefix), and every other word whole, space-separated.
func indexTokens(s string) string {
	var b strings.Builder
	n := 0
	add := func(t []rune) {
		if n >= maxTokens {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(t))
		n++
	}
	for _, r := range runs(s) {
		if !r.han {
			add(r.text)
			continue
		}
		for i := 0; i+1 < len(r.text); i++ {
			add(r.text[i : i+2])
		}
		add(r.text[len(r.text)-1:])
	}
	return b.String()
}

// matchQuery turns a user's query into an FTS5 query over indexTokens'
// tokens: each Chinese run becomes a phrase of its pairs (a single
// character a prefix), each word a prefix; all must match, or any of
// them with any. It returns "" when the query has nothing to search for.
func matchQuery(q string, any bool) string {
	op := " AND "
	if any {
		op = " OR "
	}
	return strings.Join(matchParts(q), op)
}

// matchParts are the query's words as FTS5 phrases.
func matchParts(q string) []string {
	var parts []string
	for _, r := range runs(q) {
		if r.han && len(r.text) >= 2 {
			pairs := make([]string, 0, len(r.text)-1)
			for i := 0; i+1 < len(r.text); i++ {
				pairs = append(pairs, string(r.text[i:i+2]))
			}
			parts = append(parts, `"`+strings.Join(pairs, " ")+`"`)
			continue
		}
		parts = append(parts, `"`+string(r.text)+`"*`)
	}
	return parts
}
