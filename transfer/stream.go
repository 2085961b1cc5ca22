package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// FrameDelimiter ends every frame of a stream body.
const FrameDelimiter = "\r\n\r\n"

// DefaultMaxFrameBytes caps one stream frame: enough for a 32 MiB chunk
// (SnowLuma's largest) encoded as base64, plus room for the envelope.
const DefaultMaxFrameBytes = 32<<20*4/3 + 64<<10

// A FrameReader's buffer starts at initialBuffer bytes and grows to offer
// each Read at least minRead bytes (or half the buffer, while it is small).
const (
	initialBuffer = 4 << 10
	minRead       = 32 << 10
)

// FrameReader splits a stream body into frames. Frame boundaries need not
// line up with the reads of the underlying reader: the body is treated as a
// byte stream and split on FrameDelimiter.
type FrameReader struct {
	r     io.Reader
	max   int
	buf   []byte // buf[start:] holds bytes read but not yet returned
	start int
	scan  int   // where in buf the search for the next delimiter resumes
	err   error // the first error seen; returned once buffered frames are drained
}

// NewFrameReader returns a FrameReader reading r. A frame longer than
// maxFrame bytes is an error of kind outcome.KindTooLarge; maxFrame <= 0 means
// DefaultMaxFrameBytes.
func NewFrameReader(r io.Reader, maxFrame int) *FrameReader {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrameBytes
	}
	return &FrameReader{r: r, max: maxFrame}
}

// Next returns the next frame without its delimiter and surrounding
// whitespace. Blank frames are skipped. A final frame with no delimiter after
// it is still a frame. At a clean end of the body Next returns io.EOF; errors
// of the underlying reader are returned as they are, after the frames
// completed before them. The returned bytes stay valid after later calls.
func (fr *FrameReader) Next() (json.RawMessage, error) {
	f, err := fr.view()
	return bytes.Clone(f), err
}

// view is Next without the copy: the frame it returns lies in the reader's
// buffer and is valid only until the next call. A download reads every
// frame this way, so that a long stream allocates nothing per frame and
// the process's memory stays flat however busy the garbage collector is.
func (fr *FrameReader) view() ([]byte, error) {
	for {
		if i := bytes.Index(fr.buf[fr.scan:], []byte(FrameDelimiter)); i >= 0 {
			end := fr.scan + i
			frame := fr.buf[fr.start:end]
			fr.start = end + len(FrameDelimiter)
			fr.scan = fr.start
			if len(frame) > fr.max {
				return nil, fr.tooLarge()
			}
			if f := bytes.Trim(frame, jsonSpace); len(f) > 0 {
				return f, nil
			}
			continue
		}
		pending := len(fr.buf) - fr.start
		// The last len(FrameDelimiter)-1 bytes may begin a delimiter.
		if pending > fr.max+len(FrameDelimiter)-1 {
			return nil, fr.tooLarge()
		}
		fr.scan = max(fr.start, len(fr.buf)-(len(FrameDelimiter)-1))
		if fr.err != nil {
			if fr.err == io.EOF && pending > 0 {
				frame := fr.buf[fr.start:]
				fr.start, fr.scan = len(fr.buf), len(fr.buf)
				if len(frame) > fr.max {
					return nil, fr.tooLarge()
				}
				if f := bytes.Trim(frame, jsonSpace); len(f) > 0 {
					return f, nil
				}
			}
			return nil, fr.err
		}
		fr.fill()
	}
}

// tooLarge records and returns the error for an oversized frame.
func (fr *FrameReader) tooLarge() error {
	fr.err = &Error{Kind: outcome.KindTooLarge, Err: fmt.Errorf("stream frame larger than %d bytes", fr.max)}
	fr.buf, fr.start, fr.scan = nil, 0, 0
	return fr.err
}

