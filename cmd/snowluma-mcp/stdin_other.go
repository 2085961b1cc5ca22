//go:build !unix

package main

import "os"

// pollable is false on this system: standard input is read as it is (see
// stdin_unix.go).
func pollable(fd int) (f *os.File, restore func(), ok bool) { return nil, nil, false }
