// Package claudechannel carries Claude Code's channel methods, which the
// go-sdk has no API for. A tap on the server's transport (mcpseam.Tap), it
// takes the client's notifications/claude/channel/permission_request off
// the wire before the SDK sees it (the SDK cannot receive a custom
// notification), and writes
// notifications/claude/channel and notifications/claude/channel/permission
// to the client.
//
// A legacy session (the initialize handshake) receives them once the
// client has sent notifications/initialized and listed what it needs
// (pushes made before are held until then). A 2026-07-28 client, which
// must not be sent a notification it did not ask for, receives them on
// the subscriptions/listen streams that asked for "claude/channel": true
// (internal/listen acknowledges that key and writes to those streams).
package claudechannel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/listen"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
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

// ErrNotReady is returned by a verdict before any client can receive it,
// and (as a NoPathError) by a push to a 2026-07-28 client with no stream
// that asked for the channel. A push before a legacy session listens is
// held, not refused.
var ErrNotReady = errors.New("claudechannel: no client is listening to the channel yet")

// A NoPathError is the ErrNotReady of a session whose client negotiated a
// 2026-07-28 revision and opened no stream that asked for the channel:
// Claude Code 2.1.332 in such a session skips channel notifications
// altogether ("no unsolicited notification path"), so none will be
// received until a client connects again.
type NoPathError struct{ Version string }

func (e *NoPathError) Error() string {
	return "claudechannel: the client negotiated MCP " + e.Version + " and no stream asked for the channel"
}

// Is makes a NoPathError an ErrNotReady.
func (e *NoPathError) Is(target error) bool { return target == ErrNotReady }

// metaProtocolVersion is the _meta key of a 2026-07-28 request's revision.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// Wire is the channel's side of one stdio session. The zero value is not
// usable; use New.
type Wire struct {
	streams *listen.Streams

	// order is held across each write to a legacy client, so that the
	// held pushes go before any later one. Taken before mu.
	order sync.Mutex

	mu           sync.Mutex
	conn         mcp.Connection // the transport's connection, once connected
	legacy       bool           // the client sent notifications/initialized
	ready        bool           // a legacy client listens: pushes are written at once
	listID       jsonrpc.ID     // the legacy client's first request after initialized
	listing      bool           // listID is set
	settle       *time.Timer    // makes the session ready
	held         []json.RawMessage
	modern       string // the revision of the client's first 2026-07-28 request
	onPermission func(context.Context, PermissionRequest)
	onHold       func()
}

// OnHold makes f learn when a push is held while none was: the client is
// not listening yet. f must not block.
func (w *Wire) OnHold(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onHold = f
}

// Claude Code registers its handler of channel notifications only once it
// has the server's tools (it lists them right after
// notifications/initialized), and drops what comes before. So a legacy
// session is ready for pushes settleAfterAnswer after the client's first
// request after notifications/initialized is answered, or, when the
// client asks nothing, settleWithoutRequest after notifications/initialized.
// Pushes made before then (at most maxHeld, the newest) are held and
// written, in order, when it is ready.
const (
	settleAfterAnswer    = 500 * time.Millisecond
	settleWithoutRequest = 2 * time.Second
	maxHeld              = 16
)

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

// Wire is an mcpseam.Tap: wrap the server's transport with it, before
// the listen streams (mcpseam.Wrap(t, wire, streams)), so that the
// permission requests are seen first.
var _ mcpseam.Tap = (*Wire)(nil)

// Connected implements mcpseam.Tap: a legacy session's notifications are
// written to c.
func (w *Wire) Connected(c mcp.Connection) {
	w.mu.Lock()
	w.conn = c
	w.mu.Unlock()
}