// fill reads once more from the underlying reader, making room first.
func (fr *FrameReader) fill() {
	if fr.start > 0 {
		n := copy(fr.buf, fr.buf[fr.start:])
		fr.buf = fr.buf[:n]
		fr.scan -= fr.start
		fr.start = 0
	}
	if free := cap(fr.buf) - len(fr.buf); free == 0 || free < min(minRead, cap(fr.buf)/2) {
		// Grow geometrically from a small start, but never far beyond what
		// one frame may need.
		size := min(max(2*cap(fr.buf), initialBuffer), fr.max+len(FrameDelimiter)+minRead)
		size = max(size, len(fr.buf)+initialBuffer)
		buf := make([]byte, len(fr.buf), size)
		copy(buf, fr.buf)
		fr.buf = buf
	}
	for range 100 {
		n, err := fr.r.Read(fr.buf[len(fr.buf):cap(fr.buf)])
		fr.buf = fr.buf[:len(fr.buf)+n]
		if err != nil {
			fr.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	fr.err = io.ErrNoProgress
}

// Frame is one envelope of a stream answer.
type Frame struct {
	// Raw is the frame as received, without its delimiter and the
	// whitespace around it.
	Raw json.RawMessage
	// Status is the envelope's "status".
	Status string
	// Retcode is the envelope's "retcode" as sent.
	Retcode json.Number
	// Data is the envelope's "data" as sent; nil when absent.
	Data json.RawMessage
	// Type is data.type: "stream" for an intermediate frame, "response" for
	// the final frame of a success, "error" for a failure; empty when data
	// is not an object or has no type.
	Type string
	// Terminal reports that this is the stream's last frame: its status is
	// "failed", its type is "response" or "error", or it is the only
	// envelope of an ordinary (non-stream) answer.
	Terminal bool
}

// Stream sends req, a stream action, and calls onFrame for each frame of the
// answer until the terminal frame, which is delivered too, whether it reports
// success or failure. It never retries.
//
// Connecting and sending the request are bounded by StreamConnectTimeout;
// after that there is no overall limit, but each wait for bytes (the
// response headers, then every read of the body) must end within
// StreamIdleTimeout, and the whole body is capped at MaxStreamBytes.
// Cancelling ctx aborts the request and the body read. When SnowLuma answers
// with an ordinary JSON envelope instead of a stream (an error, typically),
// that envelope is delivered as a single terminal frame. The call holds one
// of the client's MaxStreams slots; with none free it fails at once with
// outcome.KindBusy.
//
// If onFrame returns an error, Stream stops reading and returns that error as
// it is. Other failures are *Error values.
func (c *Client) Stream(ctx context.Context, req Request, onFrame func(Frame) error) error {
	release, err := c.acquire(req.Action)
	if err != nil {
		return err
	}
	defer release()
	body, err := requestBody(req)
	if err != nil {
		return err
	}
	s, err := c.open(ctx, req, body, c.maxStream)
	if err != nil {
		return err
	}
	defer s.close()
	if !s.framed() {
		f, err := s.single()
		if err != nil {
			return err
		}
		return onFrame(f)
	}
	fr := NewFrameReader(s.body, DefaultMaxFrameBytes)
	for {
		raw, err := fr.Next()
		if err == io.EOF && ctx.Err() != nil {
			// The body can end cleanly when the call is cancelled
			// mid-stream; that is a cancellation, not a broken stream.
			return s.readFailure(ctx.Err(), "the stream was interrupted")
		}
		if err == io.EOF {
			return s.fail(outcome.KindStreamFailed, errors.New("stream ended before its final frame"))
		}
		if err != nil {
			return s.readFailure(err, "connection lost during the stream")
		}
		f, err := parseFrame(raw, "stream frame")
		if err != nil && ctx.Err() != nil {
			// A cancelled call can cut the body inside a frame: the piece
			// left is a cancellation's trace, not SnowLuma's mistake.
			return s.readFailure(ctx.Err(), "the stream was interrupted")
		}
		if err != nil {
			return s.fail(outcome.KindProtocol, err)
		}
		if err := onFrame(f); err != nil {
			return err
		}
		if f.Terminal {
			return nil
		}
	}
}

// StreamCall sends req, one call of a stream action that SnowLuma answers
// with a single frame (a hand-made upload_file_stream chunk), and returns
// that frame. It holds a stream slot and uses the stream timeouts.
func (c *Client) StreamCall(ctx context.Context, req Request) (Frame, error) {
	release, err := c.acquire(req.Action)
	if err != nil {
		return Frame{}, err
	}
	defer release()
	body, err := requestBody(req)
	if err != nil {
		return Frame{}, err
	}
	return c.callFrame(ctx, req, body)
}

// callFrame sends req, one call of a stream action that SnowLuma answers
// with a single frame (an upload chunk, a reset), and returns that frame.
// It uses the stream timeouts and the ordinary answer cap, and holds no
// slot: the caller does. When the body holds several frames the last one
// is the answer.
func (c *Client) callFrame(ctx context.Context, req Request, body []byte) (Frame, error) {
	s, err := c.open(ctx, req, body, c.maxResponse)
	if err != nil {
		return Frame{}, err
	}
	defer s.close()
	if !s.framed() {
		return s.single()
	}
	s.body.what = "answer"
	fr := NewFrameReader(s.body, DefaultMaxFrameBytes)
	var last Frame
	for n := 0; ; n++ {
		raw, err := fr.Next()
		if err == io.EOF {
			if n == 0 {
				return Frame{}, s.fail(outcome.KindStreamFailed, errors.New("the answer held no frame"))
			}
			return last, nil
		}
		if err != nil {
			return Frame{}, s.readFailure(err, "connection lost while reading the answer")
		}
		if last, err = parseFrame(raw, "stream frame"); err != nil {
			return Frame{}, s.fail(outcome.KindProtocol, err)
		}
	}
}

// An openStream is a stream call whose response headers have arrived.
type openStream struct {
	c      *Client
	op     string
	parent context.Context // the caller's context
	ctx    context.Context // the call's own, cancelled by the timeouts
	cancel context.CancelCauseFunc
	resp   *http.Response
	body   *guardedBody
}

// open sends req with body and waits for the response headers. Connecting
// and writing the request are bounded by the connect timeout; the wait for
// the headers and each later read of the body by the idle timeout. The body
// is capped at limit bytes. The caller must call close.
func (c *Client) open(ctx context.Context, req Request, body []byte, limit int64) (*openStream, error) {
	callCtx, cancel := context.WithCancelCause(ctx)
	connect := &deadline{fmt.Sprintf("could not connect to SnowLuma and send the request within %v", c.connect)}
	idle := &deadline{fmt.Sprintf("no bytes from SnowLuma for more than %v (the stream idle timeout)", c.idle)}
	connectTimer := time.AfterFunc(c.connect, func() { cancel(connect) })
	idleTimer := time.AfterFunc(c.idle, func() { cancel(idle) })
	idleTimer.Stop()

	// Once the request is written, the wait for the headers is idle time.
	// The lock keeps a late report of the write from arming the idle timer
	// after the headers have arrived.
	var mu sync.Mutex
	headers := false
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		mu.Lock()
		defer mu.Unlock()
		if !headers && connectTimer.Stop() {
			idleTimer.Reset(c.idle)
		}
	}}
	hreq, err := c.newRequest(httptrace.WithClientTrace(callCtx, trace), req, body)
	if err != nil {
		connectTimer.Stop()
		cancel(nil)
		return nil, err
	}
	resp, err := c.hc.Do(hreq)
	mu.Lock()
	headers = true
	connectTimer.Stop()
	idleTimer.Stop()
	mu.Unlock()
	if err != nil {
		e := c.failure(ctx, callCtx, req.Action, 0, "could not reach SnowLuma", err)
		cancel(nil)
		return nil, e
	}
	if e := c.checkStatus(req.Action, resp); e != nil {
		resp.Body.Close()
		cancel(nil)
		return nil, e
	}
	return &openStream{
		c: c, op: req.Action, parent: ctx, ctx: callCtx, cancel: cancel, resp: resp,
		body: &guardedBody{r: resp.Body, timer: idleTimer, idle: c.idle, what: "stream", limit: limit, remaining: limit},
	}, nil
}

