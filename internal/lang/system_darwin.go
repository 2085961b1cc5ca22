//go:build darwin

package lang

import (
	"context"
	"os/exec"
	"time"
)

// System returns the user's preferred languages on macOS, most preferred
// first: the AppleLanguages default, read with defaults(1) (no cgo), or nil
// when it cannot be read within a second.
func System() []string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/defaults", "read", "-g", "AppleLanguages").Output()
	if err != nil {
		return nil
	}
	return parseAppleLanguages(string(out))
}
