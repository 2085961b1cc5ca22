package mcpseam

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Handoff carries pre-encoded answers past the SDK's encoder to a
// transport. The SDK encodes every result itself: encoding/json calls the
// result's MarshalJSON and then checks and compacts what it returned, byte
// by byte. For a large answer the server has already encoded (the catalog
// resource, about 340 KB) that pass is most of the cost of the call. Pass
// lets such a result hand its bytes over instead: its MarshalJSON returns
// a stand-in of a few bytes, the SDK checks that, and the transport's
// Write puts the held bytes where the stand-in is (Take).
//
// A stand-in is a JSON string, which no MCP result is (every result is an
// object), so Take cannot mistake a real result for one.
//
// It relies on the SDK (v1.8.0) putting the bytes a result's MarshalJSON
// returns, compacted, into the jsonrpc.Response it hands to the
// connection's Write, and on nothing between the two looking into them
// (TestSeamSDKHandsMarshalJSONBytesToTransport).
//
// A Handoff also lends the buffers passed results are encoded into
// (Buffer), and takes them back once they are written (Recycle): a search
// answer's 23 KB buffer, and the catalog resource's 340 KB, were a new
// allocation for every call, a fifth of a search's garbage.
//
// The zero value is ready to use.
type Handoff struct {
	mu     sync.Mutex
	next   uint64
	held   map[uint64][]byte
	closed bool // Close ran: nothing is held any more

	spare sync.Pool // *[]byte: written results' buffers, to lend again
}

// A Passer hands encoded results past the SDK's encoder: a Handoff, or the
// transport that holds one.
type Passer interface {
	// Buffer returns an empty buffer for a result of about size bytes, to
	// be passed (see Handoff.Buffer).
	Buffer(size int) []byte
	// Pass returns the stand-in for result (see Handoff.Pass).
	Pass(result []byte) []byte
}

// Buffer returns an empty buffer for a result of about size bytes, to be
// encoded into and passed. It begins with FrameRoom spaces, which JSON
// ignores and Framed fills with the line's head, and has room after size
// for the closing brace and the newline. It is a buffer Recycle was given
// when one large enough is spare.
func (h *Handoff) Buffer(size int) []byte {
	need := FrameRoom + size + 2
	var b []byte
	if p, ok := h.spare.Get().(*[]byte); ok {
		if cap(*p) >= need {
			b = (*p)[:FrameRoom]
		} else {
			h.spare.Put(p) // for a smaller result
		}
	}
	if b == nil {
		b = make([]byte, FrameRoom, need)
	}
	for i := range b {
		b[i] = ' '
	}
	return b
}

// Recycle takes back a buffer Buffer lent, once the result passed in it
// has been written and nothing refers to it any more. A buffer over
// maxSpare bytes is left to the garbage collector, so that one large answer
// does not stay in memory.
func (h *Handoff) Recycle(held []byte) {
	if cap(held) < FrameRoom || cap(held) > maxSpare {
		return
	}
	held = held[:0]
	h.spare.Put(&held)
}

// maxSpare is the largest buffer Recycle keeps: room for the catalog
// resource's answer (about 340 KB), not for a query's answer of megabytes.
const maxSpare = 512 << 10

// passPrefix begins every stand-in; the rest is its number and a quote.
const passPrefix = `"snowluma-mcp/stdio/pass#`

