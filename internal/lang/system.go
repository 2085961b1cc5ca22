package lang

import (
	"strings"
)

// parseAppleLanguages reads what `defaults read -g AppleLanguages` prints,
// a property list array such as
//
//	(
//	    "zh-Hans-CN",
//	    "en-US"
//	)
//
// into its tags, in order (quotes are optional for a plain tag).
func parseAppleLanguages(out string) []string {
	s := strings.TrimSpace(out)
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil
	}
	var tags []string
	for _, item := range strings.Split(s[1:len(s)-1], ",") {
		if tag := strings.Trim(strings.TrimSpace(item), `"`); tag != "" {
			tags = append(tags, tag)
		}
	}
	return tags
}

// langIDTag names a Windows language identifier (a LANGID, as
// GetUserDefaultUILanguage returns it) by its primary language: its low ten
// bits are the language (0x04 Chinese, 0x09 English), the rest the
// sublanguage. Only the languages this server speaks are named; "" for any
// other.
func langIDTag(id uint16) string {
	switch id & 0x3ff {
	case 0x04:
		return "zh"
	case 0x09:
		return "en"
	}
	return ""
}
