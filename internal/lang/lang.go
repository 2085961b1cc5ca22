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

// Parse reads a SNOWLUMA_MCP_LANG value: zh or en, in any case, with
// surrounding white space ignored.
func Parse(s string) (Lang, error) {
	switch l := Lang(strings.ToLower(strings.TrimSpace(s))); l {
	case En, Zh:
		return l, nil
	}
	return "", fmt.Errorf("%q is not a language this server speaks", s)
}

// FromLocale picks the language of the environment's locale, as POSIX
// orders it: LC_ALL, then LC_MESSAGES, then LANG, the first one set and not
// empty. A locale of Chinese (zh, zh_CN.UTF-8, zh_TW, ...) gives Zh;
// anything else, or none, En. getenv is os.Getenv in the program and a map
// in tests.
func FromLocale(getenv func(string) string) Lang {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			return ofLocale(v)
		}
	}
	return En
}

// ofLocale maps a POSIX locale name or a BCP 47 tag (zh-CN) to a Lang.
func ofLocale(v string) Lang {
	v = strings.ToLower(v)
	if v == "zh" || strings.HasPrefix(v, "zh_") || strings.HasPrefix(v, "zh-") || strings.HasPrefix(v, "zh.") {
		return Zh
	}
	return En
}

// Select is the language of a run: the SNOWLUMA_MCP_LANG value when it is
// set, else the locale's.
func Select(value string, getenv func(string) string) (Lang, error) {
	if strings.TrimSpace(value) == "" {
		return FromLocale(getenv), nil
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
