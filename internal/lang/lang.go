// Package lang chooses the language of what a person reads (forms,
// confirmations, doctor, start-up errors) and holds those texts in English
// and Chinese. What a model reads (tool descriptions, results) stays
// English and does not come from here.
package lang

import (
	"fmt"
	"strings"
)

// A Lang is a language people are addressed in.
type Lang string

// The languages.
const (
	En Lang = "en"
	Zh Lang = "zh"
)

// Parse reads a SNOWLUMA_MCP_LANG value in any common form of a language:
// zh, zh-CN, zh_CN.UTF-8, zh-Hans, zh-TW, zh-Hant-HK, zh_TW.Big5, Chinese,
// 中文 or 简体中文 for Chinese (simplified or traditional alike: the texts are
// simplified Chinese); en, en-US, en_GB.UTF-8 or English for English. Case,
// surrounding white space, an encoding (.UTF-8) and a modifier (@euro) are
// ignored.
func Parse(s string) (Lang, error) {
	if l, ok := tagLang(s); ok {
		return l, nil
	}
	return "", fmt.Errorf("%q is not a language this server speaks", s)
}

// tagLang maps a language tag, a locale name or a language's name to a Lang;
// ok is false for anything else.
func tagLang(s string) (l Lang, ok bool) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "chinese", "中文", "汉语", "漢語", "简体中文", "簡體中文", "繁体中文", "繁體中文", "zho", "chi":
		return Zh, true
	case "english", "英文", "英语", "英語", "eng":
		return En, true
	}
	// zh_CN.UTF-8@modifier: the language comes before any territory,
	// script, encoding or modifier.
	if i := strings.IndexAny(v, "@."); i >= 0 {
		v = v[:i]
	}
	primary, _, _ := strings.Cut(strings.ReplaceAll(v, "_", "-"), "-")
	switch primary {
	case "zh", "cmn", "yue":
		return Zh, true
	case "en":
		return En, true
	}
	return "", false
}

// FromLocale picks the language of the environment's locale, as POSIX
// orders it: LC_ALL, then LC_MESSAGES, then LANG, the first one set and not
// empty. A locale of Chinese (zh, zh_CN.UTF-8, zh_TW, ...) gives Zh;
// anything else, or none, En. getenv is os.Getenv in the program and a map
// in tests.
func FromLocale(getenv func(string) string) Lang {
	l, _ := localeLang(getenv)
	return l
}

// localeLang is FromLocale's answer, with set false when no locale
// variable is set.
func localeLang(getenv func(string) string) (l Lang, set bool) {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			return ofLocale(v), true
		}
	}
	return En, false
}

// ofLocale maps a POSIX locale name or a BCP 47 tag (zh-CN) to a Lang.
func ofLocale(v string) Lang {
	if l, ok := tagLang(v); ok {
		return l
	}
	return En
}

// Detect is the language of an environment that does not set
// SNOWLUMA_MCP_LANG: its locale's (FromLocale) when it names one, else the
// first of the system's preferred user-interface languages, which system
// returns most preferred first (System: Windows' display language, macOS's
// AppleLanguages; MCP hosts started from a desktop usually pass no locale
// there), else English.
func Detect(getenv func(string) string, system func() []string) Lang {
	if l, set := localeLang(getenv); set {
		return l
	}
	if system != nil {
		if tags := system(); len(tags) > 0 {
			return ofLocale(tags[0])
		}
	}
	return En
}

// Select is the language of a run: the SNOWLUMA_MCP_LANG value when it is
// set, else the environment's (Detect, with the system's languages).
func Select(value string, getenv func(string) string) (Lang, error) {
	if strings.TrimSpace(value) == "" {
		return Detect(getenv, System), nil
	}
	return Parse(value)
}

// Sprintf formats the text of m in l (English for an unknown l).
func (l Lang) Sprintf(m Message, args ...any) string {
	t, ok := texts[m]
	if !ok {
		panic("lang: no text for message " + string(m))
	}
	if l == Zh {
		return fmt.Sprintf(t.zh, args...)
	}
	return fmt.Sprintf(t.en, args...)
}

// A Text is a message with its arguments, put into a language only when it
// is shown: for what is made before the language is known, such as a
// configuration error, or shown in more than one.
type Text struct {
	M    Message
	Args []any
}

// T makes a Text.
func T(m Message, args ...any) Text { return Text{M: m, Args: args} }

// Text formats t in l; arguments that are Texts are put in l first.
func (l Lang) Text(t Text) string {
	args := make([]any, len(t.Args))
	for i, a := range t.Args {
		if at, ok := a.(Text); ok {
			a = l.Text(at)
		}
		args[i] = a
	}
	return l.Sprintf(t.M, args...)
}
