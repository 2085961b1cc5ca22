package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// harness runs a go-sdk server over a Transport fed through pipes.
type harness struct {
	t       *testing.T
	tr      *Transport
	in      *io.PipeWriter
	lines   chan []byte   // every line the server wrote
	runDone chan struct{} // closed when Run has returned
	release chan struct{} // ends a block call without cancelling it
	started chan struct{} // the block tool began
	ended   chan struct{} // the block tool saw its context end
	log     *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start serves the block tool, and whatever setup adds, over a Transport.
func start(t *testing.T, opts Options, setup ...func(*mcp.Server, *Transport)) *harness {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{t: t, in: inW, lines: make(chan []byte, 100), runDone: make(chan struct{}), release: make(chan struct{}, 10),
		started: make(chan struct{}, 10), ended: make(chan struct{}, 10), log: &syncBuffer{}}
	opts.Log, opts.Name = h.log, "test"
	h.tr = New(inR, outW, opts)

	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		h.started <- struct{}{}
		select {
		case <-ctx.Done():
			h.ended <- struct{}{}
		case <-h.release:
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ended"}}}, nil, nil
	})
	for _, f := range setup {
		f(s, h.tr)
	}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			h.lines <- bytes.Clone(sc.Bytes())
		}
		close(h.lines)
	}()
	go func() {
		s.Run(context.Background(), h.tr)
		outW.Close()
		close(h.runDone)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-h.runDone:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop after its input closed")
		}
	})
	return h
}

func (h *harness) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatal(err)
	}
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next returns the next line the server writes.
func (h *harness) next() reply {
	h.t.Helper()
	select {
	case line, ok := <-h.lines:
		if !ok {
			h.t.Fatalf("the server stopped writing\nlog:\n%s", h.log)
		}
		var r reply
		if err := json.Unmarshal(line, &r); err != nil {
			h.t.Fatalf("server wrote %q: %v", line, err)
		}
		return r
	case <-time.After(10 * time.Second):
		h.t.Fatalf("no answer\nlog:\n%s", h.log)
	}
	return reply{}
}

// ping checks that the server still answers.
func (h *harness) ping(id int) {
	h.t.Helper()
	h.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
	if r := h.next(); string(r.ID) != fmt.Sprint(id) || r.Error != nil || r.Result == nil {
		h.t.Fatalf("ping %d answered %+v %+v", id, r, r.Error)
	}
}

func (h *harness) initialize() {
	h.t.Helper()
	h.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r := h.next(); r.Error != nil {
		h.t.Fatalf("initialize: %+v", r.Error)
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func TestMalformedLinesAreAnswered(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, tc := range []struct {
		name, line string
		code       int64
		id         string // the reply's id; "" for none
	}{
		{"not JSON", "hello", -32700, ""},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"pi`, -32700, ""},
		{"binary", "\x00\xff\xfe{", -32700, ""},
		{"two messages", `{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, ""},
		{"empty batch", "[]", -32600, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, ""},
		{"string", `"ping"`, -32600, ""},
		{"deep array", deep, -32600, ""},
		{"deep params", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":` + deep + `}}`, -32600, ""},
		{"version", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600, "4"},
		{"no version", `{"id":"x","method":"ping"}`, -32600, `"x"`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, ""},
		{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901,"method":"ping"}`, -32600, ""},
		{"method number", `{"jsonrpc":"2.0","id":5,"method":5}`, -32600, "5"},
		{"nothing", `{"jsonrpc":"2.0"}`, -32600, ""},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, -32600, ""},
		{"response with both", `{"jsonrpc":"2.0","id":6,"result":{},"error":{"code":1,"message":"x"}}`, -32600, "6"},
		{"array params", `{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}`, -32602, "7"},
		{"string params", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":"x"}`, -32602, "8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, Options{})
			h.send(tc.line)
			r := h.next()
			if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
				t.Errorf("answer %+v id %s, want code %d id %q", r.Error, r.ID, tc.code, tc.id)
			}
			h.ping(100)
			log := h.log.String()
			if n := strings.Count(log, "\n"); n != 1 || !strings.Contains(log, "stdin line 1 ") {
				t.Errorf("log:\n%s", log)
			}
			if len(tc.line) > 4 && strings.Contains(log, tc.line) {
				t.Errorf("log echoes the input:\n%s", log)
			}
		})
	}
}

