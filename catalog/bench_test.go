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

// BenchmarkSearchKeywords measures a keyword search of the whole catalog
// and the encoding of its answer from the precomputed briefs.
func BenchmarkSearchKeywords(b *testing.B) {
	c, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, a := range c.SearchKeywords("群 禁言", Filter{}) {
			if _, err := a.BriefJSON(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSearchSubstring measures the default search for a common word.
func BenchmarkSearchSubstring(b *testing.B) {
	c, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(c.Search("group", Filter{})) == 0 {
			b.Fatal("nothing found")
		}
	}
}
