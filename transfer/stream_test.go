package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// chunkReader returns its chunks one per Read.
type chunkReader struct {
	chunks []string
	err    error // returned after the last chunk; io.EOF when nil
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

// readAllFrames reads frames until an error and returns them with the error.
func readAllFrames(fr *FrameReader) ([]string, error) {
	var frames []string
	for {
		f, err := fr.Next()
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(f))
	}
}

func equalFrames(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

var testFrames = []string{
	`{"status":"ok","retcode":0,"stream":"stream-action","data":{"type":"stream","data_type":"data_chunk","data":"Index-> 1"}}`,
	`{"status":"ok","retcode":0,"stream":"stream-action","data":{"type":"stream","data_type":"data_chunk","data":"a\r\nb"}}`,
	`{"status":"ok","retcode":0,"stream":"stream-action","data":{"type":"response","data_type":"data_complete"}}`,
}

func joinFrames(frames []string) string {
	return strings.Join(frames, FrameDelimiter) + FrameDelimiter
}

func TestFrameReaderOneByteAtATime(t *testing.T) {
	input := joinFrames(testFrames)
	got, err := readAllFrames(NewFrameReader(iotest.OneByteReader(strings.NewReader(input)), 0))
	if err != io.EOF {
		t.Fatalf("error %v, want io.EOF", err)
	}
	if !equalFrames(got, testFrames) {
		t.Errorf("frames\n%q\nwant\n%q", got, testFrames)
	}
}

func TestFrameReaderEverySplit(t *testing.T) {
	input := joinFrames(testFrames[:2])
	want := testFrames[:2]
	for i := 0; i <= len(input); i++ {
		for j := i; j <= len(input); j++ {
			r := &chunkReader{chunks: []string{input[:i], input[i:j], input[j:]}}
			got, err := readAllFrames(NewFrameReader(r, 0))
			if err != io.EOF || !equalFrames(got, want) {
				t.Fatalf("split at %d,%d: %q, %v", i, j, got, err)
			}
		}
	}
}

func TestFrameReaderSplitDelimiters(t *testing.T) {
	for _, tc := range []struct {
		chunks []string
		want   []string
	}{
		{[]string{`{"a":1}`, "\r", "\n\r\n", `{"b":2}`, "\r\n\r\n"}, []string{`{"a":1}`, `{"b":2}`}},
		{[]string{`{"a":1}` + "\r\n", "\r", "\n" + `{"b":2}` + "\r\n\r", "\n"}, []string{`{"a":1}`, `{"b":2}`}},
		{[]string{`{"a":1}` + "\r\n\r", "\n" + `{"b"`, `:2}`}, []string{`{"a":1}`, `{"b":2}`}},
		{[]string{"\r\n\r\n", "\r\n\r\n", `{"a":1}`, "\r\n\r\n\r\n", "\r\n", `{"b":2}`}, []string{`{"a":1}`, `{"b":2}`}},
		{[]string{`{"a":"\r\n\r"}`, "\r\n\r\n"}, []string{`{"a":"\r\n\r"}`}},
		{[]string{"  \r\n", "\r\n \t "}, nil},
		{[]string{""}, nil},
		{[]string{"\r\n\r", "\n"}, nil},
		{[]string{`{"a":1}` + "\r\n"}, []string{`{"a":1}`}},
		{[]string{" \n{\"a\":1}\n "}, []string{`{"a":1}`}},
	} {
		got, err := readAllFrames(NewFrameReader(&chunkReader{chunks: tc.chunks}, 0))
		if err != io.EOF || !equalFrames(got, tc.want) {
			t.Errorf("chunks %q: frames %q, %v; want %q", tc.chunks, got, err, tc.want)
		}
	}
}

func TestFrameReaderFramesStayValid(t *testing.T) {
	fr := NewFrameReader(iotest.HalfReader(strings.NewReader(joinFrames(testFrames))), 0)
	var frames [][]byte
	for {
		f, err := fr.Next()
		if err != nil {
			break
		}
		frames = append(frames, f)
	}
	for i, f := range frames {
		if string(f) != testFrames[i] {
			t.Errorf("frame %d changed after later reads: %s", i, f)
		}
	}
}

func TestFrameReaderTooLarge(t *testing.T) {
	ten := `{"a":"12"}` // 10 bytes
	eleven := `{"a":"123"}`
	for _, tc := range []struct {
		name  string
		input string
		want  []string
		fail  bool
	}{
		{"at the cap", ten + FrameDelimiter, []string{ten}, false},
		{"at the cap, no delimiter", ten, []string{ten}, false},
		{"over the cap", ten + FrameDelimiter + eleven + FrameDelimiter, []string{ten}, true},
		{"over the cap at the end", eleven, nil, true},
		{"endless frame", strings.Repeat("x", 1000), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fr := NewFrameReader(iotest.OneByteReader(strings.NewReader(tc.input)), 10)
			got, err := readAllFrames(fr)
			if !equalFrames(got, tc.want) {
				t.Errorf("frames %q, want %q", got, tc.want)
			}
			if !tc.fail {
				if err != io.EOF {
					t.Errorf("error %v, want io.EOF", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != outcome.KindTooLarge {
				t.Fatalf("error %v, want kind too_large", err)
			}
			if _, again := fr.Next(); again != err {
				t.Errorf("after too_large Next returned %v", again)
			}
		})
	}
}

func TestFrameReaderPassesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	r := &chunkReader{chunks: []string{`{"a":1}` + FrameDelimiter + `{"b":`}, err: boom}
	got, err := readAllFrames(NewFrameReader(r, 0))
	if err != boom || !equalFrames(got, []string{`{"a":1}`}) {
		t.Errorf("frames %q, error %v", got, err)
	}
}

func TestFrameReaderNoProgress(t *testing.T) {
	fr := NewFrameReader(readerFunc(func([]byte) (int, error) { return 0, nil }), 0)
	if _, err := fr.Next(); err != io.ErrNoProgress {
		t.Errorf("error %v, want io.ErrNoProgress", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func FuzzFrameReader(f *testing.F) {
	f.Add([]byte(joinFrames(testFrames)), uint8(1), uint16(0))
	f.Add([]byte("\r\n\r\n{}\r\n\r\n\r\n\r\n x "), uint8(3), uint16(4))
	f.Add([]byte(`{"a":1}`+"\r\n\r"), uint8(7), uint16(6))
	f.Add([]byte("\r\r\n\r\n\r\n\n"), uint8(2), uint16(0))
	// Pieces at most 3 bytes over the cap: too_large is found at the
	// delimiter, not while waiting for one.
	f.Add([]byte("{}\r\n\r\n{\"a\":12}\r\n\r\n{}"), uint8(15), uint16(5)) // too_large after one frame
	f.Add([]byte("\r\n\r\n      \r\n\r\n{}"), uint8(15), uint16(4))       // a blank piece over the cap
	f.Add([]byte("{}\r\n\r\n  {\"a\":12345}"), uint8(2), uint16(5))       // over the cap while waiting
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, maxFrame uint16) {
		size := int(chunk%16) + 1
		r := readerFunc(func(p []byte) (int, error) {
			if len(data) == 0 {
				return 0, io.EOF
			}
			n := copy(p[:min(len(p), size)], data)
			data = data[n:]
			return n, nil
		})
		input := bytes.Clone(data)
		limit := int(maxFrame)
		fr := NewFrameReader(r, limit)
		got, err := readAllFrames(fr)

		// The pieces between delimiters, as received: a frame is a piece
		// that is not blank once trimmed, and a piece longer than the cap
		// (delimiter excluded, surrounding blanks included) is too large.
		if limit <= 0 {
			limit = DefaultMaxFrameBytes
		}
		pieces := bytes.Split(input, []byte(FrameDelimiter))
		oversized := slices.IndexFunc(pieces, func(p []byte) bool { return len(p) > limit })
		framesOf := func(pieces [][]byte) []string {
			var frames []string
			for _, piece := range pieces {
				if p := bytes.Trim(piece, " \t\r\n"); len(p) > 0 {
					frames = append(frames, string(p))
				}
			}
			return frames
		}
		if err == io.EOF {
			if oversized >= 0 {
				t.Fatalf("piece %d has %d bytes, over the cap of %d, but no too_large", oversized, len(pieces[oversized]), limit)
			}
			if want := framesOf(pieces); !equalFrames(got, want) {
				t.Fatalf("frames %q, want %q", got, want)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Kind != outcome.KindTooLarge {
			t.Fatalf("unexpected error %v", err)
		}
		if oversized < 0 {
			t.Fatalf("too_large, but no piece is over the cap of %d bytes: %q", limit, input)
		}
		// Every frame before the first oversized piece, and nothing after.
		if want := framesOf(pieces[:oversized]); !equalFrames(got, want) {
			t.Fatalf("frames before too_large %q, want %q", got, want)
		}
	})
}

// streamHandler writes frames in awkward chunks, flushing after each, then
// optionally waits for the client to go away.
func streamHandler(frames []string, hang bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(200)
		body := joinFrames(frames)
		if len(frames) == 0 {
			body = ""
		}
		for i := 0; i < len(body); {
			n := min(len(body)-i, 1+i%23)
			io.WriteString(w, body[i:i+n])
			w.(http.Flusher).Flush()
			i += n
		}
		if hang {
			waitGone(r)
		}
	}
}

func downloadFrames(n int, last string) []string {
	var frames []string
	for k := 1; k <= n; k++ {
		frames = append(frames, fmt.Sprintf(
			`{"status":"ok","retcode":0,"stream":"stream-action","data":{"type":"stream","data_type":"data_chunk","data":"Index-> %d"}}`, k))
	}
	return append(frames, last)
}

const (
	completeFrame = `{"status":"ok","retcode":0,"stream":"stream-action","data":{"type":"response","data_type":"data_complete"}}`
	errorFrame    = `{"status":"failed","retcode":1200,"stream":"stream-action","data":{"type":"error","data_type":"error"},"message":"test error","wording":"test error"}`
)

// collect runs a stream and returns the frames delivered.
func collect(t *testing.T, c *Client, ctx context.Context) ([]Frame, error) {
	t.Helper()
	var frames []Frame
	err := c.Stream(ctx, Request{Action: "test_download_stream"}, func(f Frame) error {
		frames = append(frames, f)
		return nil
	})
	return frames, err
}

func TestStreamSuccess(t *testing.T) {
	want := downloadFrames(10, completeFrame)
	// Anything after the terminal frame is not read.
	c := newTestClient(t, streamHandler(append(want, "not json"), false), nil)
	frames, err := collect(t, c, context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != len(want) {
		t.Fatalf("%d frames, want %d", len(frames), len(want))
	}
	for i, f := range frames {
		if string(f.Raw) != want[i] {
			t.Errorf("frame %d: %s, want %s", i, f.Raw, want[i])
		}
		last := i == len(frames)-1
		if f.Terminal != last {
			t.Errorf("frame %d: Terminal %v", i, f.Terminal)
		}
		wantType := "stream"
		if last {
			wantType = "response"
		}
		if f.Type != wantType || f.Status != "ok" || f.Retcode != "0" {
			t.Errorf("frame %d: type %q status %q retcode %q", i, f.Type, f.Status, f.Retcode)
		}
	}
	if string(frames[0].Data) != `{"type":"stream","data_type":"data_chunk","data":"Index-> 1"}` {
		t.Errorf("data %s", frames[0].Data)
	}
}

func TestStreamFailedTerminalFrame(t *testing.T) {
	c := newTestClient(t, streamHandler(downloadFrames(3, errorFrame), true), nil)
	frames, err := collect(t, c, context.Background())
	if err != nil {
		t.Fatalf("a failed terminal frame is not an error: %v", err)
	}
	last := frames[len(frames)-1]
	if len(frames) != 4 || !last.Terminal || last.Status != "failed" || last.Type != "error" || last.Retcode != "1200" {
		t.Errorf("%d frames, last %+v", len(frames), last)
	}
}

func TestStreamOrdinaryEnvelope(t *testing.T) {
	for _, tc := range []struct {
		status      int
		contentType string
		body        string
	}{
		{404, "application/json", `{"status":"failed","retcode":1404,"data":null,"wording":"unknown action"}`},
		{500, "text/plain", `{"status":"failed","retcode":1200,"data":null,"wording":"internal error"}`},
		{200, "application/json; charset=utf-8", `{"status":"failed","retcode":1400,"data":null,"wording":"missing file"}`},
		{200, "application/json", `{"status":"ok","retcode":0,"data":{"x":1}}`},
	} {
		c := newTestClient(t, answer(tc.status, tc.contentType, tc.body), nil)
		frames, err := collect(t, c, context.Background())
		if err != nil {
			t.Errorf("HTTP %d %s: %v", tc.status, tc.contentType, err)
			continue
		}
		if len(frames) != 1 || !frames[0].Terminal || string(frames[0].Raw) != tc.body {
			t.Errorf("HTTP %d: frames %+v", tc.status, frames)
		}
	}
}

func TestStreamFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		edit func(*Options)
		want outcome.Kind
	}{
		{"unauthorized", answer(401, "application/json", `{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`), nil, outcome.KindUnauthorized},
		{"no terminal frame", streamHandler(downloadFrames(4, `{"status":"ok","retcode":0,"data":{"type":"stream"}}`), false), nil, outcome.KindStreamFailed},
		{"empty stream", streamHandler(nil, false), nil, outcome.KindStreamFailed},
		{"frame not an object", streamHandler([]string{testFrames[0], `[1,2]`, completeFrame}, false), nil, outcome.KindProtocol},
		{"frame not json", streamHandler([]string{`<html>`, completeFrame}, false), nil, outcome.KindProtocol},
		{"ordinary answer not json", answer(502, "text/html", `<html>bad gateway</html>`), nil, outcome.KindProtocol},
		{"stream over the cap", streamHandler(downloadFrames(10, completeFrame), false),
			func(o *Options) { o.MaxStreamBytes = 500 }, outcome.KindTooLarge},
		{"envelope over the cap", answer(404, "application/json", `{"status":"failed","retcode":1404,"data":null}`),
			func(o *Options) { o.MaxResponseBytes = 10 }, outcome.KindTooLarge},
		{"idle", streamHandler(downloadFrames(2, completeFrame)[:2], true),
			func(o *Options) { o.StreamIdleTimeout = 50 * time.Millisecond }, outcome.KindTimeout},
		{"no headers", func(w http.ResponseWriter, r *http.Request) { waitGone(r) },
			func(o *Options) { o.StreamIdleTimeout = 50 * time.Millisecond }, outcome.KindTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, tc.h, tc.edit)
			_, err := collect(t, c, context.Background())
			checkError(t, err, "test_download_stream", tc.want)
		})
	}
}

func TestStreamCapStopsAtTheCap(t *testing.T) {
	frames := downloadFrames(10, completeFrame)
	c := newTestClient(t, streamHandler(frames, false), func(o *Options) {
		o.MaxStreamBytes = int64(len(frames[0]) + len(FrameDelimiter) + 10)
	})
	got, err := collect(t, c, context.Background())
	checkError(t, err, "test_download_stream", outcome.KindTooLarge)
	if len(got) != 1 {
		t.Errorf("%d frames delivered before the cap, want 1", len(got))
	}
}

func TestStreamCancelled(t *testing.T) {
	c := newTestClient(t, streamHandler(downloadFrames(2, completeFrame)[:2], true), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n int
	err := c.Stream(ctx, Request{Action: "test_download_stream"}, func(f Frame) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	})
	checkError(t, err, "test_download_stream", outcome.KindCancelled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
}

func TestStreamOnFrameError(t *testing.T) {
	stop := errors.New("disk full")
	c := newTestClient(t, streamHandler(downloadFrames(10, completeFrame), true), nil)
	var n int
	err := c.Stream(context.Background(), Request{Action: "test_download_stream"}, func(f Frame) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("error %v, want the callback's error", err)
	}
	if n != 3 {
		t.Errorf("onFrame called %d times after failing", n)
	}
}

func TestStreamSendsParamsAndToken(t *testing.T) {
	var body, auth, ua string
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body, auth, ua = string(b), r.Header.Get("Authorization"), r.Header.Get("User-Agent")
		streamHandler([]string{completeFrame}, false)(w, r)
	}, nil)
	err := c.Stream(context.Background(), Request{Action: "test_download_stream", Params: []byte(`{"error":false}`)},
		func(Frame) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if body != `{"action":"test_download_stream","params":{"error":false}}` || auth != "Bearer "+testToken || ua != "snowluma-mcp/test" {
		t.Errorf("body %s, auth %q, User-Agent %q", body, auth, ua)
	}
}

// TestStreamNotEnvelope checks that a stream call answered by some other
// web server says what came: HTTP status and content type.
func TestStreamNotEnvelope(t *testing.T) {
	c := newTestClient(t, answer(404, "text/plain; charset=utf-8", "404 page not found"), nil)
	_, err := collect(t, c, context.Background())
	e := checkError(t, err, "test_download_stream", outcome.KindProtocol)
	if !strings.Contains(e.Error(), "HTTP 404, text/plain: not a OneBot envelope") || strings.Contains(e.Error(), "page not found") {
		t.Errorf("message %q", e.Error())
	}
}

func TestParseFrameData(t *testing.T) {
	for _, tc := range []struct {
		raw      string
		typ      string
		terminal bool
		data     string
	}{
		{`{"status":"ok","retcode":0,"data":null}`, "", false, "null"},
		{`{"status":"ok","retcode":0}`, "", false, ""},
		{`{"status":"ok","retcode":0,"data":{"type":7}}`, "", false, `{"type":7}`},
		{`{"status":"ok","retcode":0,"data":"text"}`, "", false, `"text"`},
		{`{"status":"failed","retcode":1200,"data":null}`, "", true, "null"},
		{`{"status":"ok","retcode":0,"data":{"type":"error"}}`, "error", true, `{"type":"error"}`},
	} {
		f, err := parseFrame([]byte(tc.raw), "stream frame")
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		if f.Type != tc.typ || f.Terminal != tc.terminal || string(f.Data) != tc.data {
			t.Errorf("%s: type %q terminal %v data %q", tc.raw, f.Type, f.Terminal, f.Data)
		}
	}
}
