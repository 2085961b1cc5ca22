package stdio

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// The SDK encodes every result itself: encoding/json calls the result's
// MarshalJSON and then checks and compacts what it returned, byte by byte.
// For a large answer the server has already encoded (the catalog
// resource, about 340 KB) that pass is most of the cost of the call. Pass
// (the server's Speed.PassEncoded) lets such a result hand its bytes to the
// transport instead: its MarshalJSON returns a stand-in of a few bytes, the SDK
// checks that, and Write puts the held bytes where the stand-in is.
//
// A stand-in is a JSON string, which no MCP result is (every result is an
// object), so Write cannot mistake a real result for one.

// passPrefix begins every stand-in; the rest is its number and a quote.
const passPrefix = `"snowluma-mcp/stdio/pass#`

// passed holds the results handed over with Pass until Write takes them.
type passed struct {
	mu   sync.Mutex
	next uint64
	held map[uint64][]byte
}

// Pass returns a stand-in for result, for a MarshalJSON method to return
// in place of result. result must be one complete JSON object this process
// encoded: valid and without HTML escaping, as the SDK would encode it.
// The stand-in is only meaningful to this transport's Write, so a server
// may pass results only while its one session runs on this transport.
//
// A result whose stand-in is never written (its session ended first) is
// held until the transport is dropped.
func (t *Transport) Pass(result []byte) []byte {
	p := &t.c.passed
	p.mu.Lock()
	p.next++
	n := p.next
	if p.held == nil {
		p.held = map[uint64][]byte{}
	}
	p.held[n] = result
	p.mu.Unlock()
	b := make([]byte, 0, len(passPrefix)+21)
	b = append(b, passPrefix...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// take returns the result a stand-in stands for and forgets it. ok is
// false when raw is not a stand-in; held is nil when it is one this
// transport does not hold.
func (p *passed) take(raw json.RawMessage) (held []byte, ok bool) {
	if !bytes.HasPrefix(raw, []byte(passPrefix)) || raw[len(raw)-1] != '"' {
		return nil, false
	}
	n, err := strconv.ParseUint(string(raw[len(passPrefix):len(raw)-1]), 10, 64)
	if err != nil {
		return nil, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	held = p.held[n]
	delete(p.held, n)
	return held, true
}

// holding reports how many passed results wait to be written.
func (p *passed) holding() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}
