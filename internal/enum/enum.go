// Package enum reads the settings that take one word from a fixed list
// (a mode, a policy): case and surrounding space do not matter, and empty
// means the default.
package enum

import "strings"

// Parse returns the value of T that s names, def when s is empty or blank,
// and ok false when s names none of values.
func Parse[T ~string](s string, def T, values ...T) (v T, ok bool) {
	w := T(strings.ToLower(strings.TrimSpace(s)))
	if w == "" {
		return def, true
	}
	for _, v := range values {
		if w == v {
			return v, true
		}
	}
	return "", false
}
