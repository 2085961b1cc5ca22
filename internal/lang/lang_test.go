package lang

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestFromLocale(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Lang
	}{
		{nil, En},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, Zh},
		{map[string]string{"LANG": "zh_TW"}, Zh},
		{map[string]string{"LANG": "zh-Hans"}, Zh},
		{map[string]string{"LANG": "en_US.UTF-8"}, En},
		{map[string]string{"LANG": "C.UTF-8"}, En},
		{map[string]string{"LANG": "zhx"}, En},
		// LC_ALL wins over LANG, LC_MESSAGES sits between.
		{map[string]string{"LC_ALL": "en_GB.UTF-8", "LANG": "zh_CN.UTF-8"}, En},
		{map[string]string{"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, Zh},
		{map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, Zh},
		{map[string]string{"LC_ALL": "", "LANG": "zh_CN"}, Zh},
	} {
		if got := FromLocale(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
	}
}

func TestSelect(t *testing.T) {
	zhLocale := func(k string) string { return map[string]string{"LANG": "zh_CN.UTF-8"}[k] }
	for _, tc := range []struct {
		value string
		want  Lang
		bad   bool
	}{{"", Zh, false}, {" ", Zh, false}, {"en", En, false}, {"EN", En, false}, {" zh ", Zh, false}, {"fr", "", true}, {"zh_CN", "", true}} {
		got, err := Select(tc.value, zhLocale)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("Select(%q) = %q, %v", tc.value, got, err)
		}
	}
}

// verbs finds the fmt verbs of a text, explicit argument indexes included.
var verbs = regexp.MustCompile(`%(\[\d+\])?[a-z]`)

// TestTexts: every message has both languages, and both take the same
// arguments (the same verbs, as a set; Chinese may reorder them by index).
func TestTexts(t *testing.T) {
	for m, tx := range texts {
		if tx.en == "" || tx.zh == "" {
			t.Errorf("%s: a language is missing", m)
		}
		en, zh := verbs.FindAllString(tx.en, -1), verbs.FindAllString(tx.zh, -1)
		slices.Sort(en)
		slices.Sort(zh)
		if !slices.Equal(en, zh) && !indexed(tx) {
			t.Errorf("%s: verbs %v in English, %v in Chinese", m, en, zh)
		}
	}
}

// indexed reports whether a text pair uses explicit argument indexes, where
// one language may leave an argument out.
func indexed(tx text) bool { return strings.Contains(tx.en+tx.zh, "%[") }

func TestSprintf(t *testing.T) {
	if got := Zh.Sprintf(ConfirmQuestion, "set_group_kick", "把成员踢出群", "群 20001，成员 30001", ""); got != "把成员踢出群 set_group_kick：群 20001，成员 30001。允许执行吗？" {
		t.Errorf("zh: %q", got)
	}
	if got := En.Sprintf(ConfirmQuestion, "set_group_kick", "把成员踢出群", "group 20001, user 30001", "Kick."); got != "Allow set_group_kick on group 20001, user 30001? Kick." {
		t.Errorf("en: %q", got)
	}
}
