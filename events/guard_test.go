package events

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// frameHeader is an unmasked server frame header announcing length bytes.
func frameHeader(fin bool, opcode byte, length uint64) []byte {
	b0 := opcode
	if fin {
		b0 |= 0x80
	}
	switch {
	case length < 126:
		return []byte{b0, byte(length)}
	case length <= 0xffff:
		return binary.BigEndian.AppendUint16([]byte{b0, 126}, uint16(length))
	}
	return binary.BigEndian.AppendUint64([]byte{b0, 127}, length)
}

// TestFrameGuardScan feeds byte streams one byte at a time, so that every
// header is split across reads.
func TestFrameGuardScan(t *testing.T) {
	frame := func(fin bool, op byte, payload int) []byte {
		return append(frameHeader(fin, op, uint64(payload)), bytes.Repeat([]byte("x"), payload)...)
	}
	for _, tc := range []struct {
		name   string
		stream []byte
		trip   bool
	}{
		{"small frames", bytes.Join([][]byte{frame(true, 1, 10), frame(true, 1, 300), frame(true, 1, 700)}, nil), false},
		{"at the limit", frame(true, 1, 1000), false},
		{"one over", frameHeader(true, 1, 1001), true},
		{"2^62", frameHeader(true, 1, 1<<62), true},
		{"2^64-1", frameHeader(true, 2, ^uint64(0)), true},
		{"fragments adding up", bytes.Join([][]byte{frame(false, 1, 600), frame(true, 0, 500)}, nil), true},
		{"fragments within", bytes.Join([][]byte{frame(false, 1, 600), frame(false, 0, 100), frame(true, 0, 300), frame(true, 1, 900)}, nil), false},
		{"ping between fragments", bytes.Join([][]byte{frame(false, 1, 600), frame(true, 9, 4), frame(true, 0, 400)}, nil), false},
	} {
		g := &frameGuard{limit: 1000}
		var err error
		for i := 0; i < len(tc.stream) && err == nil; i++ {
			err = g.scan(tc.stream[i : i+1])
		}
		if tripped := errors.Is(err, errAnnouncedTooBig); tripped != tc.trip {
			t.Errorf("%s: err %v, want trip %v", tc.name, err, tc.trip)
		}
	}
}

// TestHugeFrameHeader: a server that greets, then sends a header announcing
// 2^62 bytes and nothing more, is stopped when the header arrives, long
// before the stall watchdog (StallHeartbeats × 30 s) would drop it.
func TestHugeFrameHeader(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		greeting := simulator.PrivateMessage(7, "hello")
		var out bytes.Buffer
		out.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
			base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n")
		out.Write(frameHeader(true, 1, uint64(len(greeting))))
		out.WriteString(greeting)
		out.Write(frameHeader(true, 1, 1<<62))
		out.WriteString(`{"post_type":`)
		c.Write(out.Bytes())
		<-hold
	}()
	h := New(Options{URL: "ws://" + ln.Addr().String() + "/"})
	t.Cleanup(h.Close)
	id := subscribe(t, h, Filter{SelfID: simulator.SelfID})
	eventually(t, "the connection stopped", func() bool { return read(t, h, id, "").Status == StatusStopped })
	s := read(t, h, id, "")
	if !strings.Contains(s.StatusReason, "announced a frame over the 256 KiB limit") {
		t.Errorf("status_reason %q", s.StatusReason)
	}
}