// close releases the connection and stops the timers.
func (s *openStream) close() {
	s.body.timer.Stop()
	s.resp.Body.Close()
	s.cancel(nil)
}

// framed reports whether the answer is a stream of frames rather than an
// ordinary JSON envelope (which SnowLuma sends for errors).
func (s *openStream) framed() bool {
	return s.resp.StatusCode == http.StatusOK && !isJSON(s.resp.Header.Get("Content-Type"))
}

// single reads an ordinary answer, capped at the answer limit, as one
// terminal frame.
func (s *openStream) single() (Frame, error) {
	s.body.limit, s.body.remaining, s.body.what = s.c.maxResponse, s.c.maxResponse, "answer"
	raw, err := io.ReadAll(s.body)
	if err != nil {
		return Frame{}, s.readFailure(err, "connection lost while reading the answer")
	}
	f, err := parseFrame(bytes.Trim(raw, jsonSpace), "answer")
	if err != nil {
		return Frame{}, s.fail(outcome.KindProtocol, notEnvelope(s.resp, err))
	}
	f.Terminal = true
	return f, nil
}

// fail builds the call's Error of kind.
func (s *openStream) fail(kind outcome.Kind, err error) *Error {
	return s.c.fail(s.op, s.resp.StatusCode, kind, err)
}

