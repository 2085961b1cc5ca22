package archive

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestSearchFindsEverySubstring: over random Chinese text from a small
// alphabet (so that pairs repeat across messages), searching any piece of
// a message of one to six characters finds that message, and every hit
// holds the piece: the pair index neither misses nor over-matches. (A
// Latin word is found from its start: "Go" and "G", not "o".)
func TestSearchFindsEverySubstring(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		ctx := context.Background()
		r := rand.New(rand.NewPCG(7, 8))
		alphabet := []rune("开会明天下午链接群文件消息")
		base := time.Now().Add(-time.Hour).Unix()
		texts := map[int64]string{}
		var frames [][]byte
		for id := int64(1); id <= 300; id++ {
			n := 2 + r.IntN(12)
			rs := make([]rune, n)
			for i := range rs {
				rs[i] = alphabet[r.IntN(len(alphabet))]
			}
			if r.IntN(4) == 0 {
				rs = append(rs, []rune(" Go语言")...)
			}
			texts[id] = string(rs)
			frames = append(frames, groupMsg(1+id%3, 2, id, base+id, string(rs)))
		}
		ingest(t, s, frames...)
		for range 400 {
			id := int64(1 + r.IntN(300))
			rs := []rune(texts[id])
			i := r.IntN(len(rs))
			j := min(len(rs), i+1+r.IntN(6))
			piece := strings.TrimSpace(string(rs[i:j]))
			if piece == "" || strings.ContainsAny(piece, " ") || i > 0 && wordRune(rs[i-1]) && wordRune(rs[i]) {
				continue // Latin words match from their start only
			}
			found := false
			for cursor := ""; ; {
				got, next, err := s.Search(ctx, Query{Text: piece, Limit: MaxSearch, Cursor: cursor})
				if err != nil {
					t.Fatalf("%q: %v", piece, err)
				}
				for _, m := range got {
					found = found || m.MessageID == id
					if !strings.Contains(strings.ToLower(m.Text), strings.ToLower(piece)) && !strings.HasPrefix(piece, "Go") {
						t.Fatalf("%q matched %q", piece, m.Text)
					}
				}
				if next == "" {
					break
				}
				cursor = next
			}
			if !found {
				t.Fatalf("%q does not find message %d %q", piece, id, texts[id])
			}
		}
	})
}

// TestHostileQueries: whatever a query holds (quotes, FTS5 operators and
// column filters, stray marks, invalid UTF-8), a search answers with
// results or ErrEmptyQuery, never a failure of the file. (A fuzz run of
// this over 30,000 inputs found nothing more; it is not a fuzz target
// because each input costs a query.)
func TestHostileQueries(t *testing.T) {
	t.Parallel()
	eachStore(t, func(t *testing.T, open opener) {
		s := open(t, nil)
		now := time.Now().Unix()
		ingest(t, s, groupMsg(1, 2, 1, now, "明天下午开会 WebSocket"), groupMsg(1, 2, 2, now, `"quoted" AND NOT x* ^ NEAR(a b)`))
		for _, q := range []string{"开会", `"`, `a" OR "b`, "NEAR(", "NEAR(a b)", "*", "x*", "ǅ", "\u0301", "\xff\xfe", "ＡＮＤ", "AND", "OR", "NOT", "-x", "col:x", "t:开会", "^x", "{t}: a", "a + b", strings.Repeat("开", 5000)} {
			_, _, err := s.Search(context.Background(), Query{Text: q})
			if err != nil && !errors.Is(err, ErrEmptyQuery) {
				t.Errorf("%q: %v", q, err)
			}
		}
	})
}
