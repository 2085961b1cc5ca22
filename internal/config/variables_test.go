package config

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/snowluma/snowluma-mcp/internal/lang"
)

// verbatim matches what a description names that its Chinese form keeps as
// it is: variable names, snake_case identifiers (tools, params, kinds), URLs
// and numbers of three digits or more.
var verbatim = regexp.MustCompile(`SNOWLUMA_MCP_[A-Z_]+|\b[a-z]+_[a-z_]+\b|[a-z]+://[^ ,;)]+|\b\d{3,}\b`)

// TestVariablesInChinese: every variable has its meaning in Chinese for
// --help and docs/configuration.zh-CN.md, and its default too when that is
// words rather than a bare value; the Chinese keeps the names, values and
// URLs of the English; and every Chinese text is of a variable.
func TestVariablesInChinese(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, v := range Variables() {
		name := strings.TrimPrefix(v.Name, Prefix+"_")
		known[name] = true
		if en := v.In(lang.En); en != v {
			t.Errorf("%s in English: %+v, want %+v", v.Name, en, v)
		}
		zh := v.In(lang.Zh)
		if zh.Name != v.Name || zh.Default != v.Default {
			t.Errorf("%s in Chinese changed its name or default: %+v", v.Name, zh)
		}
		if zh.Meaning == v.Meaning || !hasHan(zh.Meaning) {
			t.Errorf("%s has no Chinese description: add %q to zhVariables in internal/lang/variables.go", v.Name, name)
			continue
		}
		if wordy(v.Shown, v.Default) && (zh.Shown == v.Shown || !hasHan(zh.Shown)) {
			t.Errorf("%s: its default %q is words, with no Chinese: give %q a shown text in internal/lang/variables.go", v.Name, v.Shown, name)
		}
		for _, w := range verbatim.FindAllString(v.Meaning, -1) {
			if !strings.Contains(zh.Meaning, strings.TrimRight(w, ".")) {
				t.Errorf("%s: the Chinese description lacks %q, which the English names", v.Name, w)
			}
		}
	}
	for _, name := range lang.TranslatedVariables() {
		if !known[name] {
			t.Errorf("internal/lang/variables.go has a Chinese text for %s_%s, which is not a variable", Prefix, name)
		}
	}
}

// wordy reports whether shown, the default as a person reads it, holds
// English words rather than only the value itself (30000, false) with its
// size (4194304 (4 MiB)) or a variable's name.
func wordy(shown, value string) bool {
	rest := strings.Replace(shown, value, "", 1)
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 3 && strings.ToLower(w) == w {
			return true
		}
	}
	return false
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
