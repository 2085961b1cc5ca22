package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// FuzzParseFrame checks that any frame either is refused or routes without
// breaking a resource's caps, and that an accepted frame is a JSON object
// with a post_type.
func FuzzParseFrame(f *testing.F) {
	for _, seed := range []string{
		simulator.GroupMessage(20001, 30001, "hi"), simulator.PrivateMessage(1, "x"),
		simulator.GroupIncrease(1, 2), simulator.FriendRequest(3), simulator.Heartbeat(),
		`{"post_type":"message_sent","self_id":"10001","user_id":"1"}`, `[]`, `null`, `{"post_type":""}`,
		`{"post_type":"notice","self_id":1e3,"group_id":-1}`, `{"post_type":"n","a":[1,-0.5e+3,true,false,null,{"b":"\u00e9\n"}]} `,
		`{"post_type":"n","a":01}`, `{"post_type":"n","a":"\x"}`, `{"post_type":"n"}{}`, `{"post_type":"n","a":[1,]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"post_type":"notice","self_id":1,"self_id":2,"\u0067roup_id":3,"x":{"user_id":4},"s":"}\\"{"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		// The hand scanner must agree with encoding/json: same verdict,
		// same routing fields (exact key match, the last duplicate wins).
		var obj map[string]json.RawMessage
		trimmed := bytes.TrimLeft(raw, " \t\r\n")
		isObject := json.Valid(raw) && len(trimmed) > 0 && trimmed[0] == '{' && json.Unmarshal(raw, &obj) == nil
		var postType string
		wantOK := isObject && json.Unmarshal(obj["post_type"], &postType) == nil && postType != ""
		fr, err := parseFrame(raw)
		if (err == nil) != wantOK {
			t.Fatalf("parseFrame %q: %v; encoding/json: object %v, post_type %q", raw, err, isObject, postType)
		}
		if err != nil {
			return
		}
		if fr.postType != postType {
			t.Fatalf("post_type %q, encoding/json %q", fr.postType, postType)
		}
		for _, p := range []struct {
			name string
			v    int64
			ok   bool
		}{{"self_id", fr.selfID, fr.hasSelf}, {"group_id", fr.groupID, fr.hasGroup}, {"user_id", fr.userID, fr.hasUser}} {
			if v, ok := id(obj[p.name]); v != p.v || ok != p.ok {
				t.Fatalf("%s: encoding/json reads %s (%d %v), the scanner %d %v", p.name, obj[p.name], v, ok, p.v, p.ok)
			}
		}
		r := newResource(t)
		r.filter = Filter{SelfID: 1, Types: AllTypes}
		for range MaxEvents + 1 {
			if r.filter.match(fr) {
				r.add(raw)
			}
		}
		if r.n > MaxEvents || r.bytes > MaxBytes && r.n > 1 {
			t.Fatalf("caps broken: %d events, %d bytes", r.n, r.bytes)
		}
	})
}

// ingestHub is a Hub with one connection (no socket) and n resources that
// all take every event.
func ingestHub(n int, onUpdate func(string)) (*Hub, *conn) {
	h := New(Options{})
	if onUpdate != nil {
		h.OnUpdate(onUpdate)
	}
	c := &conn{selfID: simulator.SelfID, status: StatusConnected}
	h.conn = c
	for range n {
		h.add(c, Filter{SelfID: simulator.SelfID, Types: AllTypes})
	}
	return h, c
}

// BenchmarkIngest measures events per second through parse, account check,
// filter and buffer, with one resource and with the 16 a process may hold.
func BenchmarkIngest(b *testing.B) {
	frame := []byte(simulator.GroupMessage(20001, 30001, "a typical short group message, about as long as most"))
	for _, n := range []int{1, MaxResources} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			h, c := ingestHub(n, func(string) {})
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, reason := h.ingest(c, bytes.Clone(frame)); reason != "" {
					b.Fatal(reason)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkFullResource measures the heap one resource holds when full,
// with small events (the 256-entry cap binds) and large ones (the 1 MiB cap
// binds), after far more events than it keeps.
func BenchmarkFullResource(b *testing.B) {
	for _, size := range []int{512, 16 << 10} {
		b.Run(fmt.Sprintf("event=%dB", size), func(b *testing.B) {
			frame := fmt.Sprintf(`{"post_type":"notice","self_id":%d,"pad":"%s"}`, simulator.SelfID, strings.Repeat("x", size))
			var held float64
			for i := 0; i < b.N; i++ {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				h, c := ingestHub(1, nil) // no update timers to hold the resource
				for range 4 * MaxEvents {
					h.ingest(c, []byte(frame))
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				held = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				runtime.KeepAlive(h)
			}
			b.ReportMetric(held, "heap-B/resource")
		})
	}
}
