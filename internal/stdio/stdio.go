// Package stdio is the server's end of the stdio channel: newline-delimited
// JSON-RPC 2.0 on stdin and stdout, built so that no input ends the process.
//
// Transport implements the go-sdk's mcp.Transport with the SDK's public
// jsonrpc package, in place of mcp.StdioTransport, and adds what that
// transport lacks (each of which used to end the process or go unanswered):
//
//   - Lines are read with a bounded buffer. A line longer than the limit is
//     discarded up to its newline without being held in memory and answered
//     with an error that names the limit.
//   - A line that is not JSON is answered with -32700. A line that is JSON
//     but not a JSON-RPC 2.0 message object, a batch, or nesting arrays and
//     objects deeper than MaxDepth is answered with -32600. A request whose
//     params is neither an object nor null is answered with -32602. Each of
//     these writes one stderr line naming the problem, never the input, and
//     the next line is read as usual. A reply whose request id cannot be
//     read carries no id (MCP's schema has no null id).
//   - A request reusing the id of a request still in flight is answered
//     with -32600 instead of being dropped.
//   - The response to a request the client cancelled with
//     notifications/cancelled is not written, as MCP asks.
//   - An error the SDK answers with code 0 (a request before initialize, a
//     params object it cannot decode) gets a standard JSON-RPC code, and the
//     request-before-initialize error says what to send.
//   - A refusal of the client's protocol revision (-32022) also writes a
//     stderr line naming the revision asked for and those served, which a
//     host otherwise shows only as "disconnected".
//   - Shutdown stops all output after the last complete message and ends
//     the input, which makes the SDK cancel every request in flight.
//   - The end of stdin is not passed on at once: the requests already read
//     get EndGrace to be answered (the SDK would cancel them and drop their
//     answers), and only then does the input end. Requests still unanswered
//     by then make Ending fire, for the caller to stop as on a signal.
//   - A failed write to stdout (the client closed it) stops all output and
//     makes Ending fire: the client is gone.
package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// DefaultMaxLineBytes is the longest input line accepted by default: 4 MiB,
// newline excluded.
const DefaultMaxLineBytes = 4 << 20

// MaxDepth is how deeply arrays and objects may nest in one message, the
// message's own object counting as the first level. Deeper input is refused
// before any decoder recurses into it.
const MaxDepth = 64

// readBufferBytes is the read buffer; lines longer than it are assembled
// from several reads, and discarded ones never take more than it.
const readBufferBytes = 64 << 10

// DefaultEndGrace is how long the requests already read may take to be
// answered once stdin has ended, by default.
const DefaultEndGrace = time.Second

// ErrStopped is returned by writes after Shutdown or Close.
var ErrStopped = errors.New("stdio: output stopped")

// Options configures a Transport.
type Options struct {
	// MaxLineBytes is the longest input line accepted, newline excluded;
	// 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// Log receives one line per refused input; nil discards.
	Log io.Writer
	// Name prefixes log lines, e.g. "snowluma-mcp".
	Name string
	// EndGrace is how long the requests already read may take to be
	// answered once stdin has ended; 0 means DefaultEndGrace.
	EndGrace time.Duration
}

// Transport is the server side of a stdio channel. Connect it once (the
// SDK's Server.Run does), and call Shutdown to stop.
type Transport struct {
	c         *conn
	connected atomic.Bool
}

// New returns a transport that reads in and writes out.
func New(in io.Reader, out io.Writer, opts Options) *Transport {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.EndGrace <= 0 {
		opts.EndGrace = DefaultEndGrace
	}
	return &Transport{c: &conn{
		lines:    &lineReader{r: bufio.NewReaderSize(in, readBufferBytes), max: opts.MaxLineBytes},
		out:      out,
		log:      opts.Log,
		name:     opts.Name,
		incoming: make(chan jsonrpc.Message),
		readDone: make(chan struct{}),
		stop:     make(chan struct{}),
		ending:   make(chan struct{}),
		grace:    opts.EndGrace,
		answers:  make(chan struct{}, 1),
		inflight: map[jsonrpc.ID]*request{},
	}}
}

