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
	}{{"", Zh, false}, {" ", Zh, false}, {"en", En, false}, {"EN", En, false}, {" zh ", Zh, false}, {"fr", "", true}, {"zh_CN", Zh, false}, {"zhx", "", true}, {"zh_CN", Zh, false}} {
		got, err := Select(tc.value, zhLocale)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("Select(%q) = %q, %v", tc.value, got, err)
		}
	}
}

// TestParseForms: every common way of writing Chinese or English names it,
// as people type SNOWLUMA_MCP_LANG or their systems spell a locale.
func TestParseForms(t *testing.T) {
	for _, v := range []string{"zh", "ZH", "zh-CN", "zh_CN", "zh_CN.UTF-8", "zh_CN.utf8", "zh_CN.GB18030", "zh-Hans", "zh-Hans-CN",
		"zh-TW", "zh_TW.Big5", "zh-Hant", "zh-Hant-HK", "zh_HK.UTF-8", "zh-SG", "zh@pinyin", " zh-cn ", "Chinese", "中文", "简体中文", "繁體中文", "cmn-Hans-CN", "yue-HK"} {
		if l, err := Parse(v); err != nil || l != Zh {
			t.Errorf("Parse(%q) = %q, %v; want zh", v, l, err)
		}
	}
	for _, v := range []string{"en", "EN", "en-US", "en_US.UTF-8", "en_GB.ISO-8859-1", "en-GB", "en_US@euro", "English", "english"} {
		if l, err := Parse(v); err != nil || l != En {
			t.Errorf("Parse(%q) = %q, %v; want en", v, l, err)
		}
	}
	for _, v := range []string{"fr", "fr_FR.UTF-8", "ja-JP", "zhx", "z", "C", "POSIX", "C.UTF-8", "-", "_zh", "chinese simplified"} {
		if l, err := Parse(v); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", v, l)
		}
	}
}

// TestDetect: the locale variables win; without them, the system's first
// preferred language (Windows' display language, macOS's AppleLanguages)
// decides; without either, English.
func TestDetect(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	sys := func(tags ...string) func() []string { return func() []string { return tags } }
	for _, tc := range []struct {
		name   string
		env    map[string]string
		system func() []string
		want   Lang
	}{
		{"nothing", nil, nil, En},
		{"no system answer", nil, sys(), En},
		{"Windows zh-CN", nil, sys("zh-CN", "en-US"), Zh},
		{"Windows zh-TW", nil, sys("zh-TW"), Zh},
		{"macOS zh-Hans-CN", nil, sys("zh-Hans-CN", "en-CN"), Zh},
		{"macOS zh-Hant-HK", nil, sys("zh-Hant-HK"), Zh},
		{"English first", nil, sys("en-US", "zh-CN"), En},
		{"another language first", nil, sys("ja-JP", "zh-CN"), En},
		{"LANGID", nil, sys(langIDTag(0x0804)), Zh},
		{"the locale wins", map[string]string{"LANG": "en_US.UTF-8"}, sys("zh-CN"), En},
		{"a Chinese locale", map[string]string{"LC_ALL": "zh_TW.Big5"}, sys("en-US"), Zh},
		{"an empty locale is none", map[string]string{"LANG": ""}, sys("zh-CN"), Zh},
	} {
		if got := Detect(env(tc.env), tc.system); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestAppleLanguages reads defaults(1)'s rendering of AppleLanguages.
func TestAppleLanguages(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"(\n    \"zh-Hans-CN\",\n    \"en-US\"\n)\n", []string{"zh-Hans-CN", "en-US"}},
		{"(\n    en,\n    \"zh-Hant-TW\"\n)", []string{"en", "zh-Hant-TW"}},
		{"()", nil},
		{"", nil},
		{"The domain/default pair of (kCFPreferencesAnyApplication, AppleLanguages) does not exist\n", nil},
	} {
		if got := parseAppleLanguages(tc.out); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.out, got, tc.want)
		}
	}
}

// TestLangIDTag reads the primary language of Windows LANGIDs.
func TestLangIDTag(t *testing.T) {
	for id, want := range map[uint16]string{0x0804: "zh", 0x0404: "zh", 0x0c04: "zh", 0x1004: "zh", 0x0409: "en", 0x0809: "en", 0x0411: "", 0x0000: ""} {
		if got := langIDTag(id); got != want {
			t.Errorf("%#04x: %q, want %q", id, got, want)
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

// TestArchiveSummaryOrder: doctor's archive line puts each count where
// its word is in Chinese, whose order differs from the English (messages
// in chats, 会话在前).
func TestArchiveSummaryOrder(t *testing.T) {
	zh := Zh.Sprintf(DoctorArchiveOK, "/a.db", 3, 1200, 4, 1.25, "群 1")
	if want := "/a.db：格式版本 3，4 个会话共 1200 条消息，1.2 MiB；各会话最新消息：群 1"; zh != want {
		t.Errorf("zh: %q, want %q", zh, want)
	}
	if en := En.Sprintf(DoctorArchiveOK, "/a.db", 3, 1200, 4, 1.25, "group 1"); !strings.Contains(en, "1200 messages in 4 chats") {
		t.Errorf("en: %q", en)
	}
}
