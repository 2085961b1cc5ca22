// Package simulator is a simulated SnowLuma 1.11.1: a real HTTP server on a
// loopback port that speaks SnowLuma's wire format (snowluma-wire.md, and
// SnowLuma's own network code where the notes are silent), with the event
// WebSocket on a port of its own as SnowLuma's. It is a production part: the
// snowluma-mcp sandbox command runs it with a simulated account (WithWorld)
// so that an operator can try the server without QQ. Tests run it too, as
// the SnowLuma the code under test talks to: they script its answers per
// action and inspect the requests it received (the TB helpers serve them).
//
// It is split by concern: this file holds the server, routing and request
// recording; actions.go the replies and the default responders of ordinary
// actions; streams.go the writing of stream frames and test_download_stream;
// files.go the download and upload stream actions, which move real bytes;
// events.go the event WebSocket; world*.go and sandbox.go the simulated
// account; media.go its pictures and voice.
package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxBodyBytes is SnowLuma's cap on a request body: a longer body is
// cut off and its connection destroyed before any action runs.
const DefaultMaxBodyBytes = 2 << 20

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

	// The simulated account (world.go), when WithWorld gave one.
	world   *world
	trickle time.Duration   // the world's pace of life; 0 is silence
	pushes  chan struct{}   // wakes the deliverer when events are queued
	pushMu  sync.Mutex      // guards queued
	queued  [][]byte        // events waiting for the event connections, oldest first
	bg      sync.WaitGroup  // the world's background goroutines
	known   map[string]bool // WithActions: SnowLuma's actions, simulated or not

	reportSelf bool // WithSelfMessages

	selfID   int64                   // WithSelfID; 0 is SelfID
	nickname string                  // WithSelfID's
	shared   atomic.Pointer[sharing] // Share: a group shared with another fake's account

	record  bool         // keep each request for Requests
	conns   atomic.Int64 // TCP connections accepted
	path    string       // the configured HTTP path, normalized as SnowLuma does
	maxBody int64        // the request body cap
}

// Option configures a Server.
type Option func(*Server)

// WithToken makes the server require the token, as SnowLuma does: in
// "Authorization: Bearer <token>" or in the access_token query parameter.
// Other requests get HTTP 401 with SnowLuma's unauthorized envelope.
func WithToken(token string) Option {
	return func(s *Server) { s.token = token }
}

// WithSelfID makes the fake another account than SelfID: get_login_info
// answers id, and the event connection's meta events carry it, as a
// second SnowLuma account's would. A fake with a world is that account's
// world: the seed's people, groups and history with id in the bot's
// place, every event's self_id id.
func WithSelfID(id int64, nickname string) Option {
	return func(s *Server) {
		s.selfID, s.nickname = id, nickname
		s.handlers["get_login_info"] = func(json.RawMessage) Reply {
			return OK(map[string]any{"user_id": id, "nickname": nickname})
		}
	}
}

// self is the account the fake is logged in as.
func (s *Server) self() int64 {
	if s.selfID != 0 {
		return s.selfID
	}
	return SelfID
}

// WithHTTPPath configures the server's HTTP path, as SnowLuma's http server
// path setting does (default "/"): a request to that path takes its action
// from the body, one below it names the action in the rest of the path, and
// any other path is HTTP 404 with retcode 1404.
func WithHTTPPath(path string) Option {
	return func(s *Server) { s.path = normalizePath(path) }
}