// Connect implements mcp.Transport. It starts reading the input.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	if !t.connected.CompareAndSwap(false, true) {
		return nil, errors.New("stdio: transport connected twice")
	}
	go t.c.readLoop()
	return t.c, nil
}

// Shutdown ends the channel at once: nothing more is written after the
// message being written now, if any, and reading reports end of input, so
// the SDK cancels every request in flight and the session ends when their
// handlers return. It returns how many requests were in flight. It may be
// called more than once.
func (t *Transport) Shutdown() int {
	t.c.halt()
	t.c.stateMu.Lock()
	defer t.c.stateMu.Unlock()
	return len(t.c.inflight)
}

// Ending returns a channel closed when the client is gone while requests
// may still be running: a write to stdout failed (output has stopped), or
// stdin ended and requests were still unanswered after the grace. The
// caller should then stop as on SIGTERM: Shutdown, and give the cancelled
// calls a moment to clean up. When stdin ends and every request is
// answered within the grace, Ending stays open and the session simply
// ends.
func (t *Transport) Ending() <-chan struct{} { return t.c.ending }

// EndCause says why Ending fired; it is nil until then.
func (t *Transport) EndCause() error {
	select {
	case <-t.c.ending:
		return t.c.endErr
	default:
		return nil
	}
}

// Quiet returns a channel closed once no message is being written; after
// Shutdown, stdout then ends on a complete message for good.
func (t *Transport) Quiet() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		t.c.writeMu.Lock()
		t.c.writeMu.Unlock()
		close(ch)
	}()
	return ch
}

// A request is a request read and not yet answered.
type request struct {
	cancelled bool // the client sent notifications/cancelled for it
}

// conn is the mcp.Connection of a Transport.
type conn struct {
	lines *lineReader
	log   io.Writer
	name  string

	incoming chan jsonrpc.Message // from readLoop to Read
	readDone chan struct{}        // closed when readLoop returns
	readErr  error                // why readLoop returned; set before readDone closes

	stop     chan struct{} // closed by halt: Read reports end of input
	stopOnce sync.Once

	writeMu sync.Mutex // held while a message is written
	out     io.Writer
	stopped atomic.Bool // set by halt: nothing more is written

	ending  chan struct{} // closed by end: the client is gone
	endOnce sync.Once
	endErr  error // why; set before ending closes

	grace   time.Duration // for the answers once stdin has ended
	answers chan struct{} // signalled as requests are answered

	stateMu  sync.Mutex
	inflight map[jsonrpc.ID]*request

	passed mcpseam.Handoff // results handed over with Transport.Pass
}

func (c *conn) SessionID() string { return "" }

// Read implements mcp.Connection.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.stop:
		return nil, io.EOF
	default:
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.stop:
		return nil, io.EOF
	case m := <-c.incoming:
		return m, nil
	case <-c.readDone:
		return nil, c.readErr
	}
}

// Write implements mcp.Connection. A result passed with Transport.Pass is
// written in place of its stand-in. The response to a cancelled request is
// dropped; an error response without a standard code gets one.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	var held []byte // a passed result, with room in front for its head
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
		// Taken first, so that a response dropped below holds nothing.
		var isStandIn bool
		if held, isStandIn = c.passed.Take(resp.Result); isStandIn {
			whole := *resp
			if whole.Result = mcpseam.Unroomed(held); held == nil {
				whole.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
					Message: "Internal error: the server lost the answer it had prepared; send the request again"}
			}
			msg = &whole
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if c.answered(resp.ID) {
			return nil
		}
		if resp.Error != nil {
			coded := *resp
			coded.Error = standardCode(resp.Error)
			msg = &coded
			c.noteRevision(coded.Error)
		}
	}
	if held != nil {
		// Once written, nothing refers to the passed result's buffer.
		defer c.passed.Recycle(held)
		if line, ok := mcpseam.Framed(msg, held); ok {
			return c.writeLine(line)
		}
	}
	head, result, err := mcpseam.Frame(msg, copyLimit)
	if err != nil {
		return fmt.Errorf("stdio: encoding a message: %w", err)
	}
	switch {
	case result == nil:
		return c.writeLine(head)
	case len(result) <= copyLimit:
		return c.writeLine(append(append(head, result...), '}'))
	default:
		return c.writeLine(head, result, []byte("}"))
	}
}