// Pass returns a stand-in for result, for a MarshalJSON method to return
// in place of result. result must be one complete JSON object this process
// encoded: valid and without HTML escaping, as the SDK would encode it,
// into a buffer from Buffer or, with the same room in front, one of its
// own. The transport owns result from then on: it writes it and lends its
// buffer again (Recycle), so the caller must not touch it.
// The stand-in is only meaningful to the transport that Takes from h, so a
// server may pass results only while its one session runs on it.
//
// A result whose stand-in is never written, because its session ended
// first (the SDK encodes a response before it finds the connection
// closing, and then never writes it), is released by Close; after Close,
// Pass holds nothing.
func (h *Handoff) Pass(result []byte) []byte {
	h.mu.Lock()
	h.next++
	n := h.next
	if !h.closed {
		if h.held == nil {
			h.held = map[uint64][]byte{}
		}
		h.held[n] = result
	}
	h.mu.Unlock()
	b := make([]byte, 0, len(passPrefix)+21)
	b = append(b, passPrefix...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// Take returns the result a stand-in stands for and forgets it. isStandIn
// is false when raw is not a stand-in; held is nil when it is one h does
// not hold (it was taken already, or passed to another Handoff).
func (h *Handoff) Take(raw json.RawMessage) (held []byte, isStandIn bool) {
	if !bytes.HasPrefix(raw, []byte(passPrefix)) || raw[len(raw)-1] != '"' {
		return nil, false
	}
	n, err := strconv.ParseUint(string(raw[len(passPrefix):len(raw)-1]), 10, 64)
	if err != nil {
		return nil, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	held = h.held[n]
	delete(h.held, n)
	return held, true
}

// Close releases every passed result still held and holds none passed
// later: the transport calls it when its session ends, after which no
// stand-in of h is written. A stand-in taken after Close holds nothing
// (Take returns nil), as one that was never passed.
func (h *Handoff) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held, h.closed = nil, true
}

// Holding reports how many passed results wait to be taken.
func (h *Handoff) Holding() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.held)
}

// Frame encodes msg as one line without its newline, in two parts: the
// line is head, then result and a closing brace when result is not nil.
// The result of a successful response is JSON the SDK has just encoded,
// compact and checked (or that the server encoded and passed), so it is
// written after the id rather than checked and compacted a second time by
// jsonrpc.EncodeMessage: for a large tool result that pass was a fifth of
// the server's CPU time per call. Anything else goes through
// EncodeMessage; the bytes are the same either way.
//
// It relies on jsonrpc.EncodeMessage (v1.8.0) writing a response as
// {"jsonrpc":"2.0","id":…,"result":…} with the id unescaped and a compact
// result as it is (TestSeamSDKEncodeMessageWritesResultAfterID).
//
// copyLimit is the largest result Frame copies into head, with room for
// the closing brace and a newline; a larger one is returned apart, for the
// caller to write where it is.
func Frame(msg jsonrpc.Message, copyLimit int) (head, result []byte, err error) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || !resp.ID.IsValid() || len(resp.Result) == 0 || bytes.IndexByte(resp.Result, '\n') >= 0 {
		line, err := jsonrpc.EncodeMessage(msg)
		return line, nil, err
	}
	var idJSON bytes.Buffer
	enc := json.NewEncoder(&idJSON)
	enc.SetEscapeHTML(false) // as EncodeMessage writes it
	if err := enc.Encode(resp.ID.Raw()); err != nil {
		line, err := jsonrpc.EncodeMessage(msg)
		return line, nil, err
	}
	id := bytes.TrimSuffix(idJSON.Bytes(), []byte("\n"))
	const start, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	size := len(start) + len(id) + len(mid)
	if len(resp.Result) <= copyLimit {
		size += len(resp.Result) + 2 // room for the result, the brace and the newline
	}
	head = make([]byte, 0, size)
	return append(append(append(head, start...), id...), mid...), resp.Result, nil
}

// FrameRoom is how many spaces a result this package passes keeps in front
// of itself (Handoff.Buffer): room for the head of its line,
// {"jsonrpc":"2.0","id":…,"result":, with an id of up to 32 bytes. Framed
// writes the head there, so the transport writes a 23 KB search answer
// where it was encoded instead of copying it after the head.
const FrameRoom = 64

// Unroomed returns the result held carries, without the room (FrameRoom
// spaces, or none) in front of it.
func Unroomed(held []byte) json.RawMessage { return bytes.TrimLeft(held, " ") }

// Framed returns msg's line without its newline, written in place: held is
// the passed result msg carries, as Pass was given it, and msg's result is
// held without its leading spaces. The head goes into those spaces, and
// the closing brace after the result. ok is false, and held untouched,
// when msg is not a response Frame writes in two parts or its head does not
// fit.
func Framed(msg jsonrpc.Message, held []byte) (line []byte, ok bool) {
	head, result, err := Frame(msg, 0)
	room := len(held) - len(result)
	if err != nil || len(result) == 0 || len(head) > room || &held[room] != &result[0] {
		return nil, false
	}
	line = held[room-len(head):]
	copy(line, head)
	return append(line, '}'), true
}
