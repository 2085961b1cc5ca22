package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
)

// passing is a tool result that hands its bytes to the transport, as the
// server's encoded answers do.
type passing struct {
	*mcp.CallToolResult
	pass  func([]byte) []byte
	bytes []byte
}

func (p *passing) MarshalJSON() ([]byte, error) { return p.pass(p.bytes), nil }

// passResults makes every tools/call answer a passing result of body.
func passResults(body string) func(*mcp.Server, *Transport) {
	return func(s *mcp.Server, tr *Transport) {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if r, ok := res.(*mcp.CallToolResult); ok && err == nil {
					return &passing{r, tr.Pass, []byte(body)}, nil
				}
				return res, err
			}
		})
	}
}

// TestPassedResultIsWritten: the line carries the passed bytes as they are
// (no HTML escaping, nothing re-encoded), never the stand-in, and nothing
// stays held.
func TestPassedResultIsWritten(t *testing.T) {
	const body = `{"content":[{"type":"text","text":"<b>&\u2028 群"}],"structuredContent":{"a":"<>"}}`
	h := start(t, Options{}, passResults(body))
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	h.release <- struct{}{}
	r := h.next()
	if string(r.ID) != "5" || string(r.Result) != body {
		t.Errorf("answer %s %s, want the passed bytes %s", r.ID, r.Result, body)
	}
	if n := h.tr.c.passed.Holding(); n != 0 {
		t.Errorf("%d results still held", n)
	}
}

// TestPassedResultOfCancelledCall: a cancelled call's passed result is
// dropped with its response, not held.
func TestPassedResultOfCancelledCall(t *testing.T) {
	h := start(t, Options{}, passResults(`{"content":[]}`))
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	<-h.ended
	waitFor(t, func() bool { return inflight(h.tr) == 0 })
	h.ping(6)
	if n := h.tr.c.passed.Holding(); n != 0 {
		t.Errorf("%d results still held", n)
	}
}

// TestStandInsNeverWritten: a stand-in the transport does not hold becomes
// an internal error, and passed bytes holding a newline are compacted into
// one line.
func TestStandInsNeverWritten(t *testing.T) {
	var out bytes.Buffer
	tr := New(strings.NewReader(""), &out, Options{})
	id, _ := jsonrpc.MakeID(float64(1))
	stale := tr.Pass([]byte(`{}`))
	if _, ok := tr.c.passed.Take(stale); !ok {
		t.Fatal("a stand-in was not recognised")
	}
	if err := tr.c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: stale}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "pass#") || !strings.Contains(got, `"code":-32603`) {
		t.Errorf("a stale stand-in was written as %s", got)
	}
	out.Reset()
	tr.c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: tr.Pass([]byte("{\n\"a\": 1\n}"))})
	if got := out.String(); got != `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`+"\n" {
		t.Errorf("passed bytes with newlines written as %q", got)
	}
	// A result that is a JSON string but no stand-in is written as it is.
	out.Reset()
	tr.c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: []byte(`"snowluma"`)})
	if got := out.String(); got != `{"jsonrpc":"2.0","id":1,"result":"snowluma"}`+"\n" {
		t.Errorf("a string result written as %q", got)
	}
}

// writes records each Write call's bytes as given.
type writes struct{ calls [][]byte }

func (w *writes) Write(p []byte) (int, error) { w.calls = append(w.calls, p); return len(p), nil }

// TestPassedResultWrittenInItsRoom: a passed result with room in front
// (mcpseam.FrameRoom spaces) is written in one write from its own buffer,
// its head in the room; an id too long for the room gets the same bytes
// by copying.
func TestPassedResultWrittenInItsRoom(t *testing.T) {
	const body = `{"content":[{"type":"text","text":"群 <b>"}],"isError":false}`
	for _, tc := range []struct {
		id      any
		inPlace bool
	}{{float64(7), true}, {"req-42", true}, {strings.Repeat("x", 40), false}} {
		var w writes
		tr := New(strings.NewReader(""), &w, Options{})
		id, err := jsonrpc.MakeID(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		held := make([]byte, 0, mcpseam.FrameRoom+len(body)+2)
		held = append(append(held, strings.Repeat(" ", mcpseam.FrameRoom)...), body...)
		if err := tr.c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: tr.Pass(held)}); err != nil {
			t.Fatal(err)
		}
		want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		got := bytes.Join(w.calls, nil)
		if string(got) != string(want)+"\n" {
			t.Errorf("id %v: wrote %s, want %s", tc.id, got, want)
		}
		inPlace := len(w.calls) == 1 && &w.calls[0][len(w.calls[0])-1] == &held[:cap(held)][cap(held)-1]
		if inPlace != tc.inPlace {
			t.Errorf("id %v: written in place %v, want %v (%d writes)", tc.id, inPlace, tc.inPlace, len(w.calls))
		}
	}
}

// TestPassedBuffersWrittenWhole: results encoded into buffers the
// transport lends, passed and written many at once, each arrive whole: a
// buffer is lent again only once its result has been written (and the
// race detector sees no write to one still being written).
func TestPassedBuffersWrittenWhole(t *testing.T) {
	var out bytes.Buffer // written under the transport's write lock
	tr := New(strings.NewReader(""), &out, Options{})
	const n = 200
	body := func(i int) string { return fmt.Sprintf(`{"n":%d,"s":"%s"}`, i, strings.Repeat("x", i*37%3000)) }
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id, _ := jsonrpc.MakeID(float64(i))
			b := append(tr.Buffer(len(body(i))), body(i)...)
			if err := tr.c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: tr.Pass(b)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines for %d answers", len(lines), n)
	}
	for _, l := range lines {
		var r struct {
			ID     int
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || string(r.Result) != body(r.ID) {
			t.Errorf("a line %.120q (%v), want the result %.60q", l, err, body(r.ID))
		}
	}
}

// TestSessionEndReleasesPassed: results passed for answers that will never
// be written, because the session ended (the SDK encodes a response, then
// finds the connection closing and drops it), are released when the
// connection closes, not held for as long as the transport lives; and one
// passed after the end is not held at all.
func TestSessionEndReleasesPassed(t *testing.T) {
	tr := New(strings.NewReader(""), &bytes.Buffer{}, Options{})
	for range 3 {
		tr.Pass(tr.Buffer(1 << 20))
	}
	if n := tr.c.passed.Holding(); n != 3 {
		t.Fatalf("%d results held before the end, want 3", n)
	}
	tr.c.Close()
	late := tr.Pass([]byte(`{}`))
	if n := tr.c.passed.Holding(); n != 0 {
		t.Errorf("%d results still held after the session ended", n)
	}
	if held, isStandIn := tr.c.passed.Take(late); !isStandIn || held != nil {
		t.Errorf("a stand-in passed after the end holds %q", held)
	}
}