// copyLimit is the largest result copied after its id into one write; a
// larger one is written where it is, in a write of its own. A message in
// one write wakes the client once: copying a 23 KB search answer costs
// less than the two wake-ups more, which took a tenth of its latency. Only
// the catalog resource (340 KB) is larger, and is written in place.
const copyLimit = 64 << 10

// answered forgets a request as it is answered and reports whether the
// client cancelled it, in which case the response must not be written.
// Forgetting it before the response is written lets the client reuse the
// id as soon as it reads the response.
func (c *conn) answered(id jsonrpc.ID) (cancelled bool) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	r := c.inflight[id]
	delete(c.inflight, id)
	select {
	case c.answers <- struct{}{}:
	default:
	}
	return r != nil && r.cancelled
}

// unanswered is how many requests read are not answered yet.
func (c *conn) unanswered() int {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	return len(c.inflight)
}

// writeLine writes parts and a newline as one message, unless output has
// stopped. When the last part, which must be the caller's own, has room
// after it, it takes the newline, so that a small message is one write.
func (c *conn) writeLine(parts ...[]byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.stopped.Load() {
		return ErrStopped
	}
	last := len(parts) - 1
	if p := parts[last]; len(p) < cap(p) {
		parts[last] = append(p, '\n')
	} else {
		parts = append(parts, []byte{'\n'})
	}
	for _, p := range parts {
		if _, err := c.out.Write(p); err != nil {
			// The line is broken and nobody reads the rest: the client
			// is gone (with SIGPIPE handled, a closed pipe is EPIPE).
			c.stopped.Store(true)
			c.end(fmt.Errorf("writing stdout: %w", err))
			return err
		}
	}
	return nil
}

// end records that the client is gone and why; the first cause is kept.
func (c *conn) end(cause error) {
	c.endOnce.Do(func() {
		c.endErr = cause
		close(c.ending)
	})
}

// Close implements mcp.Connection: the SDK calls it when the session ends.
// The results passed for answers the SDK will no longer write (it encodes
// a response before it finds the connection closing) are released.
func (c *conn) Close() error {
	c.halt()
	c.passed.Close()
	return nil
}

func (c *conn) halt() {
	c.stopped.Store(true)
	c.stopOnce.Do(func() { close(c.stop) })
}

// readLoop reads lines until the input ends, delivering messages to Read
// and answering the lines that are refused.
func (c *conn) readLoop() {
	defer close(c.readDone)
	for n := 1; ; n++ {
		line, size, err := c.lines.next()
		var msg jsonrpc.Message
		var r *refusal
		switch {
		case size > c.lines.max:
			r = &refusal{code: jsonrpc.CodeInvalidRequest,
				message: fmt.Sprintf("Invalid request: the line is longer than the limit of %d bytes and was discarded; send smaller messages (the server's limit is set by SNOWLUMA_MCP_MAX_REQUEST_BYTES)", c.lines.max),
				problem: fmt.Sprintf("longer than the limit of %d bytes (discarded unread)", c.lines.max)}
		case line != nil:
			msg, r = check(line)
		}
		if r != nil {
			c.refuse(n, size, r)
		}
		if msg != nil {
			msg, r = c.track(msg)
			if r != nil {
				c.refuse(n, size, r)
			}
		}
		if msg != nil {
			select {
			case c.incoming <- msg:
			case <-c.stop:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				err = fmt.Errorf("stdio: reading stdin: %w", err)
			}
			c.drain()
			c.readErr = err
			return
		}
	}
}

