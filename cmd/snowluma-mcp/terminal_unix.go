//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package main

import "golang.org/x/sys/unix"

// stdinIsTerminal reports whether standard input is a terminal: a person
// started the server by hand rather than an MCP host with a pipe. It asks
// for the terminal attributes, which only a terminal has (/dev/null is a
// character device too, so a mode check is not enough).
func stdinIsTerminal() bool {
	_, err := unix.IoctlGetTermios(unix.Stdin, ioctlReadTermios)
	return err == nil
}
