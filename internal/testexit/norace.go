//go:build !race

package testexit

import "os"

// Exit is os.Exit: without the race detector there is no wait to skip.
func Exit(code int) {
	os.Exit(code)
}
