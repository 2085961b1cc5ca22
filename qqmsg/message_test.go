package qqmsg

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const self = 10001

func TestRenderSegments(t *testing.T) {
	raw := `{"post_type":"message","message_type":"group","self_id":10001,"message_id":"77","group_id":20001,"user_id":30001,"time":1700000000,
	  "sender":{"nickname":"小明","card":"  "},
	  "message":[{"type":"reply","data":{"id":"55"}},{"type":"at","data":{"qq":"10001"}},{"type":"text","data":{"text":" 看看这个 "}},
	    {"type":"image","data":{"file":"a.png","url":"http://x"}},{"type":"at","data":{"qq":"30002","name":"小红"}},{"type":"at","data":{"qq":"30003"}},
	    {"type":"at","data":{"qq":"all"}},{"type":"face","data":{"id":14}},{"type":"file","data":{"name":"报告.pdf"}},
	    {"type":"image","data":{"emoji_id":"abc"}},{"type":"weird_new","data":{}},{"type":"<script>","data":{}},{"type":"record","data":{}},
	    {"type":"face","data":{"id":"99999"}},{"type":"record","data":{"duration":"2.6"}},{"type":"video","data":{}},{"type":"file","data":{}}]}`
	e, err := ParseEvent([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if e.MessageID != 77 || e.GroupID != 20001 || e.UserID != 30001 || e.Sender != "小明" || e.Time != 1700000000 {
		t.Fatalf("parsed %+v", e)
	}
	r := Render(e.Segments, self)
	// Media numbered in order, as view_media's index counts them; faces by
	// name.
	want := "[回复 #55][@我] 看看这个 [图片 #1][@小红][@30003][@全体成员][表情:微笑][文件 报告.pdf #2][表情包 #3][weird_new][消息][语音 #4]" +
		"[表情][语音 3s #5][视频 #6][文件 #7]"
	if r.Text != want {
		t.Errorf("rendered\n%q\nwant\n%q", r.Text, want)
	}
	if !r.Mentioned || r.ReplyTo != 55 || r.Truncated {
		t.Errorf("mentioned %v reply %d truncated %v", r.Mentioned, r.ReplyTo, r.Truncated)
	}
}

func TestRenderCQString(t *testing.T) {
	raw := `{"post_type":"message","message_type":"group","self_id":10001,"message_id":1,"group_id":1,"user_id":2,
	  "message":"[CQ:reply,id=9]hi &#91;not a code&#93; &amp;[CQ:at,qq=10001] [CQ:image,file=x.png,url=http://a&#44;b][CQ:broken"}`
	e, err := ParseEvent([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	r := Render(e.Segments, self)
	if want := "[回复 #9]hi [not a code] &[@我] [图片 #1][CQ:broken"; r.Text != want {
		t.Errorf("rendered %q, want %q", r.Text, want)
	}
	if !r.Mentioned || r.ReplyTo != 9 {
		t.Errorf("mentioned %v reply %d", r.Mentioned, r.ReplyTo)
	}
}

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\u200bb\u200cc\u200dd\ufeffe\u2060f", "abcdef"},                 // zero-width
		{"x\u202eevil\u202c \u2066iso\u2069 \u200fy", "xevil iso y"},       // bidirectional
		{"bell\a nul\x00 esc\x1b[31m del\x7f", "bell nul esc[31m del"},     // controls
		{"tag\U000E0041\U000E007F", "tag"},                                 // tag characters
		{"soft\u00adhyphen", "softhyphen"},                                 // format
		{"fill\u3164er\u115f", "filler"},                                   // invisible letters
		{"a\r\nb\rc\u2028d", "a\nb\nc\nd"},                                 // line breaks
		{"a\n\n\n\n\nb", "a\n\nb"},                                         // runs of blank lines
		{"tab\there", "tab here"},                                          // tabs
		{"bad\xff\xfeutf8", "badutf8"},                                     // invalid UTF-8
		{"z\u0301\u0301\u0301\u0301\u0301\u0301!", "z\u0301\u0301\u0301!"}, // stacked marks
		{"  pad  ", "pad"},                                                 // trimmed
		{"emoji 👍🏽 and 中文", "emoji 👍🏽 and 中文"},                             // kept
	} {
		if got := Clean(c.in, true); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Clean("a\nb", false); got != "a b" {
		t.Errorf("one line: %q", got)
	}
}

func TestRenderCaps(t *testing.T) {
	long := strings.Repeat("长", 3*MaxMessageRunes)
	r := Render([]Segment{{Type: "text", Data: map[string]string{"text": long}}}, self)
	if n := utf8.RuneCountInString(r.Text); n != MaxMessageRunes || !r.Truncated || !strings.HasSuffix(r.Text, TruncatedMark) {
		t.Errorf("long text: %d runes, truncated %v, ends %q", n, r.Truncated, r.Text[len(r.Text)-20:])
	}
	var many []Segment
	for range 5 * MaxSegments {
		many = append(many, Segment{Type: "face"})
	}
	r = Render(many, self)
	if !r.Truncated || !strings.HasSuffix(r.Text, TruncatedMark) {
		t.Errorf("many segments: truncated %v, %q", r.Truncated, r.Text[len(r.Text)-20:])
	}
	// A hostile name is one short line.
	name := CleanName("evil\nname\u202e" + strings.Repeat("x", 100))
	if strings.ContainsAny(name, "\n\u202e") || utf8.RuneCountInString(name) != MaxNameRunes {
		t.Errorf("name %q", name)
	}
}

func TestParseEventHostile(t *testing.T) {
	for _, raw := range []string{``, `[]`, `"x"`, `{`, `null`} {
		if _, err := ParseEvent([]byte(raw)); err == nil {
			t.Errorf("%q parsed", raw)
		}
	}
	// Wrong types read as absent, never as a failure.
	e, err := ParseEvent([]byte(`{"post_type":5,"message_id":{"a":1},"group_id":"12x","user_id":[1],"message":{"type":"text"},"sender":"me"}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.PostType != "" || e.MessageID != 0 || e.GroupID != 0 || e.UserID != 0 || e.Segments != nil || e.Sender != "" {
		t.Errorf("hostile fields read as %+v", e)
	}
	// Segments of the wrong shape render as nothing harmful.
	e, _ = ParseEvent([]byte(`{"message":[{"type":"text","data":{"text":["x"]}},{"type":"at","data":{"qq":"1\n2"}},{"data":null}]}`))
	if r := Render(e.Segments, self); r.Text != "[@12][消息]" {
		t.Errorf("rendered %q", r.Text)
	}
}

func FuzzRender(f *testing.F) {
	f.Add(`{"message":"[CQ:at,qq=10001]hi"}`)
	f.Add(`{"message":[{"type":"text","data":{"text":"a\u202eb"}}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		e, err := ParseEvent([]byte(raw))
		if err != nil {
			return
		}
		r := Render(e.Segments, self)
		if utf8.RuneCountInString(r.Text) > MaxMessageRunes || !utf8.ValidString(r.Text) {
			t.Fatalf("rendered %d runes, valid %v", utf8.RuneCountInString(r.Text), utf8.ValidString(r.Text))
		}
		for _, c := range r.Text {
			if c != '\n' && (c < 0x20 || c == 0x7f || c == '\u200b' || c == '\u202e' || c == '\ufeff') {
				t.Fatalf("rendered %q keeps %U", r.Text, c)
			}
		}
	})
}

// TestRenderCapWithMark: a message cut at the segments and near the text
// cap still fits the cap with its mark.
func TestRenderCapWithMark(t *testing.T) {
	segs := []Segment{{Type: "text", Data: map[string]string{"text": strings.Repeat("a", MaxMessageRunes-2)}}}
	for range MaxSegments {
		segs = append(segs, Segment{Type: "text", Data: map[string]string{"text": ""}})
	}
	r := Render(segs, self)
	if n := utf8.RuneCountInString(r.Text); n > MaxMessageRunes || !r.Truncated || !strings.HasSuffix(r.Text, TruncatedMark) || strings.Count(r.Text, TruncatedMark) != 1 {
		t.Errorf("%d runes, truncated %v, ends %q", n, r.Truncated, r.Text[len(r.Text)-20:])
	}
}
