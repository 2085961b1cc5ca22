package catalog

import (
	"slices"
	"testing"
	"time"
)

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

// tenChars are ten-character queries, the size the latency goal is set
// for: an operator's sentence in Chinese and an English phrase.
var tenChars = []string{"帮我撤回群里那条消息", "mute group"}

// BenchmarkSearchTenChars measures the default search of a ten-character
// query and reports the median latency of one search as p50-ns.
func BenchmarkSearchTenChars(b *testing.B) {
	c, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range tenChars {
		b.Run(q, func(b *testing.B) {
			c.Search(q, Filter{}) // the index is built on the first search
			var lat []time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				c.Search(q, Filter{})
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
		})
	}
}

// BenchmarkNormalize measures one query's normalization: simplified
// Chinese (checked, left alone) and traditional (converted).
func BenchmarkNormalize(b *testing.B) {
	for _, q := range []string{"帮我撤回群里那条消息", "禁言群組成員設定群名片"} {
		b.Run(q, func(b *testing.B) {
			Normalize(q)
			b.ReportAllocs()
			for b.Loop() {
				Normalize(q)
			}
		})
	}
}

// BenchmarkIndex measures building the search index, which the first
// search pays once.
func BenchmarkIndex(b *testing.B) {
	c, err := Load()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c.buildIndex()
	}
}
