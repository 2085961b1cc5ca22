package catalog

import (
	"strconv"

	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// MaxQueryRunes is the most runes of a query that search reads; the rest
// is ignored. No task needs more words, and it bounds the work a hostile
// query can cause.
const MaxQueryRunes = 256

// MaxNameBytes is the longest string taken for an action name. The
// catalog's longest name has 30 characters; a longer string is not a name,
// so it is looked up but never compared by spelling.
const MaxNameBytes = 64

// Normalize prepares typed text for matching: full-width ASCII forms (what
// a Chinese input method types for letters, digits and punctuation) and the
// ideographic space become plain ASCII, upper case becomes lower,
// traditional Chinese becomes simplified, and surrounding white space goes
// (qqmsg.Fold, which the archive's search folds with too). Search, the
// target resolver and completion all match through it.
func Normalize(s string) string { return qqmsg.Fold(s) }

// fold is Normalize without the conversion of traditional Chinese, for the
// catalog's own text, which is simplified; han reports whether s holds
// Chinese.
func fold(s string) (string, bool) { return qqmsg.FoldWidth(s) }

// Quote returns s quoted for a message, clipped to MaxNameBytes
// characters, so that a hostile name is never echoed whole.
func Quote(s string) string { return strconv.Quote(quote.Clip(s, MaxNameBytes)) }
