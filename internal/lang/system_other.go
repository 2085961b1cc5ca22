//go:build !windows && !darwin

package lang

// System returns nil: on systems other than Windows and macOS the locale
// variables are the user's choice of language.
func System() []string { return nil }
