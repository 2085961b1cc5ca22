package channel

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

func TestParseVerdict(t *testing.T) {
	for in, want := range map[string][2]string{
		"yes abcde":       {"abcde", Allow},
		"  Y  ABCDE ":     {"abcde", Allow},
		"no tbxkq":        {"tbxkq", Deny},
		"n tbxkq.":        {"tbxkq", Deny},
		"同意 abcde":        {"abcde", Allow},
		"同意\u3000abcde":   {"abcde", Allow},
		"拒绝 abcde！":       {"abcde", Deny},
		"允许 abcde":        {"abcde", Allow},
		"“yes abcde”":     {"abcde", Allow},
		"yes\u200b abcde": {"abcde", Allow},
		"Yes Abcde":       {"abcde", Allow},
		"ｙｅｓ ａｂｃｄｅ":       {"abcde", Allow},
		"ＹＥＳ　ＡＢＣＤＥ":       {"abcde", Allow},
		"同意abcde":         {"abcde", Allow},
		"拒绝：abcde":        {"abcde", Deny},
		"yes, abcde":      {"abcde", Allow},
		"  yes   abcde  ": {"abcde", Allow},
	} {
		id, b, ok := ParseVerdict(in)
		if !ok || id != want[0] || b != want[1] {
			t.Errorf("ParseVerdict(%q) = %q %q %v", in, id, b, ok)
		}
	}
	for _, in := range []string{"yes", "yes abcd", "yes abcdef", "yes abcle", "yes 12345", "sure abcde", "yes abcde please", "abcde yes", "", "同意", "yesabcde", "同意abcdef"} {
		if _, _, ok := ParseVerdict(in); ok {
			t.Errorf("ParseVerdict(%q) accepted", in)
		}
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		id := NewID()
		if !ValidID(id) {
			t.Fatalf("NewID gave %q", id)
		}
		seen[id] = true
	}
	if len(seen) < 190 {
		t.Errorf("only %d distinct ids of 200", len(seen))
	}
}

func TestRelay(t *testing.T) {
	r := NewRelay([]int64{30001, 30002})
	req := Request{ID: "abcde", Tool: "Bash", Description: "run ls\u202e", Preview: `{"command":"ls"}`}
	if err := r.Open(req, t0); err != nil {
		t.Fatal(err)
	}
	if err := r.Open(req, t0); err == nil {
		t.Error("the same id opened twice")
	}
	if err := r.Open(Request{ID: "ablde"}, t0); err == nil || !strings.Contains(err.Error(), "without l") {
		t.Errorf("an id with l: %v", err)
	}
	prompt := req.Prompt()
	for _, want := range []string{"Bash", "run ls", `{"command":"ls"}`, "yes abcde", "no abcde", "同意 abcde", "拒绝 abcde"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt %q lacks %q", prompt, want)
		}
	}
	if strings.Contains(prompt, "\u202e") {
		t.Error("prompt keeps a bidirectional override")
	}

	// A stranger's verdict is nothing: not consumed, so it stays an
	// ordinary message for the gate.
	if v, consumed, _ := r.Answer(30009, "yes abcde", 0, t0); v != nil || consumed {
		t.Fatal("a stranger's yes counted")
	}
	// An approver's other messages are not verdicts either.
	if v, consumed, _ := r.Answer(30001, "what is abcde?", 0, t0); v != nil || consumed {
		t.Fatal("an approver's chat counted")
	}
	// An unknown id is consumed with a note.
	v, consumed, note := r.Answer(30001, "yes zzzzz", 0, t0)
	if v != nil || !consumed || !strings.Contains(note, "zzzzz") || !strings.Contains(note, "unknown or expired") {
		t.Fatalf("unknown id: %v %v %q", v, consumed, note)
	}
	v, consumed, _ = r.Answer(30002, "NO ABCDE", 0, t0.Add(time.Minute))
	if v == nil || !consumed || v.Behavior != Deny || v.Request.ID != "abcde" || v.Approver != 30002 || v.Request.Tool != "Bash" {
		t.Fatalf("verdict %+v", v)
	}
	// Single use.
	if v, consumed, note := r.Answer(30001, "yes abcde", 0, t0.Add(time.Minute)); v != nil || !consumed || note == "" {
		t.Fatal("a request was answered twice")
	}
	// Expiry.
	r.Open(Request{ID: "fghij"}, t0)
	if v, _, note := r.Answer(30001, "yes fghij", 0, t0.Add(ApprovalTTL)); v != nil || !strings.Contains(note, "expired") {
		t.Fatalf("an expired request answered: %v", v)
	}
	// The oldest request goes past MaxPending.
	for i := range MaxPending + 1 {
		id := []byte("aaaaa")
		id[3], id[4] = IDAlphabet[i/len(IDAlphabet)], IDAlphabet[i%len(IDAlphabet)]
		if err := r.Open(Request{ID: string(id)}, t0); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.Waiting(t0); n != MaxPending {
		t.Fatalf("%d waiting", n)
	}
	if v, _, _ := r.Answer(30001, "yes aaaaa", 0, t0); v != nil {
		t.Fatal("the oldest request survived the cap")
	}
	if !r.Cancel("aaaab") || r.Cancel("aaaab") {
		t.Error("Cancel")
	}
}

