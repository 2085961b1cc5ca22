//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nonblocking reports whether fd is in non-blocking mode.
func nonblocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

// TestPollableStdin: a pipe, as a host gives it, becomes a file the poller
// waits on (only such a file takes a read deadline) and is put back in
// blocking mode by restore; a file and /dev/null are left as they are.
func TestPollableStdin(t *testing.T) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	f, restore, ok := pollable(p[0])
	if !ok {
		t.Fatal("a pipe was not made pollable")
	}
	defer f.Close()
	if !nonblocking(t, p[0]) {
		t.Error("the pipe is not in non-blocking mode")
	}
	if err := f.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Errorf("the pipe's file is not pollable: %v", err)
	}
	unix.Write(p[1], []byte("line\n"))
	if b := make([]byte, 8); func() bool { n, err := f.Read(b); return err != nil || string(b[:n]) != "line\n" }() {
		t.Error("the pollable file does not read what the pipe holds")
	}
	restore()
	if nonblocking(t, p[0]) {
		t.Error("restore left the pipe in non-blocking mode")
	}

	file, err := os.Create(filepath.Join(t.TempDir(), "input"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, other := range []*os.File{file, null} {
		fd := int(other.Fd())
		if _, _, ok := pollable(fd); ok || nonblocking(t, fd) {
			t.Errorf("%s was made pollable", other.Name())
		}
	}
}