// readFailure classifies an error from reading the body.
func (s *openStream) readFailure(err error, doing string) error {
	var e *Error
	if errors.As(err, &e) && e.Kind == outcome.KindTooLarge {
		return s.fail(e.Kind, e.Err)
	}
	return s.c.failure(s.parent, s.ctx, s.op, s.resp.StatusCode, doing, err)
}

// isJSON reports whether a Content-Type header names JSON.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// parseFrame decodes the envelope fields of one frame; what names it in
// errors.
func parseFrame(raw []byte, what string) (Frame, error) {
	env, err := parseEnvelope(raw, what)
	if err != nil {
		return Frame{}, err
	}
	f := Frame{Raw: raw, Status: env.Status, Retcode: env.Retcode, Data: env.Data}
	if d := bytes.TrimLeft(env.Data, jsonSpace); len(d) > 0 && d[0] == '{' {
		var head struct {
			Type json.RawMessage `json:"type"`
		}
		if err := json.Unmarshal(d, &head); err != nil {
			return Frame{}, fmt.Errorf("%s data is not a valid JSON object", what)
		}
		// A type that is not a string is no known type; it is left empty.
		_ = json.Unmarshal(head.Type, &f.Type)
	}
	f.Terminal = f.Status == "failed" || f.Type == "response" || f.Type == "error"
	return f, nil
}

// guardedBody enforces a stream's idle timeout and its byte cap on the reads
// of a response body.
type guardedBody struct {
	r         io.Reader
	timer     *time.Timer // cancels the request when it fires
	idle      time.Duration
	what      string // "answer" or "stream", for the error message
	limit     int64  // the cap
	remaining int64  // bytes still allowed; negative once the cap is passed
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.remaining < 0 {
		return 0, b.tooLarge()
	}
	if int64(len(p)) > b.remaining+1 {
		p = p[:b.remaining+1] // one byte more than allowed reveals overflow
	}
	b.timer.Reset(b.idle)
	n, err := b.r.Read(p)
	b.timer.Stop()
	b.remaining -= int64(n)
	if b.remaining < 0 {
		return n + int(b.remaining), b.tooLarge()
	}
	return n, err
}

func (b *guardedBody) tooLarge() error {
	return &Error{Kind: outcome.KindTooLarge, Err: fmt.Errorf("%s larger than %d bytes", b.what, b.limit)}
}