// Read implements mcpseam.Tap: it consumes a permission request, which
// the SDK cannot receive, and notes that a legacy client has initialized.
func (w *Wire) Read(ctx context.Context, req *jsonrpc.Request) (consumed bool) {
	switch {
	case req.Method == MethodPermissionRequest && !req.ID.IsValid():
		w.permission(ctx, req.Params)
		return true
	case req.Method == "notifications/initialized":
		w.mu.Lock()
		if !w.legacy {
			// A legacy session, even after a server/discover (the go-sdk
			// client probes on the same connection).
			w.legacy, w.modern = true, ""
			w.settle = time.AfterFunc(settleWithoutRequest, w.open)
		}
		w.mu.Unlock()
	case req.Method == mcpseam.MethodDiscover:
		// A probe, not a session: the client may still fall back.
	case req.ID.IsValid():
		w.mu.Lock()
		if w.legacy && !w.listing {
			// Its answer shortens the wait; without one, the wait ends
			// settleWithoutRequest from now.
			w.listID, w.listing = req.ID, true
			w.settle.Reset(settleWithoutRequest)
		}
		w.mu.Unlock()
		w.noteRevision(req.Params)
	default:
		w.noteRevision(req.Params)
	}
	return false
}

// open makes a legacy session ready and writes the pushes held until then.
func (w *Wire) open() {
	w.order.Lock()
	defer w.order.Unlock()
	w.mu.Lock()
	if w.ready {
		w.mu.Unlock()
		return
	}
	w.ready = true
	held, c := w.held, w.conn
	w.held = nil
	w.mu.Unlock()
	for _, p := range held {
		// A write fails only when the connection has ended.
		if c.Write(context.Background(), &jsonrpc.Request{Method: MethodChannel, Params: p}) != nil {
			return
		}
	}
}

// noteRevision remembers the revision of the client's first 2026-07-28
// request. Only a request that names one is decoded, and only until one
// has.
func (w *Wire) noteRevision(params json.RawMessage) {
	w.mu.Lock()
	decided := w.modern != "" || w.legacy
	w.mu.Unlock()
	if decided || !bytes.Contains(params, []byte(metaProtocolVersion)) {
		return
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var v string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Meta[metaProtocolVersion], &v) != nil || v < "2026-07-28" {
		return
	}
	w.mu.Lock()
	if w.modern == "" {
		// A 2026-07-28 client receives pushes on its streams only, from
		// now on: what was held for a legacy session goes.
		w.modern, w.held = v, nil
	}
	w.mu.Unlock()
}

// Write implements mcpseam.Tap; the channel changes nothing the SDK
// writes. The answer to a legacy client's first request after
// notifications/initialized starts the wait before the session is ready.
func (w *Wire) Write(msg jsonrpc.Message) jsonrpc.Message {
	if r, ok := msg.(*jsonrpc.Response); ok {
		w.mu.Lock()
		if w.listing && !w.ready && r.ID == w.listID {
			w.settle.Reset(settleAfterAnswer)
		}
		w.mu.Unlock()
	}
	return msg
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
	c, legacy, ready, modern := w.conn, w.legacy, w.ready, w.modern
	if method == MethodChannel && modern == "" && !ready {
		// No session yet, or a legacy one not listening yet: held.
		b, err := json.Marshal(params)
		first := false
		if err == nil {
			first = len(w.held) == 0
			w.held = append(w.held, b)
			if len(w.held) > maxHeld {
				w.held = w.held[len(w.held)-maxHeld:]
			}
		}
		f := w.onHold
		w.mu.Unlock()
		if first && f != nil {
			f()
		}
		return err
	}
	w.mu.Unlock()
	if legacy && c != nil {
		// A verdict answers a permission request, which a client sends
		// only once it listens: it goes at once.
		b, err := json.Marshal(params)
		if err != nil {
			return err
		}
		w.order.Lock()
		defer w.order.Unlock()
		return c.Write(ctx, &jsonrpc.Request{Method: method, Params: b})
	}
	n, err := w.streams.Notify(ctx, ListenFlag, method, params)
	switch {
	case err == nil && n == 0 && modern != "":
		return &NoPathError{Version: modern}
	case err == nil && n == 0:
		return ErrNotReady
	}
	return err
}
