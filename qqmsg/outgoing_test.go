package qqmsg

import (
	"encoding/json"
	"testing"
)

// TestParseOutgoing: a message param becomes the segments SnowLuma builds
// from it: JSON-array strings (trimmed, escapes decoded, before
// auto_escape), CQ codes with their escapes, top-level segment keys, and
// nothing for an array that is not all segments.
func TestParseOutgoing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, raw  string
		autoEscape bool
		want       string // type:key=value of the first segment's resource, else its type
	}{
		{"array string", `" [{\"type\":\"image\",\"data\":{\"file\":\"http:\\/\\/e.example\\/p\"}}] "`, false, "image:file=http://e.example/p"},
		{"array string under auto_escape", `"[{\"type\":\"Image\",\"data\":{\"url\":\"http\\u003a//e.example\"}}]"`, true, "image:url=http://e.example"},
		{"not an array", `"[CQ:image,file=a&#44;b.png]"`, false, "image:file=a,b.png"},
		{"auto_escape text", `"[CQ:image,file=/etc/passwd]"`, true, "text"},
		{"top-level keys", `[{"type":"record","media":"/x"}]`, false, "record:media=/x"},
		{"one object", `{"type":"video","data":{"path":"v.mp4"}}`, false, "video:path=v.mp4"},
		{"bare file, http url", `[{"type":"image","data":{"file":"abc.png","url":"https://q.example/x"}}]`, false, "image:url=https://q.example/x"},
		{"bare file, no url", `[{"type":"image","data":{"file":"abc.png","url":"x"}}]`, false, "image:file=abc.png"},
		{"file segment", `[{"type":"file","data":{"file":"","url":"/etc/passwd"}}]`, false, "file"},
		{"file id wins", `[{"type":"file","data":{"file_id":"/a","path":"/etc/passwd"}}]`, false, "file"},
		{"an array in a source key", `[{"type":"image","data":{"file":["https://e.example/?d=1"]}}]`, false, "image:file=https://e.example/?d=1"},
		{"not trimmed by JavaScript", `"\u0085[\"[CQ:image,file=/etc/passwd]\"]"`, false, "text"},
		{"market face", `[{"type":"image","data":{"emoji_id":"e","file":"/etc/passwd"}}]`, false, "image"},
	} {
		segs := ParseOutgoingParam(json.RawMessage(c.raw), c.autoEscape)
		if len(segs) == 0 {
			t.Errorf("%s: no segments", c.name)
			continue
		}
		got := segs[0].Type
		if r := ResourcesOf(segs[0]); len(r) > 0 {
			got += ":" + r[0].Key + "=" + r[0].Source
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// U+0085 is no space to JavaScript's trim: the string is CQ codes.
	segs := ParseOutgoingParam(json.RawMessage(`"\u0085[\"[CQ:image,file=/etc/passwd]\"]"`), false)
	if len(segs) != 3 || segs[1].Type != "image" {
		t.Errorf("a string JavaScript does not trim: %v", segs)
	}
	if segs := ParseOutgoingParam(json.RawMessage(`[{"type":"text","data":{"text":"a"}},1]`), false); segs != nil {
		t.Errorf("a mixed array: %v", segs)
	}
}

// TestResourceKindOf: only base64:// is inline and only http(s):// is
// fetched; everything else is a path SnowLuma opens.
func TestResourceKindOf(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]ResourceKind{
		"base64://aGk=": ResourceInline, "BASE64://x": ResourceInline,
		"https://e.example": ResourceURL, "HTTP://e.example": ResourceURL,
		"file:///etc/passwd": ResourceLocal, "../x": ResourceLocal, "x.png": ResourceLocal, `C:\x`: ResourceLocal,
		"ftp://e.example/x": ResourceLocal, "data:image/png;base64,aGk=": ResourceLocal, " https://e.example": ResourceLocal,
	} {
		if got, ok := ResourceKindOf(s); !ok || got != want {
			t.Errorf("ResourceKindOf(%q) = %v, want %v", s, got, want)
		}
	}
	if _, ok := ResourceKindOf(""); ok {
		t.Error("the empty source loads something")
	}
}

// TestParseOutgoingID: ids as JavaScript's Number reads them.
func TestParseOutgoingID(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]int64{`1`: 1, `"20001"`: 20001, `" 7 "`: 7, `"0x10"`: 16, `"1e3"`: 1000, `12.9`: 12, `"0b11"`: 3} {
		if got, ok := ParseOutgoingID(json.RawMessage(raw)); !ok || got != want {
			t.Errorf("ParseOutgoingID(%s) = %d, %v; want %d", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`"２００"`, `"abc"`, `""`, `null`, `[1]`, `true`, `"1_000"`, `"Infinity"`, `"NaN"`} {
		if got, ok := ParseOutgoingID(json.RawMessage(raw)); ok {
			t.Errorf("ParseOutgoingID(%s) = %d, want no id", raw, got)
		}
	}
}

// FuzzParseOutgoingParam: any message param parses without a panic, and
// every source found is classified as loadBinarySource would load it.
func FuzzParseOutgoingParam(f *testing.F) {
	for _, s := range []string{
		`"[CQ:image,file=../x,url=https://e.example]"`,
		`"[{\"type\":\"image\",\"data\":{\"file\":\"http:\\/\\/e\"}}]"`,
		`[{"type":"node","data":{"content":"[CQ:record,file=/x]"}}]`,
		`{"type":"video","file":"a","thumb":["b"]}`,
	} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, raw string, autoEscape bool) {
		for _, seg := range ParseOutgoingParam(json.RawMessage(raw), autoEscape) {
			for _, r := range ResourcesOf(seg) {
				if k, ok := ResourceKindOf(r.Source); !ok || k != r.Kind {
					t.Errorf("%q from %s: kind %v, want %v", r.Source, raw, r.Kind, k)
				}
			}
			OutgoingText(seg)
			OutgoingCarried(seg)
		}
	})
}
