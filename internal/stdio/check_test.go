package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readAll splits in with a lineReader of the given limit.
func readAll(t testing.TB, in []byte, max, bufSize int) (lines [][]byte, sizes []int) {
	l := &lineReader{r: bufio.NewReaderSize(bytes.NewReader(in), bufSize), max: max}
	for {
		line, size, err := l.next()
		if size > 0 || line != nil {
			lines, sizes = append(lines, line), append(sizes, size)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			return lines, sizes
		}
	}
}

func TestLineReader(t *testing.T) {
	in := "a\n\nbbbb\r\nccccc\n" + strings.Repeat("d", 40) + "\nlast"
	lines, sizes := readAll(t, []byte(in), 5, 16)
	want := []string{"a", "", "bbbb\r", "ccccc", "", "last"}
	wantSizes := []int{1, 0, 5, 5, 40, 4}
	if len(lines) != len(want) {
		t.Fatalf("lines %q sizes %v", lines, sizes)
	}
	for i := range want {
		if sizes[i] != wantSizes[i] {
			t.Errorf("line %d: size %d, want %d", i, sizes[i], wantSizes[i])
		}
		if sizes[i] > 5 {
			if lines[i] != nil {
				t.Errorf("line %d over the limit kept: %q", i, lines[i])
			}
		} else if string(lines[i]) != want[i] {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
}

// endless yields n bytes of x without allocating.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return k, nil
}

// A discarded line costs the read buffer, not its length.
func TestOversizedLineMemory(t *testing.T) {
	const size = 256 << 20
	l := &lineReader{r: bufio.NewReaderSize(io.MultiReader(&endless{size}, strings.NewReader("\n{}\n")), readBufferBytes), max: 1 << 20}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	line, n, err := l.next()
	runtime.ReadMemStats(&after)
	if err != nil || line != nil || n != size {
		t.Fatalf("line %d bytes kept, size %d, %v", len(line), n, err)
	}
	// Up to the limit (1 MiB, grown by append) may be buffered before the
	// line proves too long.
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("discarding a %d-byte line allocated %d bytes", size, got)
	}
	if line, _, _ := l.next(); string(line) != "{}" {
		t.Errorf("next line %q", line)
	}
}

func TestTooDeep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		deep bool
	}{
		{`{}`, false},
		{`[[[]]]`, false},
		{`[[[[]]]]`, true},
		{`{"a":{"b":{"c":1}}}`, false},
		{`{"a":{"b":{"c":{}}}}`, true},
		{`{"a":"[[[[[[[["}`, false},
		{`{"a":"\"[[[[[[[["}`, false},
		{`["\\",[[[]]]]`, true},
	} {
		if got := tooDeep([]byte(tc.in), 3); got != tc.deep {
			t.Errorf("tooDeep(%s, 3) = %v", tc.in, got)
		}
	}
}

