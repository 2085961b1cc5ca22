package archive

import (
	"context"
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
}
