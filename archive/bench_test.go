package archive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchLines are chat lines of the kind QQ groups see; the benchmark mixes
// them with numbers so that no two messages are alike.
var benchLines = strings.Split("早上好～|今晚谁有空一起开黑？|这个 bug 我复现了，明天提 issue|收到|哈哈哈哈哈|周六早上八点地铁站集合，别迟到|有人知道 WebSocket 怎么配置吗|资料已经传到群文件了|记得周五前交报名表|刚下班，累死了|这家店的麻辣烫真的绝|谁还有多余的充电宝|猫粮到了，需要的私聊我|新版本发布了，大家更新一下|明天下雨，活动改到室内|求推荐一本入门的书|好的，我晚点看看|图片太糊了，能再发一张吗|辛苦啦！|明天下午开会，会议链接发群里了", "|")

func benchFrames(r *rand.Rand, n int, first int64, base int64) [][]byte {
	frames := make([][]byte, n)
	for i := range frames {
		id := first + int64(i)
		frames[i] = groupMsg(int64(1+r.IntN(50)), int64(100+r.IntN(500)), id, base+id/20,
			benchLines[r.IntN(len(benchLines))]+fmt.Sprint(" ", r.IntN(100000)))
	}
	return frames
}

// BenchmarkIngest stores event frames in batches of 256 (the event
// buffer's size), as the archive's feed does.
func BenchmarkIngest(b *testing.B) {
	s := openFile(b, nil)
	r := rand.New(rand.NewPCG(1, 2))
	base := time.Now().Add(-30 * 24 * time.Hour).Unix()
	frames := benchFrames(r, 256*64, 1, base)
	b.ResetTimer()
	var id int64 = 1
	for i := 0; i < b.N; i++ {
		batch := frames[(i%64)*256 : (i%64+1)*256]
		if i > 0 && i%64 == 0 {
			b.StopTimer()
			id += int64(len(frames))
			frames = benchFrames(r, 256*64, id, base)
			batch = frames[:256]
			b.StartTimer()
		}
		if _, err := s.Ingest(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*256)/b.Elapsed().Seconds(), "msg/s")
}

var million struct {
	once sync.Once
	s    *Store
	dir  string
	err  error
	rate float64 // messages a second while building it
}

// BenchmarkSearchMillion searches one million archived messages for common
// two-character words and a rarer phrase, newest 20 first. The archive is
// built once per test process in a temporary directory (about a minute);
// it is not part of CI's test command.
func BenchmarkSearchMillion(b *testing.B) {
	million.once.Do(func() {
		million.dir, million.err = os.MkdirTemp("", "archive-bench")
		if million.err != nil {
			return
		}
		million.s, million.err = Open(context.Background(), Options{Path: filepath.Join(million.dir, "a.db"),
			Groups: Selection{All: true}, Users: Selection{All: true}, MaxBytes: 8 << 30})
		if million.err != nil {
			return
		}
		r := rand.New(rand.NewPCG(3, 4))
		base := time.Now().Add(-80 * 24 * time.Hour).Unix()
		start := time.Now()
		defer func() { million.rate = 1e6 / time.Since(start).Seconds() }()
		for id := int64(1); id <= 1_000_000; id += 4096 {
			if _, err := million.s.Ingest(context.Background(), benchFrames(r, 4096, id, base)); err != nil {
				million.err = err
				return
			}
		}
	})
	if million.err != nil {
		b.Fatal(million.err)
	}
	s := million.s
	queries := []string{"开会", "链接", "明天", "websocket", "麻辣烫", "周五前交报名表", "充电宝 多余", "会"}
	group := Chat{Group: true, ID: 7}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := Query{Text: queries[i%len(queries)]}
		if i%3 == 2 {
			q.Chat = &group
		}
		start := time.Now()
		got, _, err := s.Search(context.Background(), q)
		lat = append(lat, time.Since(start))
		if err != nil || len(got) == 0 {
			b.Fatalf("%q: %d %v", q.Text, len(got), err)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	sum, _ := s.Summary(context.Background())
	b.ReportMetric(float64(sum.Bytes)/float64(sum.Messages), "bytes/msg")
	b.ReportMetric(float64(sum.Messages), "messages")
	b.ReportMetric(million.rate, "build-msg/s")
}

// BenchmarkOpen opens and closes an existing archive of 10,000 messages:
// what the archive adds to a server's start (the schema check and the
// chats' ids; no scan of the messages).
func BenchmarkOpen(b *testing.B) {
	s := openFile(b, nil)
	path := s.Path()
	s.Ingest(context.Background(), benchFrames(rand.New(rand.NewPCG(5, 6)), 10000, 1, time.Now().Add(-time.Hour).Unix()))
	s.Close()
	b.ResetTimer()
	var opening time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		s, err := Open(context.Background(), Options{Path: path})
		opening += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(opening.Microseconds())/1000/float64(b.N), "open-ms")
}
