package simulator

import (
	"bytes"
	"encoding/base64"
	"io"
	"testing"
)

// TestAppendBase64MatchesStandard: the fake's encoder writes exactly what
// the standard library's does, for every length around each padding case
// and after existing bytes.
func TestAppendBase64MatchesStandard(t *testing.T) {
	src, err := io.ReadAll(Content(7, 4099))
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte(`"data":"`)
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 64, 65, 66, 4096, 4097, 4098, 4099} {
		got := appendBase64(bytes.Clone(prefix), src[:n])
		want := base64.StdEncoding.AppendEncode(bytes.Clone(prefix), src[:n])
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %q, want %q", n, got, want)
		}
	}
}
