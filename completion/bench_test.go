package completion

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// BenchmarkCacheHugeLists caches eight member lists of a SnowLuma that
// answers 12.9 MiB each (20000 members whose nickname and card run to 300
// bytes), the probe's case, and reports the live heap they leave.
func BenchmarkCacheHugeLists(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("[")
	long := strings.Repeat("昵称很长", 25) // 300 bytes
	for i := range 20000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"user_id":%d,"nickname":"%s","card":"%s"}`, 100000+i, long, long)
	}
	sb.WriteString("]")
	data := json.RawMessage(sb.String())
	b.ReportMetric(float64(len(data))/(1<<20), "MiB/list")
	ctx := context.Background()
	var heap float64
	for b.Loop() {
		clk := &clock{now: time.Unix(1700000000, 0)}
		c := New(Options{Fetcher: hugeLists{data}, Now: clk.Now})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for g := range 8 {
			c.Complete(ctx, Member, "1000", map[string]string{"group_id": fmt.Sprint(50000 + g)})
			clk.Add(time.Millisecond)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		runtime.KeepAlive(c)
	}
	b.ReportMetric(heap, "MiB-heap/8-lists")
}