// WithMaxBodyBytes changes the request body cap (DefaultMaxBodyBytes).
func WithMaxBodyBytes(n int64) Option {
	return func(s *Server) { s.maxBody = n }
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

// New starts a fake SnowLuma on 127.0.0.1 with an ephemeral port and the
// default responders; the caller calls Close. Tests start one with
// simtest.Start, which closes it when the test ends.
func New(opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simulator: listening on loopback: %w", err)
	}
	dir, err := os.MkdirTemp("", "snowluma-simulator-uploads")
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("simulator: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{
		URL:     "http://" + ln.Addr().String() + "/",
		served:  make(chan struct{}),
		stop:    stop,
		files:   files{dir: dir, uploads: map[string]*upload{}, byName: map[string]File{}},
		record:  true,
		path:    "/",
		maxBody: DefaultMaxBodyBytes,
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
	if w := s.world; w != nil {
		if s.selfID != 0 && s.selfID != w.self {
			// The world of that account: the same seed's people, groups
			// and history, with the account in the bot's place.
			nw := newWorldOf(w.seed, time.Unix(w.epoch, 0).Add(historyEnd), s.selfID)
			if w.grown {
				nw.grow()
			}
			if s.nickname != "" {
				nw.nickname = s.nickname
			}
			s.world = nw
		}
		s.startWorld(ctx)
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
			s.serveErr = fmt.Errorf("simulator: serving: %w", err)
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
	s.bg.Wait()
}

// Handle makes h answer action, replacing any responder it had.
func (s *Server) Handle(action string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[action] = h
}

// Builtin returns the responder the fake has for action by default (the
// world's, with a world), or nil: for a handler that changes one thing
// about an answer and otherwise keeps it (simtest.FailOCR).
func (s *Server) Builtin(action string) Handler { return s.defaultHandlers()[action] }

// Requests returns every request received so far, in order of arrival.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Reset forgets the recorded requests and restores the default responders
// (the world's, with a world), dropping those added with Handle. The token
// and the world's state stay.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
	s.handlers = s.defaultHandlers()
}

// ServeHTTP routes one request as SnowLuma's HTTP server adapter does: the
// configured path takes the action from the body ({"action", "params"}), a
// path below it names the action itself and wins over the body's, and any
// other path is refused with 404 before the token is checked.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.inflight.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()

	rec := Recorded{
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
	}
	action, inside := s.pathAction(r.URL.Path)
	var body []byte
	if inside && r.Method == http.MethodPost {
		// SnowLuma reads the whole body, and destroys the connection
		// without an answer as soon as it passes the cap.
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, s.maxBody+1))
		if err == nil && int64(len(body)) > s.maxBody {
			s.keep(rec)
			panic(http.ErrAbortHandler)
		}
		if err != nil {
			s.keep(rec)
			return // the client went away
		}
	}
	var reply *Reply
	params := json.RawMessage("{}")
	switch {
	case !inside:
		reply = ptr(wireError(http.StatusNotFound, 1404, "not found"))
	case !s.authorized(r):
		reply = &Reply{Status: http.StatusUnauthorized,
			Body: []byte(`{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`)}
	case r.Method == http.MethodGet && action == "":
		reply = ptr(OK(json.RawMessage(`{"online":true}`)))
	case r.Method == http.MethodGet:
		params = queryParams(r.URL.Query())
	case r.Method != http.MethodPost:
		reply = ptr(wireError(http.StatusMethodNotAllowed, 1400, "method not allowed"))
	default:
		var err error
		if action, params, err = parseBody(action, r.Header.Get("Content-Type"), body); err != nil {
			reply = ptr(wireError(http.StatusBadRequest, 1400, "bad request: "+err.Error()))
		}
	}
	if reply == nil && action == "" {
		reply = ptr(wireError(http.StatusBadRequest, 1400, "bad request: missing action"))
	}
	if reply == nil {
		rec.Action, rec.Params = action, params
		if action == uploadAction {
			rec.Params = withoutChunkData(params)
		}
	}
	s.keep(rec)
	if reply != nil {
		writeReply(w, r, *reply)
		return
	}
	s.mu.Lock()
	handler := s.handlers[action]
	s.mu.Unlock()
	if handler == nil && s.known[action] {
		writeReply(w, r, Failed(100, action+" is not simulated by the sandbox: it exists in SnowLuma, but this simulated account has nothing behind it"))
		return
	}
	if handler == nil {
		writeReply(w, r, Reply{Envelope: Envelope{Status: "failed", Retcode: 1404, Wording: "unknown action"}})
		return
	}
	writeReply(w, r, handler(params))
}

