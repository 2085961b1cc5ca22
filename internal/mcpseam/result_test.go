package mcpseam_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// TestPlainResultMeansWhatTheSDKWrites: a tool result encoded in one pass
// is compact, valid JSON without HTML escapes that decodes to what the
// SDK's own encoding decodes to, for text with characters encoding/json
// escapes, raw and non-raw structured content, errors, _meta and content
// that is not text. Where the SDK would write "content": null, an empty
// array is written.
func TestPlainResultMeansWhatTheSDKWrites(t *testing.T) {
	results := map[string]*mcp.CallToolResult{
		"rendered":      toolkit.Render(outcome.OK(map[string]any{"s": "<b>&</b> \u2028 群 \"q\" \\ \n\t\x01"})),
		"failure":       toolkit.Render(outcome.Fail(outcome.KindInvalidParams, "bad <param>", "send a good one")),
		"invalid utf-8": {Content: []mcp.Content{&mcp.TextContent{Text: "a\xffb"}}},
		"mixed": {
			Meta:              mcp.Meta{"k": "<v>"},
			Content:           []mcp.Content{&mcp.TextContent{Text: "x"}, &mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}},
			StructuredContent: map[string]any{"n": 1, "s": "<&>"},
			IsError:           true,
		},
		"empty": {},
	}
	for name, r := range results {
		got, err := (&mcpseam.PlainToolResult{CallToolResult: r}).MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, got); err != nil || !bytes.Equal(compact.Bytes(), got) {
			t.Errorf("%s: not compact, valid JSON (%v): %s", name, err, got)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(got, []byte(esc)) && name != "mixed" { // the SDK's image content escapes itself
				t.Errorf("%s: HTML escape %s in %s", name, esc, got)
			}
		}
		sdk, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(sdk, &b)
		if m := b.(map[string]any); m["content"] == nil {
			m["content"] = []any{} // the SDK writes null, which MCP's schema refuses
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, sdk)
		}
	}
}

// TestHandoffLendsBuffersAgain: a buffer taken back is lent again, for a
// result that fits, with its room of spaces restored; one of a megabyte
// is not kept. (sync.Pool may drop what it is given, and does at random
// under the race detector, so lending again is looked for over many
// rounds.)
func TestHandoffLendsBuffersAgain(t *testing.T) {
	var h mcpseam.Handoff
	room := strings.Repeat(" ", mcpseam.FrameRoom)
	first := func(b []byte) *byte { return &b[:1][0] }
	lentAgain := false
	for range 50 {
		b := h.Buffer(100)
		if string(b) != room || cap(b) < mcpseam.FrameRoom+102 {
			t.Fatalf("lent %q, capacity %d", b, cap(b))
		}
		b = append(b, `{"a":1}`...)
		copy(b, "{head}") // as Framed writes the line's head into the room
		h.Recycle(b)
		again := h.Buffer(50)
		if string(again) != room {
			t.Fatalf("lent again as %q", again)
		}
		if first(again) == first(b) {
			lentAgain = true
			break
		}
	}
	if !lentAgain {
		t.Error("no buffer taken back was lent again")
	}

	big := h.Buffer(1 << 20)
	h.Recycle(big)
	for range 50 {
		if b := h.Buffer(10); first(b) == first(big) {
			t.Fatal("a buffer of a megabyte was kept and lent again")
		}
	}
}
