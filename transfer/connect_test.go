//go:build linux

package transfer

import (
	"context"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// stalledListener returns the address of a loopback socket that listens
// but never accepts, with its queue filled, so that new connections hang
// in the handshake.
func stalledListener(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	// Fill the queue until a connection attempt hangs.
	for range 16 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return addr
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Fatal("the listener's queue never filled; connect stalls cannot be provoked here")
	return ""
}

func TestStreamConnectTimeout(t *testing.T) {
	addr := stalledListener(t)
	c, err := New(Options{Endpoint: "http://" + addr + "/", StreamConnectTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Stream(context.Background(), Request{Action: "test_download_stream"}, func(Frame) error { return nil })
	e := checkError(t, err, "test_download_stream", outcome.KindTimeout)
	if !strings.Contains(e.Error(), "could not connect") {
		t.Errorf("the message does not name the connect timeout: %v", e)
	}
	st := newStore(t, 0, 0)
	_, err = c.Download(context.Background(), Request{Action: "download_file_stream"}, st, nil)
	checkError(t, err, "download_file_stream", outcome.KindTimeout)
	checkNothingLeft(t, st.Dir())
}