func TestQuietLines(t *testing.T) {
	h := start(t, Options{})
	// Blank lines, CRLF endings and well-formed notifications the server
	// does not know get no answer; a notification with bad params is
	// logged only.
	h.send("")
	h.send("   \r")
	h.send(`{"jsonrpc":"2.0","method":"notifications/unknown"}` + "\r")
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`)
	h.send(`{"jsonrpc":"2.0","id":1,"result":{}}`) // a response to nothing
	h.ping(2)
	if log := h.log.String(); strings.Count(log, "\n") != 1 || !strings.Contains(log, "stdin line 4 ") {
		t.Errorf("log:\n%s", log)
	}
}

func TestOversizedLine(t *testing.T) {
	h := start(t, Options{MaxLineBytes: 1000})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`)
	r := h.next()
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "1000 bytes") || r.ID != nil {
		t.Errorf("answer %+v id %s", r.Error, r.ID)
	}
	// A line of exactly the limit is read.
	line := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":""}}`
	h.send(strings.Replace(line, `""`, `"`+strings.Repeat("b", 1000-len(line))+`"`, 1))
	if r := h.next(); r.Error != nil || string(r.ID) != "2" {
		t.Errorf("a line of the limit: %+v", r)
	}
	h.ping(3)
	if log := h.log.String(); !strings.Contains(log, "longer than the limit of 1000 bytes") || strings.Contains(log, "aaaa") {
		t.Errorf("log:\n%s", log)
	}
}

func TestDuplicateIDInFlight(t *testing.T) {
	h := start(t, Options{})
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	h.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if r := h.next(); r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "7" || !strings.Contains(r.Error.Message, "already used") {
		t.Errorf("duplicate: %+v", r)
	}
	// A string id equal in text is another id.
	h.send(`{"jsonrpc":"2.0","id":"7","method":"ping"}`)
	if r := h.next(); r.Error != nil || string(r.ID) != `"7"` {
		t.Errorf("string id: %+v", r)
	}
}

func TestCancelledRequestGetsNoResponse(t *testing.T) {
	h := start(t, Options{})
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"test"}}`)
	<-h.ended
	// Once the call is answered the id is free again.
	waitFor(t, func() bool { return inflight(h.tr) == 0 })
	h.ping(5)
	// End the input and read everything the server wrote: nothing for the
	// cancelled call.
	h.in.Close()
	<-h.runDone
	for line := range h.lines {
		t.Errorf("server wrote after the ping: %s", line)
	}
}

func inflight(t *Transport) int {
	t.c.stateMu.Lock()
	defer t.c.stateMu.Unlock()
	return len(t.c.inflight)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestUncancelledCallIsAnswered(t *testing.T) {
	h := start(t, Options{})
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	// Cancelling another id changes nothing.
	h.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`)
	h.ping(7)
	h.release <- struct{}{}
	if r := h.next(); string(r.ID) != "5" || r.Result == nil {
		t.Errorf("answer %+v", r)
	}
}

func TestSDKErrorsGetStandardCodes(t *testing.T) {
	h := start(t, Options{})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	r := h.next()
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, `send "initialize" first`) || !strings.Contains(r.Error.Message, "params._meta") {
		t.Errorf("before initialize: %+v", r.Error)
	}
	h.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":5}}`)
	if r := h.next(); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("bad initialize params: %+v", r.Error)
	}
}

func TestShutdown(t *testing.T) {
	h := start(t, Options{})
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	if n := h.tr.Shutdown(); n != 1 {
		t.Errorf("Shutdown reported %d requests in flight, want 1", n)
	}
	<-h.ended // the call's context ended
	select {
	case <-h.runDone:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Shutdown")
	}
	<-h.tr.Quiet()
	for line := range h.lines {
		t.Errorf("server wrote after Shutdown: %s", line)
	}
	if err := h.tr.c.writeLine([]byte("{}")); !errors.Is(err, ErrStopped) {
		t.Errorf("write after Shutdown: %v", err)
	}
}

