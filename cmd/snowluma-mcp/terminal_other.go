//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package main

// stdinIsTerminal cannot tell on this system, so the terminal hint is not
// shown.
func stdinIsTerminal() bool { return false }
