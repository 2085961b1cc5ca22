package events

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// errAnnouncedTooBig is why a connection whose peer announced an oversized
// frame ends: the header said more bytes than MaxFrame.
var errAnnouncedTooBig = errors.New("a frame header announced more bytes than the frame limit")

// guardTransport hands the WebSocket library an upgraded connection whose
// incoming frame headers are checked as they arrive. The library enforces
// its read limit only while the payload streams in, so a header announcing
// 2^62 bytes followed by silence would leave the connection "connected"
// until the stall watchdog fires; the guard refuses it at the header.
type guardTransport struct {
	base  http.RoundTripper
	limit int64
}

func (g guardTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		return resp, err
	}
	if rwc, ok := resp.Body.(io.ReadWriteCloser); ok {
		resp.Body = &frameGuard{ReadWriteCloser: rwc, limit: g.limit}
	}
	return resp, err
}

// frameGuard follows the frames of a server-to-client WebSocket byte stream
// (RFC 6455 §5.2) and fails the read that brings a data frame header whose
// announced length, alone or added to the message's earlier fragments,
// exceeds limit. Writes pass through untouched.
type frameGuard struct {
	io.ReadWriteCloser
	limit int64

	hdr     [14]byte // the header being read
	have    int      // bytes of hdr read so far
	skip    uint64   // payload bytes still to pass
	message uint64   // bytes announced by the current message's fragments
	err     error    // sticky once tripped
}

func (f *frameGuard) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.ReadWriteCloser.Read(p)
	if scanErr := f.scan(p[:n]); scanErr != nil {
		f.err = scanErr
		return n, scanErr
	}
	return n, err
}

// scan advances the frame state over b.
func (f *frameGuard) scan(b []byte) error {
	for len(b) > 0 {
		if f.skip > 0 {
			k := uint64(len(b))
			if k > f.skip {
				k = f.skip
			}
			f.skip -= k
			b = b[k:]
			continue
		}
		f.hdr[f.have] = b[0]
		f.have++
		b = b[1:]
		need := 2
		if f.have >= 2 {
			switch f.hdr[1] & 0x7f {
			case 126:
				need += 2
			case 127:
				need += 8
			}
			if f.hdr[1]&0x80 != 0 {
				need += 4
			}
		}
		if f.have < need {
			continue
		}
		length := uint64(f.hdr[1] & 0x7f)
		switch length {
		case 126:
			length = uint64(binary.BigEndian.Uint16(f.hdr[2:4]))
		case 127:
			length = binary.BigEndian.Uint64(f.hdr[2:10])
		}
		fin, opcode := f.hdr[0]&0x80 != 0, f.hdr[0]&0x0f
		f.have = 0
		f.skip = length
		if opcode >= 8 { // control frames are the library's to judge
			continue
		}
		if opcode != 0 { // a new message starts
			f.message = 0
		}
		if length > uint64(f.limit) || f.message+length > uint64(f.limit) {
			return fmt.Errorf("%w: %d bytes announced, %d allowed", errAnnouncedTooBig, f.message+length, f.limit)
		}
		f.message += length
		if fin {
			f.message = 0
		}
	}
	return nil
}
