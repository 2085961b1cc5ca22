//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns the file of descriptor fd for the runtime's network
// poller to wait on, when fd is a pipe or a socket (what an MCP host gives
// its server as standard input), and restore, which puts the descriptor
// back in blocking mode. Otherwise (a terminal, a file, /dev/null) ok is
// false and fd is left as it is: a terminal in non-blocking mode would
// stay so for the shell after the server.
//
// A read on a pollable file parks only its goroutine, where a blocking
// read(2) holds a thread and, with it, the scheduler's one P (see main).
func pollable(fd int) (f *os.File, restore func(), ok bool) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, nil, false
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFIFO && kind != unix.S_IFSOCK {
		return nil, nil, false
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		return nil, nil, false
	}
	// os.NewFile makes a file of a descriptor in non-blocking mode
	// pollable.
	return os.NewFile(uintptr(fd), "/dev/stdin"), func() { unix.SetNonblock(fd, false) }, true
}