func TestCheckPassesMessages(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		` {"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}` + "\r",
		`{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping","params":null}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32001,"message":"no","data":{"a":[1]}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"m","Method":"n","params":{ "a" : 1 }}`,
		`{"jsonrpc":"2.0","id":6,"method":"m","method":"n"}`,
	} {
		msg, r := check([]byte(line))
		if r != nil || msg == nil {
			t.Errorf("%s: refused %+v", line, r)
			continue
		}
		want, err := jsonrpc.DecodeMessage([]byte(strings.TrimSpace(line)))
		if err != nil {
			t.Fatal(err)
		}
		if d := sameMessage(msg, want); d != "" {
			t.Errorf("%s: %s", line, d)
		}
	}
	// Keys match exactly, as the SDK's decoder matches them.
	if msg, r := check([]byte(`{"jsonrpc":"2.0","id":1,"Method":"ping"}`)); msg != nil || r == nil {
		t.Errorf(`"Method" passed as the method: %v`, msg)
	}
	if msg, r := check([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"no"}}`)); msg != nil || r == nil {
		t.Errorf("an error with a string code passed: %v", msg)
	}
	if id, ok := cancelledID([]byte(`{"requestId":"abc"}`)); !ok || id.Raw() != "abc" {
		t.Errorf("cancelledID = %v %v", id, ok)
	}
}

// FuzzCheck: no line panics the checker; whatever passes decodes, nests
// within MaxDepth and is not a batch; refusals use standard codes and never
// repeat the input to stderr.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `hello`, `{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","id":3,"method":"m","params":[1]}`,
		strings.Repeat("{\"a\":", 70) + "1" + strings.Repeat("}", 70),
		`{"jsonrpc":"2.0","id":5,"Method":"m","params":{}}`, `{"jsonrpc":"2.0","id":6,"method":"m","method":"n","params":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, r := check(line)
		if msg != nil && r != nil {
			t.Fatal("both a message and a refusal")
		}
		if msg != nil {
			want, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
			if err != nil {
				t.Fatalf("passed a line that does not decode: %v", err)
			}
			if d := sameMessage(msg, want); d != "" {
				t.Fatalf("%s: the message differs from jsonrpc.DecodeMessage's: %s", line, d)
			}
			if tooDeep(line, MaxDepth) || bytes.TrimSpace(line)[0] != '{' {
				t.Fatal("passed a deep line or a non-object")
			}
		}
		if r != nil {
			switch r.code {
			case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams:
			default:
				t.Fatalf("code %d", r.code)
			}
			if len(line) >= 8 && strings.Contains(r.problem, string(line)) {
				t.Fatal("the log line repeats the input")
			}
		}
	})
}

// sameMessage says how got differs from want, DecodeMessage's message for
// the same line, or "" when they are the same.
func sameMessage(got, want jsonrpc.Message) string {
	switch w := want.(type) {
	case *jsonrpc.Request:
		g, ok := got.(*jsonrpc.Request)
		switch {
		case !ok:
			return fmt.Sprintf("%T, not a request", got)
		case g.ID != w.ID || g.Method != w.Method:
			return fmt.Sprintf("id %v method %q, want %v %q", g.ID.Raw(), g.Method, w.ID.Raw(), w.Method)
		case !bytes.Equal(g.Params, w.Params):
			return fmt.Sprintf("params %q, want %q", g.Params, w.Params)
		}
	case *jsonrpc.Response:
		g, ok := got.(*jsonrpc.Response)
		switch {
		case !ok:
			return fmt.Sprintf("%T, not a response", got)
		case g.ID != w.ID || !bytes.Equal(g.Result, w.Result):
			return fmt.Sprintf("id %v result %q, want %v %q", g.ID.Raw(), g.Result, w.ID.Raw(), w.Result)
		case (g.Error == nil) != (w.Error == nil):
			return fmt.Sprintf("error %v, want %v", g.Error, w.Error)
		case g.Error != nil:
			ge, we := g.Error.(*jsonrpc.Error), w.Error.(*jsonrpc.Error)
			if ge.Code != we.Code || ge.Message != we.Message || !bytes.Equal(ge.Data, we.Data) {
				return fmt.Sprintf("error %+v, want %+v", ge, we)
			}
		}
	}
	return ""
}

// FuzzLineReader: lines come back as split by newlines, with their sizes,
// kept only within the limit, whatever the buffer size.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), 2, 16)
	f.Add([]byte(strings.Repeat("x", 100)+"\ny\n"), 10, 16)
	f.Fuzz(func(t *testing.T, in []byte, max, bufSize int) {
		if max < 0 || max > 1<<16 {
			return
		}
		bufSize = 16 + bufSize&0xff
		lines, sizes := readAll(t, in, max, bufSize)
		parts := bytes.Split(in, []byte("\n"))
		if len(parts[len(parts)-1]) == 0 {
			parts = parts[:len(parts)-1]
		}
		if len(lines) != len(parts) {
			t.Fatalf("%d lines, want %d", len(lines), len(parts))
		}
		for i, p := range parts {
			if sizes[i] != len(p) {
				t.Fatalf("line %d: size %d, want %d", i, sizes[i], len(p))
			}
			if len(p) <= max && !bytes.Equal(lines[i], p) {
				t.Fatalf("line %d = %q, want %q", i, lines[i], p)
			}
			if len(p) > max && lines[i] != nil {
				t.Fatalf("line %d over the limit kept", i)
			}
		}
	})
}

// TestOneDepthRule: past MaxDepth the answer is the same -32600 naming the
// limit at any depth, including past the 10,000 levels at which
// encoding/json gives up on its own, and whether the deep part is arrays
// or objects, closed or not.
func TestOneDepthRule(t *testing.T) {
	want := fmt.Sprintf("nest deeper than %d levels", MaxDepth)
	for _, depth := range []int{MaxDepth + 1, 10_001, 100_000} {
		wrapped := func(open, close string) string {
			inner := strings.Repeat(open, depth-1) + strings.Repeat(close, depth-1)
			return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":` + inner + `}}`
		}
		for name, line := range map[string]string{
			"arrays":   wrapped("[", "]"),
			"objects":  strings.Replace(wrapped(`{"a":`, "}"), `{"a":}`, `{"a":1}`, 1),
			"bare":     strings.Repeat("[", depth) + strings.Repeat("]", depth),
			"unclosed": strings.Repeat("[", depth),
		} {
			msg, r := check([]byte(line))
			if msg != nil || r == nil {
				t.Errorf("%s at %d levels: passed", name, depth)
				continue
			}
			if r.code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.message, want) {
				t.Errorf("%s at %d levels: %d %q", name, depth, r.code, r.message)
			}
		}
	}
	// At the limit itself the message passes.
	inner := strings.Repeat("[", MaxDepth-2) + strings.Repeat("]", MaxDepth-2)
	line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":` + inner + `}}`
	if msg, r := check([]byte(line)); msg == nil || r != nil {
		t.Errorf("%d levels refused: %+v", MaxDepth, r)
	}
}
