package catalog

import "testing"

// BenchmarkLoad measures what the catalog adds to every start-up.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}
