// Package fakesnowluma is a fake SnowLuma for tests: a real HTTP server on a
// loopback port that speaks SnowLuma's wire format (../shared/spec/
// snowluma-wire.md). Tests start it, point the code under test at its URL,
// script its answers per action and inspect the requests it received.
//
// It is split by concern: this file holds the server, routing and request
// recording; actions.go the replies and the default responders of ordinary
// actions; streams.go the stream actions and the writing of stream frames;
// events.go the event WebSocket.
package fakesnowluma

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// maxRequestBytes caps a request body; it leaves room for a 32 MiB upload
// chunk in base64.
const maxRequestBytes = 64 << 20

// Server is a running fake SnowLuma.
type Server struct {
	// URL is the endpoint to give to clients: http://127.0.0.1:<port>/.
	URL string

	token string

	srv    *http.Server
	served chan struct{}      // closed when srv.Serve has returned
	stop   context.CancelFunc // cancels every request's context

	mu       sync.Mutex
	handlers map[string]Handler
	requests []Recorded
	closed   bool
	// The event WebSocket (events.go).
	upgrades   []http.Header
	eventConns []*EventConn
	inflight   sync.WaitGroup // running ServeHTTP calls
}

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server require "Authorization: Bearer <token>". Other
// requests get HTTP 401 with SnowLuma's unauthorized envelope.
func WithToken(token string) Option {
	return func(s *Server) { s.token = token }
}

// Handler answers one action. params is the request's params object as
// received ({} when the request had none).
type Handler func(params json.RawMessage) Reply

// Recorded is one request the server received.
type Recorded struct {
	Method   string
	Path     string
	RawQuery string
	// Action is the action name from the path or the body; empty when the
	// request named none or its body could not be read.
	Action string
	// Params is the params object exactly as received.
	Params json.RawMessage
	// Header is a copy of the request's headers.
	Header http.Header
}

// Start starts a fake SnowLuma on 127.0.0.1 with an ephemeral port and the
// default responders. It is shut down when the test ends; requests still
// waiting then (a Hang or a Delay) are abandoned.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("fakesnowluma: listening on loopback: %v", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{
		URL:      "http://" + ln.Addr().String() + "/",
		served:   make(chan struct{}),
		stop:     stop,
		handlers: defaultHandlers(),
	}
	for _, opt := range opts {
		opt(s)
	}
	s.srv = &http.Server{
		Handler:           s,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			tb.Errorf("fakesnowluma: serving: %v", err)
		}
	}()
	tb.Cleanup(s.close)
	return s
}

// close shuts the server down and waits for every request to finish.
func (s *Server) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.srv.Close()
	<-s.served
	s.inflight.Wait()
}

// Handle makes h answer action, replacing any responder it had.
func (s *Server) Handle(action string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[action] = h
}

// Requests returns every request received so far, in order of arrival.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Reset forgets the recorded requests and restores the default responders,
// dropping those added with Handle. The token stays.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
	s.handlers = defaultHandlers()
}

// ServeHTTP routes one request: POST / with {"action", "params"}, or
// POST /<action> with the params object as the body.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.inflight.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()
	if isUpgrade(r) {
		s.serveEvents(w, r)
		return
	}

	// Reading the whole body also lets the server notice when the client
	// goes away, which ends the request's context.
	body, readErr := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	if readErr == nil && len(body) > maxRequestBytes {
		readErr = errors.New("request body too large")
	}
	rec := Recorded{
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
	}
	var parseErr error
	if readErr == nil {
		rec.Action, rec.Params, parseErr = parseRequest(r.URL.Path, body)
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	handler := s.handlers[rec.Action]
	s.mu.Unlock()

	switch {
	case s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token:
		writeReply(w, r, Reply{
			Status: http.StatusUnauthorized,
			Body:   []byte(`{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`),
		})
	case r.Method != http.MethodPost:
		writeReply(w, r, wireError(http.StatusMethodNotAllowed, 1405, "method not allowed"))
	case readErr != nil || parseErr != nil:
		writeReply(w, r, wireError(http.StatusBadRequest, 1400, "invalid request body"))
	case handler == nil:
		writeReply(w, r, wireError(http.StatusNotFound, 1404, "unknown action"))
	default:
		writeReply(w, r, handler(rec.Params))
	}
}

// parseRequest finds the action and params of a request to path with body.
func parseRequest(path string, body []byte) (action string, params json.RawMessage, err error) {
	if name := strings.TrimPrefix(path, "/"); name != "" {
		// POST /<action>: the body is the params object.
		params, err = objectOrEmpty(body)
		return name, params, err
	}
	var req struct {
		Action string          `json:"action"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", nil, err
	}
	if req.Action == "" {
		return "", nil, errors.New("no action")
	}
	params, err = objectOrEmpty(req.Params)
	return req.Action, params, err
}

// objectOrEmpty returns raw when it is a JSON object, and {} when it is empty
// or null.
func objectOrEmpty(raw []byte) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}"), nil
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, errors.New("params is not a JSON object")
	}
	return json.RawMessage(trimmed), nil
}
