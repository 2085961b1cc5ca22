//go:build windows

package lang

import "testing"

// TestSystemWindows: Windows names at least one display language, as a tag
// that Parse reads or that is plainly another language.
func TestSystemWindows(t *testing.T) {
	tags := System()
	if len(tags) == 0 {
		t.Fatal("no display language")
	}
	for _, tag := range tags {
		if tag == "" || len(tag) > 85 {
			t.Errorf("tag %q", tag)
		}
	}
}
