package mcpseam

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Tap carries methods the SDK has no API for over a session's
// connection: it sees each message from the client before the SDK does
// and may keep it from the SDK, sees each message the SDK writes and may
// replace it, and writes messages of its own to the connection.
// internal/listen (task notifications on 2026-07-28 listen streams) and
// internal/claudechannel (Claude Code's channel) are taps.
//
// It relies on the SDK (v1.8.0) running a server on any mcp.Transport,
// reading and writing jsonrpc messages through its Connection, and on what
// each tap says of the methods it carries: the SDK cannot receive a custom
// notification (TestSeamSDKCannotReceiveCustomNotifications), ends a
// listen stream that asks only for notifications it does not know
// (TestSeamSDKEndsListenOfUnknownNotifications), and acknowledges a listen
// stream with notifications/subscriptions/acknowledged carrying the
// subscription id (TestSeamSDKAcknowledgesListenWithSubscriptionID).
type Tap interface {
	// Connected receives the transport's own connection before any
	// message is read, for the tap to write to. Its writes reach the
	// client as they are; other taps do not see them.
	Connected(c mcp.Connection)
	// Read sees a request or notification from the client; consumed
	// keeps it from the SDK and from the taps after this one.
	Read(ctx context.Context, req *jsonrpc.Request) (consumed bool)
	// Write sees a message the SDK writes and returns the message to
	// write in its place (msg itself to leave it).
	Write(msg jsonrpc.Message) jsonrpc.Message
}

// Wrap returns t with taps on its connection, in order: a message from
// the client meets them first to last, a message of the SDK last to first.
// With no taps it returns t.
func Wrap(t mcp.Transport, taps ...Tap) mcp.Transport {
	if len(taps) == 0 {
		return t
	}
	return &tapped{inner: t, taps: taps}
}

type tapped struct {
	inner mcp.Transport
	taps  []Tap
}

func (t *tapped) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	for _, tap := range t.taps {
		tap.Connected(c)
	}
	return &tappedConn{Connection: c, taps: t.taps}, nil
}

type tappedConn struct {
	mcp.Connection
	taps []Tap
}

func (c *tappedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		if c.consumed(ctx, msg) {
			continue
		}
		return msg, nil
	}
}

func (c *tappedConn) consumed(ctx context.Context, msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	for _, tap := range c.taps {
		if tap.Read(ctx, req) {
			return true
		}
	}
	return false
}

func (c *tappedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	for i := len(c.taps) - 1; i >= 0; i-- {
		msg = c.taps[i].Write(msg)
	}
	return c.Connection.Write(ctx, msg)
}
