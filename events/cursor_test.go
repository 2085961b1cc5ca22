package events

import "testing"

func TestIsCursor(t *testing.T) {
	r := &resource{id: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}}
	for _, seq := range []int64{0, 1, 255, 1 << 40} {
		if c := r.cursor(seq); !IsCursor(c) {
			t.Errorf("cursor %q of seq %d is not taken for a cursor", c, seq)
		}
	}
	for _, s := range []string{"", "abc", "2026-12-01", "AAAAAAAAAAAAAAAAAAAAAA==", "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAA+/"} {
		if IsCursor(s) {
			t.Errorf("%q taken for a cursor", s)
		}
	}
}
