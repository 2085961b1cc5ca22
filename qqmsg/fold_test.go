package qqmsg

import "testing"

// BenchmarkConverters measures what the first query with Chinese (t2s) and
// the first with traditional characters (tw2sp) pay once, building
// OpenCC's dictionaries; start-up pays nothing.
func BenchmarkConverters(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if converter("t2s") == nil || converter("tw2sp") == nil {
			b.Fatal("no converter")
		}
	}
}