// drain waits, once stdin has ended, until every request read is answered,
// or the grace is over, or the channel is shut down. Until it returns Read
// does not report the end of the input, on which the SDK would cancel the
// requests and drop their answers. Requests unanswered after the grace end
// the channel as a gone client does (see Ending).
func (c *conn) drain() {
	grace := time.NewTimer(c.grace)
	defer grace.Stop()
	for {
		n := c.unanswered()
		if n == 0 {
			return
		}
		select {
		case <-c.answers:
		case <-c.stop:
			return
		case <-grace.C:
			c.end(fmt.Errorf("stdin ended with %d request(s) unanswered after %v", c.unanswered(), c.grace))
			return
		}
	}
}

// track records a request as in flight and the cancellation of one,
// refusing a request whose id is already in flight.
func (c *conn) track(msg jsonrpc.Message) (jsonrpc.Message, *refusal) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return msg, nil
	}
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	if req.IsCall() {
		if _, dup := c.inflight[req.ID]; dup {
			return nil, &refusal{code: jsonrpc.CodeInvalidRequest, id: req.ID,
				message: fmt.Sprintf("Invalid request: id %v is already used by a request in flight; give every request a new id", idText(req.ID)),
				problem: "reuses the id of a request in flight"}
		}
		c.inflight[req.ID] = &request{}
		return msg, nil
	}
	if req.Method == "notifications/cancelled" {
		if id, ok := cancelledID(req.Params); ok {
			if r := c.inflight[id]; r != nil {
				r.cancelled = true
			}
		}
	}
	return msg, nil
}

// refuse answers a refused line (requests and undecidable lines; never a
// well-formed notification) and logs it.
func (c *conn) refuse(n, size int, r *refusal) {
	fmt.Fprintf(c.log, "%s: stdin line %d (%d bytes) refused with %d: %s\n", c.name, n, size, r.code, r.problem)
	if r.silent {
		return
	}
	resp := &jsonrpc.Response{ID: r.id, Error: &jsonrpc.Error{Code: r.code, Message: r.message}}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		fmt.Fprintf(c.log, "%s: could not encode the refusal: %v\n", c.name, err)
		return
	}
	// After Shutdown the refusal is not written, like every message.
	_ = c.writeLine(data)
}

// noteRevision writes the stderr line of a -32022 refusal, which is the
// SDK's (a 2026-07-28-style request) or the server's (a legacy
// initialize): the revision the client asked for, quoted and cut short
// since the client chose it, and the revisions served.
func (c *conn) noteRevision(err error) {
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != mcp.CodeUnsupportedProtocolVersion {
		return
	}
	var data mcp.UnsupportedProtocolVersionData
	_ = json.Unmarshal(we.Data, &data)
	requested := quote.Clip(data.Requested, 40)
	served := "(not given)"
	if len(data.Supported) > 0 {
		served = strings.Join(data.Supported, ", ")
	}
	fmt.Fprintf(c.log, "%s: the client asked for MCP revision %q, which this server does not serve (it serves %s); refused with -32022: update the client, or configure it for one of these revisions\n", c.name, requested, served)
}

// initHint says what a legacy request sent before initialize should have
// been preceded by, or carried.
const initHint = `send "initialize" first (protocol 2025-11-25 and earlier), or put the 2026-07-28 fields io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities and io.modelcontextprotocol/clientInfo in params._meta`

// standardCode gives an error the SDK would send with code 0 a standard
// JSON-RPC code; an error that has one is kept.
func standardCode(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "invalid during session initialization"):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg + ": " + initHint}
	case strings.Contains(msg, "unmarshaling") || strings.Contains(msg, `missing required "params"`):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	default:
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
}

func idText(id jsonrpc.ID) string {
	if s, ok := id.Raw().(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(id.Raw())
}
