package completion

import (
	"strconv"
	"testing"
)

// FuzzMatch: any typed value gives at most MaxValues proposals, each an id
// the list holds, and a total that counts them.
func FuzzMatch(f *testing.F) {
	items := []item{{id: 20001, names: []string{"雪璐测试群"}}, {id: 20002, names: []string{"摸鱼小分队"}}, {id: 3}}
	for i := range 150 {
		items = append(items, item{id: int64(40001 + i), names: []string{"成员" + strconv.Itoa(i)}})
	}
	for _, seed := range []string{"", "2", "摸鱼", "２０", "成员1", "\xff", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		r := match(items, value, "p:", nil)
		if len(r.Values) > MaxValues || r.Total < len(r.Values) || r.HasMore != (r.Total > MaxValues) {
			t.Fatalf("%q: %d values, total %d, hasMore %v", value, len(r.Values), r.Total, r.HasMore)
		}
		for _, v := range r.Values {
			if len(v) < 3 || v[:2] != "p:" {
				t.Fatalf("%q: value %q", value, v)
			}
		}
	})
}
