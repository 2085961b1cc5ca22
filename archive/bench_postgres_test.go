package archive

import (
	"context"
	"math/rand/v2"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The PostgreSQL store's benchmarks need SNOWLUMA_MCP_TEST_POSTGRES, as its
// contract tests do:
//
//	go test -run=NONE -bench=Postgres ./archive
//
// BenchmarkPostgresSearchMillion keeps its million messages in the schema
// bench_million between runs (drop it to rebuild).

// BenchmarkPostgresIngest stores event frames in batches of 256, as the
// feed does, with one writer.
func BenchmarkPostgresIngest(b *testing.B) {
	s := openPostgresTest(b, nil)
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

// BenchmarkPostgresIngestFour: four servers (four bots) store batches of
// 256 into one database at once; msg/s is their total.
func BenchmarkPostgresIngestFour(b *testing.B) {
	u := newSchema(b)
	const writers = 4
	var stores [writers]*Store
	var frames [writers][][]byte
	base := time.Now().Add(-30 * 24 * time.Hour).Unix()
	for w := range writers {
		stores[w] = openShared(b, u, int64(w+1), nil)
		frames[w] = benchFrames(rand.New(rand.NewPCG(uint64(w), 2)), 256*64, 1, base)
	}
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 3))
			var id int64 = 1
			fs := frames[w]
			for i := 0; i < b.N; i++ {
				if i > 0 && i%64 == 0 {
					id += int64(len(fs))
					fs = benchFrames(r, 256*64, id, base)
				}
				if _, err := stores[w].Ingest(context.Background(), fs[(i%64)*256:(i%64+1)*256]); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(writers*b.N*256)/b.Elapsed().Seconds(), "msg/s")
}

var pgMillion struct {
	once sync.Once
	s    *Store
	err  error
	rate float64
}

// BenchmarkPostgresSearchMillion is BenchmarkSearchMillion on PostgreSQL:
// the same million messages, the same queries.
func BenchmarkPostgresSearchMillion(b *testing.B) {
	pgMillion.once.Do(func() {
		base := testPostgres(b)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			pgMillion.err = err
			return
		}
		conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS bench_million")
		conn.Close(ctx)
		u, _ := url.Parse(base)
		q := u.Query()
		q.Set("search_path", "bench_million")
		u.RawQuery = q.Encode()
		pgMillion.s, pgMillion.err = Open(ctx, Options{Path: u.String(), Groups: Selection{All: true}, Users: Selection{All: true}, MaxBytes: 8 << 30, Days: 36500})
		if pgMillion.err != nil {
			return
		}
		sum, err := pgMillion.s.Summary(ctx)
		if err != nil || sum.Messages >= 1_000_000 {
			pgMillion.err = err
			return
		}
		r := rand.New(rand.NewPCG(3, 4))
		start := time.Now()
		defer func() { pgMillion.rate = 1e6 / time.Since(start).Seconds() }()
		tbase := time.Now().Add(-80 * 24 * time.Hour).Unix()
		for id := int64(1); id <= 1_000_000; id += 4096 {
			if _, err := pgMillion.s.Ingest(ctx, benchFrames(r, 4096, id, tbase)); err != nil {
				pgMillion.err = err
				return
			}
		}
		c, _ := pgx.Connect(ctx, u.String())
		c.Exec(ctx, "VACUUM ANALYZE messages")
		c.Close(ctx)
	})
	if pgMillion.err != nil {
		b.Fatal(pgMillion.err)
	}
	s := pgMillion.s
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
	b.ReportMetric(float64(sum.Messages), "messages")
	if pgMillion.rate > 0 {
		b.ReportMetric(pgMillion.rate, "build-msg/s")
	}
}

// BenchmarkPostgresSearchMillionRare searches the million messages for
// words few of them hold (a number held by about ten, a word none holds):
// the probe finds too few, and the GIN index answers.
func BenchmarkPostgresSearchMillionRare(b *testing.B) {
	if pgMillion.s == nil {
		b.Skip("run with BenchmarkPostgresSearchMillion (-bench=PostgresSearchMillion), which builds the million")
	}
	s := pgMillion.s
	queries := []string{"12345", "zzzz", "开会 54321", "会 99999"}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, _, err := s.Search(context.Background(), Query{Text: queries[i%len(queries)]}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
