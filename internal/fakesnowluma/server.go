// Package fakesnowluma is a fake SnowLuma for tests: a real HTTP server on a
// loopback port that speaks SnowLuma's wire format (../shared/spec/
// snowluma-wire.md). Tests start it, point the code under test at its URL,
// script its answers per action and inspect the requests it received.
//
// It is split by concern: this file holds the server, routing and request
// recording; actions.go the replies and the default responders of ordinary
// actions; streams.go the writing of stream frames and test_download_stream;
// files.go the download and upload stream actions, which move real bytes;
// events.go the event WebSocket, which listens on a port of its own as
// SnowLuma's does.
package fakesnowluma

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
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
	// The event WebSocket (events.go), on a port of its own.
	events     events
	upgrades   []http.Header
	eventConns []*EventConn
	serveErr   error
	inflight   sync.WaitGroup // running ServeHTTP calls

	files files // the download and upload stream actions (files.go)

	record bool         // keep each request for Requests
	conns  atomic.Int64 // TCP connections accepted
}

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server require "Authorization: Bearer <token>". Other
// requests get HTTP 401 with SnowLuma's unauthorized envelope.
func WithToken(token string) Option {
	return func(s *Server) { s.token = token }
}

// WithoutRecording stops the server from keeping the requests it receives
// (Requests stays empty), for long benchmark runs.
func WithoutRecording() Option {
	return func(s *Server) { s.record = false }
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
	// Params is the params object exactly as received, except that the
	// chunk_data of an upload_file_stream call is replaced by a string
	// giving its length, to keep a long upload's record small.
	Params json.RawMessage
	// Header is a copy of the request's headers.
	Header http.Header
}

// Start starts a fake SnowLuma on 127.0.0.1 with an ephemeral port and the
// default responders. It is shut down when the test ends; requests still
// waiting then (a Hang or a Delay) are abandoned.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// New starts a fake SnowLuma like Start, for programs that are not tests
// (the benchmark). The caller calls Close.
func New(opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakesnowluma: listening on loopback: %w", err)
	}
	dir, err := os.MkdirTemp("", "fakesnowluma-uploads")
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("fakesnowluma: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{
		URL:    "http://" + ln.Addr().String() + "/",
		served: make(chan struct{}),
		stop:   stop,
		files:  files{dir: dir, uploads: map[string]*upload{}, byName: map[string]File{}},
		record: true,
	}
	s.handlers = s.defaultHandlers()
	for _, opt := range opts {
		opt(s)
	}
	if err := s.startEvents(ctx); err != nil {
		ln.Close()
		stop()
		os.RemoveAll(dir)
		return nil, err
	}
	s.srv = &http.Server{
		Handler:           s,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, state http.ConnState) {
			if state == http.StateNew {
				s.conns.Add(1)
			}
		},
	}
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.mu.Lock()
			s.serveErr = fmt.Errorf("fakesnowluma: serving: %w", err)
			s.mu.Unlock()
		}
	}()
	return s, nil
}

// Conns reports how many TCP connections the server has accepted so far:
// a client that reuses its connections stops adding to it.
func (s *Server) Conns() int64 { return s.conns.Load() }

// Close shuts the server down, waits for every request to finish and
// removes the files uploaded to it. It reports a failure of the server.
func (s *Server) Close() error {
	s.close()
	os.RemoveAll(s.files.dir)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.serveErr
}

// close shuts the server down and waits for every request to finish.
func (s *Server) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.closeEvents()
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
	s.handlers = s.defaultHandlers()
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
	params := rec.Params
	if rec.Action == uploadAction && parseErr == nil {
		rec.Params = withoutChunkData(rec.Params)
	}
	s.mu.Lock()
	if s.record {
		s.requests = append(s.requests, rec)
	}
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
		writeReply(w, r, handler(params))
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