// TestEndOfInputAnswersWhatWasRead: input that ends right after its last
// request (printf '…' | server) still gets every answer, here the legacy
// handshake and a tools/list sent in one write, many times over.
func TestEndOfInputAnswersWhatWasRead(t *testing.T) {
	for i := range 20 {
		h := start(t, Options{})
		go func() {
			io.WriteString(h.in, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`+"\n")
			h.in.Close()
		}()
		var ids []string
		for line := range h.lines {
			var r reply
			if err := json.Unmarshal(line, &r); err != nil || r.Error != nil {
				t.Fatalf("run %d: %s", i, line)
			}
			ids = append(ids, string(r.ID))
		}
		if strings.Join(ids, " ") != `"init" 2` {
			t.Fatalf("run %d: answers to %v, want init and tools/list\nlog:\n%s", i, ids, h.log)
		}
		select {
		case <-h.tr.Ending():
			t.Fatalf("run %d: Ending fired: %v", i, h.tr.EndCause())
		default:
		}
	}
}

// TestEndOfInputAnswersWithinGrace: a call still running when the input
// ends is answered if it returns within the grace.
func TestEndOfInputAnswersWithinGrace(t *testing.T) {
	h := start(t, Options{EndGrace: time.Minute})
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	h.in.Close()
	h.release <- struct{}{}
	if r := h.next(); string(r.ID) != "4" || r.Result == nil {
		t.Errorf("answer %+v", r)
	}
	waitClosed(t, h.runDone, "the end of Run")
	if err := h.tr.EndCause(); err != nil {
		t.Errorf("EndCause = %v", err)
	}
}

// TestEndOfInputCancelsAfterGrace: a call still running when the grace is
// over is cancelled and unanswered, and Ending says so.
func TestEndOfInputCancelsAfterGrace(t *testing.T) {
	h := start(t, Options{EndGrace: 50 * time.Millisecond})
	h.initialize()
	h.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-h.started
	h.in.Close()
	waitClosed(t, h.tr.Ending(), "Ending")
	if err := h.tr.EndCause(); err == nil || !strings.Contains(err.Error(), "stdin ended with 1 request(s) unanswered after 50ms") {
		t.Errorf("EndCause = %v", err)
	}
	waitRecv(t, h.ended, "the call's cancellation")
	waitClosed(t, h.runDone, "the end of Run")
	for line := range h.lines {
		t.Errorf("the cancelled call was answered: %s", line)
	}
}

// failingWriter fails every write after the first ok ones.
type failingWriter struct {
	mu sync.Mutex
	ok int
	w  bytes.Buffer
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ok == 0 {
		return 0, errors.New("broken pipe")
	}
	f.ok--
	return f.w.Write(p)
}

// TestFailedWriteEnds: once a write to stdout fails, nothing more is
// written, Ending fires with the cause, and the calls in flight are
// cancelled.
func TestFailedWriteEnds(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &failingWriter{ok: 1}
	tr := New(inR, out, Options{})
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	started, ended := make(chan struct{}), make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		<-ctx.Done()
		close(ended)
		return nil, nil, ctx.Err()
	})
	runDone := make(chan struct{})
	go func() {
		s.Run(context.Background(), tr)
		close(runDone)
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`+"\n")
	waitClosed(t, started, "the call")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n") // its answer fails
	waitClosed(t, tr.Ending(), "Ending")
	if err := tr.EndCause(); err == nil || !strings.Contains(err.Error(), "writing stdout: broken pipe") {
		t.Errorf("EndCause = %v", err)
	}
	waitClosed(t, ended, "the call's cancellation")
	tr.Shutdown()
	select {
	case <-runDone:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if err := tr.c.writeLine([]byte("{}")); !errors.Is(err, ErrStopped) {
		t.Errorf("write after the failure: %v", err)
	}
	if got := strings.Count(out.w.String(), "\n"); got != 1 {
		t.Errorf("%d lines written, want the initialize answer only", got)
	}
}

// waitClosed fails the test unless ch is closed within a generous wait.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s after 10 s", what)
	}
}

// waitRecv fails the test unless ch yields within a generous wait.
func waitRecv(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	waitClosed(t, recvOnce(ch), what)
}

func recvOnce(ch <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		<-ch
		close(done)
	}()
	return done
}
