// Package listen carries notifications that the go-sdk has no API for on
// 2026-07-28 subscriptions/listen streams: the Tasks extension's
// notifications/tasks, and custom notifications a stream opts in to with
// a boolean key of its own (Claude Code's channel, "claude/channel": true).
// It is a tap on the server's transport (mcpseam.Tap): it notices listen
// requests that ask for taskIds or such a key, acknowledges them (merging
// into the SDK's own acknowledgement when the stream also asks for
// standard notifications), and writes a notification to every stream that
// asked for it.
package listen

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
)

// Meta keys of the protocol.
const (
	subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"
	capabilitiesKey   = "io.modelcontextprotocol/clientCapabilities"
)

// Streams tracks the listen streams that asked for tasks. The zero value is
// not usable; use New.
type Streams struct {
	// accept reports whether a stream may follow task id; nil accepts
	// none, so that nothing is acknowledged when tasks are off.
	accept    func(id string) bool
	extension string
	// flags are the boolean opt-in keys this server honours.
	flags []string

	mu   sync.Mutex
	conn mcp.Connection // the transport's connection, once connected
	subs map[string]*stream
}

// stream is one listen request that asked for tasks or a flag.
type stream struct {
	id    jsonrpc.ID
	tasks []string
	// asked says the request named taskIds; flags are the opt-in keys it
	// asked for and this server agreed to.
	asked bool
	flags []string
	// own marks a stream that asked for nothing else, so that this package
	// answers it entirely and the SDK never sees it.
	own bool
}

// New returns Streams that acknowledge the task ids accept allows, for
// clients that advertise extension.
func New(extension string, accept func(id string) bool) *Streams {
	return &Streams{accept: accept, extension: extension, subs: map[string]*stream{}}
}

// Honor makes s acknowledge and serve the boolean opt-in key flag (for
// instance "claude/channel"): a listen request whose notifications hold
// flag: true gets it back in its acknowledgement, and Notify writes to it.
// Call it before the session starts.
func (s *Streams) Honor(flag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.flags, flag) {
		s.flags = append(s.flags, flag)
	}
}

// Streams is an mcpseam.Tap: wrap the server's transport with it
// (mcpseam.Wrap).
var _ mcpseam.Tap = (*Streams)(nil)

// Connected implements mcpseam.Tap: acknowledgements and notifications
// are written to c.
func (s *Streams) Connected(c mcp.Connection) {
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
}

func key(id jsonrpc.ID) string {
	b, _ := json.Marshal(id.Raw())
	return string(b)
}

// listenParams is what this package reads of a listen request.
type listenParams struct {
	Meta          map[string]json.RawMessage `json:"_meta"`
	Notifications map[string]json.RawMessage `json:"notifications"`
}

// Read implements mcpseam.Tap: it registers a listen request that asks
// for task ids or an honoured flag, consuming one that asks for nothing
// else, and forgets a stream the client cancelled.
func (s *Streams) Read(ctx context.Context, req *jsonrpc.Request) (consumed bool) {
	switch {
	case req.Method == "subscriptions/listen" && req.ID.IsValid():
		return s.listen(ctx, req)
	case req.Method == "notifications/cancelled":
		s.cancelled(req.Params)
	}
	return false
}

// Write implements mcpseam.Tap: it merges the task ids and flags into the
// SDK's acknowledgement of a stream that also asked for them, and forgets
// a stream the SDK has answered.
func (s *Streams) Write(msg jsonrpc.Message) jsonrpc.Message {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == "notifications/subscriptions/acknowledged" {
			return s.mergeAck(m)
		}
	case *jsonrpc.Response:
		s.mu.Lock()
		delete(s.subs, key(m.ID))
		s.mu.Unlock()
	}
	return msg
}