// TestPromptDescriptionStaysOneLine: a tool description with line breaks
// cannot draw 参数： or reply lines above the real ones; it is one quoted,
// capped line.
func TestPromptDescriptionStaysOneLine(t *testing.T) {
	desc := "查看文件\n参数：{\"command\":\"ls\"}\r\n回复 yes abcde 允许\u2028」参数：假的\n" + strings.Repeat("长", 2000)
	req := Request{ID: "qwert", Tool: "Bash", Description: desc, Preview: `{"command":"rm -rf /"}`}
	lines := strings.Split(req.Prompt(), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), req.Prompt())
	}
	if !strings.HasPrefix(lines[1], "说明：「查看文件 参数：") || !strings.HasSuffix(lines[1], "」") ||
		strings.Count(lines[1], "」") != 1 || utf8.RuneCountInString(lines[1]) > MaxPreviewRunes+5 {
		t.Errorf("description line %q", lines[1])
	}
	if lines[2] != `参数：{"command":"rm -rf /"}` || !strings.HasPrefix(lines[3], "回复 yes qwert 允许") {
		t.Errorf("the real lines: %q", lines[2:])
	}
}

// TestQuoteReply: a verdict may name its request by quoting the prompt,
// with or without the id, as SnowLuma delivers a quote-reply (a reply
// segment naming the prompt's message id, then the text); a quote that
// names another request than the text is refused; a bare "yes" that
// quotes no prompt is an ordinary message.
func TestQuoteReply(t *testing.T) {
	r := NewRelay([]int64{30001})
	for _, id := range []string{"abcde", "fghij", "kmnop"} {
		if err := r.Open(Request{ID: id, Tool: "Bash"}, t0); err != nil {
			t.Fatal(err)
		}
	}
	r.Prompted("abcde", -7001)
	r.Prompted("fghij", 7002)
	r.Prompted("kmnop", 7003)
	seg := func(quoted, text string) (string, int64) {
		return verdictText([]qqmsg.Segment{{Type: "reply", Data: map[string]string{"id": quoted}}, {Type: "text", Data: map[string]string{"text": text}}}, 10001)
	}
	text, quotes := seg("-7001", " yes")
	if v, consumed, _ := r.Answer(30001, text, quotes, t0); v == nil || !consumed || v.Request.ID != "abcde" || v.Behavior != Allow {
		t.Fatalf("quote-reply without id: %+v %v", v, consumed)
	}
	text, quotes = seg("7002", "拒绝 fghij")
	if v, _, _ := r.Answer(30001, text, quotes, t0); v == nil || v.Request.ID != "fghij" || v.Behavior != Deny {
		t.Fatalf("quote-reply with id: %+v", v)
	}
	text, quotes = seg("7003", "yes abcde")
	if v, consumed, note := r.Answer(30001, text, quotes, t0); v != nil || !consumed || !strings.Contains(note, "quoting the prompt of request kmnop") {
		t.Fatalf("a quote of another prompt: %+v %v %q", v, consumed, note)
	}
	text, quotes = seg("9999", "yes")
	if v, consumed, _ := r.Answer(30001, text, quotes, t0); v != nil || consumed {
		t.Fatal("a bare yes quoting no prompt was consumed")
	}
	// A client may add an at segment to a quote-reply; an image makes it
	// no verdict.
	text, quotes = verdictText([]qqmsg.Segment{{Type: "reply", Data: map[string]string{"id": "7003"}}, {Type: "at", Data: map[string]string{"qq": "10001"}}, {Type: "text", Data: map[string]string{"text": "ｙｅｓ"}}}, 10001)
	if v, _, _ := r.Answer(30001, text, quotes, t0); v == nil || v.Request.ID != "kmnop" {
		t.Fatalf("quote-reply with an at segment: %+v", v)
	}
	if text, quotes = verdictText([]qqmsg.Segment{{Type: "text", Data: map[string]string{"text": "yes abcde"}}, {Type: "image"}}, 10001); ParseVerdictOK(text) || quotes != 0 {
		t.Fatalf("a message with an image read as %q", text)
	}
}

func ParseVerdictOK(text string) bool { _, _, ok := ParseVerdict(text); return ok }
