// Package claudechannel carries Claude Code's channel methods, which the
// go-sdk has no API for: it wraps the server's transport, takes the
// client's notifications/claude/channel/permission_request off the wire
// before the SDK sees it (the SDK knows no such notification), and writes
// notifications/claude/channel and notifications/claude/channel/permission
// to the client.
//
// A legacy session (the initialize handshake) receives them once the
// client has sent notifications/initialized. A 2026-07-28 client, which
// must not be sent a notification it did not ask for, receives them on
// the subscriptions/listen streams that asked for "claude/channel": true
// (internal/listen acknowledges that key and writes to those streams).
package claudechannel

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/listen"
)

// The channel contract of Claude Code (its channels reference).
const (
	// CapabilityChannel, under the server's experimental capabilities,
	// makes Claude Code listen for channel notifications.
	CapabilityChannel = "claude/channel"
	// CapabilityPermission asks Claude Code to relay its tool-approval
	// prompts to the channel.
	CapabilityPermission = "claude/channel/permission"

	MethodChannel           = "notifications/claude/channel"
	MethodPermissionRequest = "notifications/claude/channel/permission_request"
	MethodPermission        = "notifications/claude/channel/permission"

	// ListenFlag is the key a 2026-07-28 subscriptions/listen request sets
	// to true to receive the channel's notifications.
	ListenFlag = "claude/channel"
)

// A PermissionRequest is Claude Code asking the channel to relay a
// tool-approval prompt.
type PermissionRequest struct {
	RequestID    string `json:"request_id"`
	ToolName     string `json:"tool_name"`
	Description  string `json:"description"`
	InputPreview string `json:"input_preview"`
}

// ErrNotReady is returned by a push before any client can receive it: a
// legacy session before notifications/initialized, or a 2026-07-28 client
// with no stream that asked for the channel.
var ErrNotReady = errors.New("claudechannel: no client is listening to the channel yet")

// Wire is the channel's side of one stdio session. The zero value is not
// usable; use New.
type Wire struct {
	streams *listen.Streams

	mu           sync.Mutex
	conn         mcp.Connection // the inner connection, once connected
	legacy       bool           // the client sent notifications/initialized
	onPermission func(context.Context, PermissionRequest)
}

// New returns a Wire that writes to 2026-07-28 clients through streams,
// which it makes honour ListenFlag.
func New(streams *listen.Streams) *Wire {
	streams.Honor(ListenFlag)
	return &Wire{streams: streams}
}

// OnPermission makes f receive each permission request, on the goroutine
// that reads the transport: f must not block. Until it is called, and
// with nil, requests are dropped (the server declared no permission
// relay).
func (w *Wire) OnPermission(f func(context.Context, PermissionRequest)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onPermission = f
}

// Wrap returns t with the channel's methods added. Wrap the transport
// that internal/listen wraps, so that the permission requests are seen
// first.
func (w *Wire) Wrap(t mcp.Transport) mcp.Transport { return transport{w, t} }

type transport struct {
	w     *Wire
	inner mcp.Transport
}

func (t transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.w.mu.Lock()
	t.w.conn = c
	t.w.mu.Unlock()
	return &conn{w: t.w, Connection: c}, nil
}

type conn struct {
	w *Wire
	mcp.Connection
}

func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return msg, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		switch {
		case req.Method == MethodPermissionRequest && !req.ID.IsValid():
			c.w.permission(ctx, req.Params)
			continue
		case req.Method == "notifications/initialized":
			c.w.mu.Lock()
			c.w.legacy = true
			c.w.mu.Unlock()
		}
		return msg, nil
	}
}

// permission hands one request to the callback. A malformed one is
// dropped: it is a notification and has no one to answer.
func (w *Wire) permission(ctx context.Context, params json.RawMessage) {
	w.mu.Lock()
	f := w.onPermission
	w.mu.Unlock()
	var p PermissionRequest
	if f == nil || json.Unmarshal(params, &p) != nil || p.RequestID == "" {
		return
	}
	f(ctx, p)
}

// Push sends notifications/claude/channel with content and meta.
func (w *Wire) Push(ctx context.Context, content string, meta map[string]string) error {
	return w.send(ctx, MethodChannel, map[string]any{"content": content, "meta": meta})
}

// Verdict sends notifications/claude/channel/permission: behavior is
// "allow" or "deny".
func (w *Wire) Verdict(ctx context.Context, requestID, behavior string) error {
	return w.send(ctx, MethodPermission, map[string]any{"request_id": requestID, "behavior": behavior})
}

func (w *Wire) send(ctx context.Context, method string, params map[string]any) error {
	w.mu.Lock()
	c, legacy := w.conn, w.legacy
	w.mu.Unlock()
	if legacy && c != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return err
		}
		return c.Write(ctx, &jsonrpc.Request{Method: method, Params: b})
	}
	n, err := w.streams.Notify(ctx, ListenFlag, method, params)
	if err == nil && n == 0 {
		return ErrNotReady
	}
	return err
}
