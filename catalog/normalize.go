package catalog

import (
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/longbridgeapp/opencc"

	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// MaxQueryRunes is the most runes of a query that search reads; the rest
// is ignored. No task needs more words, and it bounds the work a hostile
// query can cause.
const MaxQueryRunes = 256

// MaxNameBytes is the longest string taken for an action name. The
// catalog's longest name has 30 characters; a longer string is not a name,
// so it is looked up but never compared by spelling.
const MaxNameBytes = 64

// The converters of traditional Chinese, OpenCC's dictionaries (ported to
// Go), built on first use, never at start-up. toSimplified (t2s) changes
// characters and leaves simplified text as it is, so it also tells whether
// text holds traditional characters; taiwanese (tw2sp) converts such text
// with Taiwan's own words to the mainland's (設定 to 设置, 檔案 to 文件,
// 訊息 to 消息), but would also rewrite simplified words that Taiwan uses
// otherwise (文件 to 文档), so it only sees traditional text.
var (
	toSimplified = sync.OnceValue(func() *opencc.OpenCC { return converter("t2s") })
	taiwanese    = sync.OnceValue(func() *opencc.OpenCC { return converter("tw2sp") })
)

// converter returns OpenCC's conversion named name, or nil when its
// bundled dictionaries cannot be read: text is then matched as typed.
func converter(name string) *opencc.OpenCC {
	cc, err := opencc.New(name)
	if err != nil {
		return nil
	}
	return cc
}

// simplify converts s, which holds Chinese, to simplified Chinese with the
// mainland's words; simplified text comes back unchanged.
func simplify(s string) string {
	t2s := toSimplified()
	if t2s == nil {
		return s
	}
	out, err := t2s.Convert(s)
	if err != nil || out == s {
		return s
	}
	if tw := taiwanese(); tw != nil {
		if words, err := tw.Convert(s); err == nil {
			return words
		}
	}
	return out
}

// Normalize prepares typed text for matching: full-width ASCII forms (what
// a Chinese input method types for letters, digits and punctuation) and the
// ideographic space become plain ASCII, upper case becomes lower,
// traditional Chinese becomes simplified, and surrounding white space goes.
// Text that is not valid UTF-8 has its invalid bytes dropped. Search, the
// target resolver and completion all match through it.
func Normalize(s string) string {
	out, han := fold(s)
	if han {
		out = simplify(out)
	}
	return out
}

// fold is Normalize without the conversion of traditional Chinese, for the
// catalog's own text, which is simplified; han reports whether s holds
// Chinese.
func fold(s string) (out string, han bool) {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
		case r == 0x3000:
			r = ' '
		case r >= 0x2E80:
			han = han || unicode.Is(unicode.Han, r)
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return strings.TrimSpace(b.String()), han
}

// Quote returns s quoted for a message, clipped to MaxNameBytes
// characters, so that a hostile name is never echoed whole.
func Quote(s string) string { return strconv.Quote(quote.Clip(s, MaxNameBytes)) }
