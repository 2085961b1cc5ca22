package enum

import "testing"

type color string

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want color
		ok   bool
	}{
		{"", "red", true},
		{"  ", "red", true},
		{"Blue", "blue", true},
		{" red\t", "red", true},
		{"green", "", false},
		{"blu", "", false},
	} {
		got, ok := Parse[color](tc.in, "red", "red", "blue")
		if got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
