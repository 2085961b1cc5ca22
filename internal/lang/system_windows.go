//go:build windows

package lang

import "golang.org/x/sys/windows"

// System returns the user's preferred display languages on Windows, most
// preferred first, as tags such as zh-CN: GetUserPreferredUILanguages,
// else the primary language of GetUserDefaultUILanguage.
func System() []string {
	if tags, err := windows.GetUserPreferredUILanguages(windows.MUI_LANGUAGE_NAME); err == nil && len(tags) > 0 {
		return tags
	}
	proc := windows.NewLazySystemDLL("kernel32.dll").NewProc("GetUserDefaultUILanguage")
	if proc.Find() != nil {
		return nil
	}
	id, _, _ := proc.Call()
	if tag := langIDTag(uint16(id)); tag != "" {
		return []string{tag}
	}
	return nil
}