// listen registers a listen request that asks for taskIds or an honoured
// flag. When it asks for nothing else it is acknowledged here and kept
// from the SDK (which would close a stream with no notifications it
// knows).
func (s *Streams) listen(ctx context.Context, req *jsonrpc.Request) (handled bool) {
	var p listenParams
	if json.Unmarshal(req.Params, &p) != nil || p.Notifications == nil {
		return false
	}
	s.mu.Lock()
	honored := slices.Clone(s.flags)
	s.mu.Unlock()
	st := &stream{id: req.ID}
	for _, f := range honored {
		if string(p.Notifications[f]) == "true" {
			st.flags = append(st.flags, f)
		}
	}
	raw, asked := p.Notifications["taskIds"]
	if !asked && st.flags == nil {
		return false
	}
	st.asked = asked
	if asked {
		var ids []string
		json.Unmarshal(raw, &ids)
		var caps struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		}
		json.Unmarshal(p.Meta[capabilitiesKey], &caps)
		_, ext := caps.Extensions[s.extension]
		for _, id := range ids {
			if ext && s.accept != nil && s.accept(id) && !slices.Contains(st.tasks, id) {
				st.tasks = append(st.tasks, id)
			}
		}
	}
	own := true
	for k, v := range p.Notifications {
		if k != "taskIds" && !slices.Contains(st.flags, k) && string(v) != "false" && string(v) != "[]" && string(v) != "null" {
			own = false
		}
	}
	st.own = own
	s.mu.Lock()
	s.subs[key(req.ID)] = st
	s.mu.Unlock()
	if !own {
		return false
	}
	agreed := map[string]any{}
	st.addTo(agreed)
	ack := map[string]any{
		"notifications": agreed,
		"_meta":         map[string]any{subscriptionIDKey: req.ID.Raw()},
	}
	b, _ := json.Marshal(ack)
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	c.Write(ctx, &jsonrpc.Request{Method: "notifications/subscriptions/acknowledged", Params: b})
	return true
}

// addTo adds what st agreed to to an acknowledgement's notifications.
func (st *stream) addTo(n map[string]any) {
	if st.asked {
		n["taskIds"] = nonNil(st.tasks)
	}
	for _, f := range st.flags {
		n[f] = true
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// mergeAck adds the agreed task ids to the SDK's acknowledgement of a
// stream that asked for them as well.
func (s *Streams) mergeAck(m *jsonrpc.Request) jsonrpc.Message {
	var p struct {
		Meta          map[string]any             `json:"_meta"`
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return m
	}
	b, _ := json.Marshal(p.Meta[subscriptionIDKey])
	s.mu.Lock()
	var st *stream
	for _, x := range s.subs {
		if key(x.id) == string(b) {
			st = x
		}
	}
	s.mu.Unlock()
	if st == nil {
		return m
	}
	if p.Notifications == nil {
		p.Notifications = map[string]json.RawMessage{}
	}
	agreed := map[string]any{}
	st.addTo(agreed)
	for k, v := range agreed {
		p.Notifications[k], _ = json.Marshal(v)
	}
	out, err := json.Marshal(p)
	if err != nil {
		return m
	}
	return &jsonrpc.Request{Method: m.Method, Params: out}
}

// cancelled forgets a stream the client cancelled. The SDK hears the
// cancellation too, for a stream it serves.
func (s *Streams) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	s.mu.Lock()
	delete(s.subs, key(id))
	s.mu.Unlock()
}

// Notify writes a notification of method with params (an object) to
// every stream that asked for flag, with the stream's subscription id in
// _meta. It reports whether any delivery failed, and how many streams it
// was written to.
func (s *Streams) Notify(ctx context.Context, flag, method string, params map[string]any) (int, error) {
	s.mu.Lock()
	c := s.conn
	var targets []jsonrpc.ID
	for _, st := range s.subs {
		if slices.Contains(st.flags, flag) {
			targets = append(targets, st.id)
		}
	}
	s.mu.Unlock()
	return len(targets), s.write(ctx, c, targets, method, params)
}

// write sends one notification to each target stream.
func (s *Streams) write(ctx context.Context, c mcp.Connection, targets []jsonrpc.ID, method string, params map[string]any) error {
	var firstErr error
	for _, sid := range targets {
		p := make(map[string]any, len(params)+1)
		for k, v := range params {
			p[k] = v
		}
		p["_meta"] = map[string]any{subscriptionIDKey: sid.Raw()}
		b, err := json.Marshal(p)
		if err == nil {
			err = c.Write(ctx, &jsonrpc.Request{Method: method, Params: b})
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// NotifyTask writes notifications/tasks with params (the task's state, an
// object) to every stream that asked for task id. It reports whether any
// delivery failed.
func (s *Streams) NotifyTask(ctx context.Context, id string, params map[string]any) error {
	s.mu.Lock()
	c := s.conn
	var targets []jsonrpc.ID
	for _, st := range s.subs {
		if slices.Contains(st.tasks, id) {
			targets = append(targets, st.id)
		}
	}
	s.mu.Unlock()
	return s.write(ctx, c, targets, "notifications/tasks", params)
}