func ptr[T any](v T) *T { return &v }

// authorized reports whether r carries the token the way SnowLuma accepts
// it: the bearer header, or ?access_token= (which this server's client
// never uses; tests check RawQuery for that).
func (s *Server) authorized(r *http.Request) bool {
	return s.token == "" || r.Header.Get("Authorization") == "Bearer "+s.token || r.URL.Query().Get("access_token") == s.token
}

// keep records rec when the server records requests.
func (s *Server) keep(rec Recorded) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.record {
		s.requests = append(s.requests, rec)
	}
}

// normalizePath is SnowLuma's reading of a configured path: "/" when empty,
// otherwise without a trailing slash.
func normalizePath(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || p == "/" {
		return "/"
	}
	return strings.TrimSuffix(p, "/")
}

// pathAction splits a request path against the configured one: inside is
// false for a path SnowLuma does not serve, and action is what the path
// names below the configured one (empty for the configured path itself).
func (s *Server) pathAction(path string) (action string, inside bool) {
	if path == s.path || path == s.path+"/" {
		return "", true
	}
	prefix := s.path
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if rest, ok := strings.CutPrefix(path, prefix); ok {
		return rest, true
	}
	return "", false
}

// parseBody reads a POST body as SnowLuma does. The action named by the path
// wins; the body's "action" is used only when the path named none. A body
// whose "params" is an object has its params there; any other object is
// the params itself. A JSON body that is not an object leaves the params
// empty, and an empty body is no params at all.
func parseBody(action, contentType string, body []byte) (string, json.RawMessage, error) {
	params := json.RawMessage("{}")
	if len(bytes.TrimSpace(body)) == 0 {
		return action, params, nil
	}
	switch {
	case strings.Contains(contentType, "application/x-www-form-urlencoded"):
		return formParams(action, body)
	case strings.Contains(contentType, "application/json") || contentType == "":
		// The body is read once, its fields kept raw: an upload's chunk is
		// most of a body, and only the action is decoded.
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
			switch {
			case err == nil || json.Valid(body): // JSON, not an object
				return action, params, nil
			case contentType != "":
				return action, nil, errors.New("invalid json")
			}
			return formParams(action, body)
		}
		if raw, ok := fields["action"]; ok && action == "" {
			var a any
			json.Unmarshal(raw, &a) // a field of valid JSON decodes
			if truthy(a) {
				action = jsString(a)
			}
		}
		if p := bytes.TrimSpace(fields["params"]); len(p) > 0 && p[0] == '{' {
			return action, json.RawMessage(p), nil
		}
		return action, json.RawMessage(bytes.TrimSpace(body)), nil
	}
	return action, nil, errors.New("unsupported content-type: " + contentType)
}

// formParams reads an urlencoded body: each value as JSON when it parses,
// else as a string, with action and echo taken out.
func formParams(action string, body []byte) (string, json.RawMessage, error) {
	q, _ := url.ParseQuery(string(body))
	if a := q.Get("action"); a != "" && action == "" {
		action = a
	}
	q.Del("action")
	q.Del("echo")
	return action, queryParams(q), nil
}

// queryParams makes a params object from query values: each value as JSON
// when it parses, else as a string.
func queryParams(q url.Values) json.RawMessage {
	m := map[string]json.RawMessage{}
	for k, vs := range q {
		v := vs[len(vs)-1]
		if json.Valid([]byte(v)) {
			m[k] = json.RawMessage(v)
		} else {
			m[k] = json.RawMessage(quote(v))
		}
	}
	b, _ := json.Marshal(m)
	return b
}

// truthy is JavaScript's truthiness of a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	}
	return true
}

// jsString is JavaScript's String() of a decoded JSON scalar.
func jsString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
