package simulator

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// SelfID is the account the fake is logged in as: get_login_info's user_id
// and the self_id of the events built by Message.
const SelfID = 10001

// EventsPath is the path SnowLuma's default WebSocket server listens on,
// and the fake's unless WithEventsPath says otherwise. SnowLuma refuses an
// upgrade to any other path with HTTP 400.
const EventsPath = "/"

// DefaultHeartbeat is SnowLuma's heartbeat interval, and the fake's unless
// WithHeartbeat says otherwise.
const DefaultHeartbeat = 30 * time.Second

// events is the fake's WebSocket server. Like SnowLuma's, it listens on a
// port of its own (SnowLuma's default is 3001, beside HTTP on 3000), serves
// one path, and has an access token of its own.
type events struct {
	srv    *http.Server
	url    string        // ws://127.0.0.1:<port>
	served chan struct{} // closed when srv.Serve has returned

	token     string // the WebSocket server's own token
	ownToken  bool   // token was set by WithEventsToken; else the HTTP token is used
	path      string
	heartbeat time.Duration
	redirect  string // when set, every upgrade is answered 307 to it
}

// WithEventsToken gives the WebSocket server an access token of its own,
// as SnowLuma's generated configuration does (a different random token for
// HTTP and for WebSocket). Without it the WebSocket server checks the token
// of WithToken, as an operator who set both to the same value. An empty
// token accepts every upgrade.
func WithEventsToken(token string) Option {
	return func(s *Server) { s.events.token, s.events.ownToken = token, true }
}

// WithEventsPath makes the WebSocket server listen on path instead of
// EventsPath; every other path is refused at the upgrade with HTTP 400.
func WithEventsPath(path string) Option {
	return func(s *Server) { s.events.path = path }
}

// WithHeartbeat makes every accepted event connection get a heartbeat meta
// event each d, announcing d as its interval, instead of DefaultHeartbeat.
func WithHeartbeat(d time.Duration) Option {
	return func(s *Server) { s.events.heartbeat = d }
}

// WithEventsRedirect makes the WebSocket server answer every upgrade with
// HTTP 307 to location, which SnowLuma never does: a client must not follow
// it.
func WithEventsRedirect(location string) Option {
	return func(s *Server) { s.events.redirect = location }
}

// startEvents opens the WebSocket server's listener. s.mu is not needed:
// nothing is served yet.
func (s *Server) startEvents(ctx context.Context) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("simulator: listening on loopback for WebSocket: %w", err)
	}
	e := &s.events
	if e.path == "" {
		e.path = EventsPath
	}
	if e.heartbeat <= 0 {
		e.heartbeat = DefaultHeartbeat
	}
	if !e.ownToken {
		e.token = s.token
	}
	e.url = "ws://" + ln.Addr().String()
	e.served = make(chan struct{})
	e.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serveEvents),
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(e.served)
		if err := e.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.mu.Lock()
			s.serveErr = fmt.Errorf("simulator: serving WebSocket: %w", err)
			s.mu.Unlock()
		}
	}()
	return nil
}

// closeEvents does what SnowLuma does when it stops: a lifecycle disable to
// every open event connection, a normal close, then the listener goes.
func (s *Server) closeEvents() {
	for _, c := range s.EventConns() {
		if c.Open() {
			c.goodbye()
		}
	}
	s.events.srv.Close()
	<-s.events.served
}

// An EventConn is one accepted event WebSocket. Tests push frames through it
// and watch how the client closes it.
type EventConn struct {
	// Header is a copy of the upgrade request's headers.
	Header http.Header

	self int64 // the account its meta events name (WithSelfID)

	ws       *websocket.Conn
	raw      net.Conn      // the hijacked connection, for StallInFrame
	done     chan struct{} // closed once the connection has ended
	stalled  chan struct{} // closed by Stall: no more heartbeats
	stallOne sync.Once
	writeMu  sync.Mutex // one writer at a time, StallInFrame included
	mu       sync.Mutex
	status   websocket.StatusCode // the client's close code; -1 when it sent none
	broken   bool                 // a partial frame was written; guarded by writeMu
}

// EventsURL is the event WebSocket to give to clients:
// ws://127.0.0.1:<port>/ (the path of WithEventsPath when given).
func (s *Server) EventsURL() string {
	return s.events.url + s.events.path
}

// EventConns returns every event connection accepted so far, oldest first.
func (s *Server) EventConns() []*EventConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*EventConn(nil), s.eventConns...)
}

// Upgrades returns the headers of every request that reached the WebSocket
// port, accepted or not, in order of arrival.
func (s *Server) Upgrades() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.upgrades...)
}

// hijackRecorder keeps the connection websocket.Accept hijacks, so that a
// test can write a partial frame underneath the WebSocket library.
type hijackRecorder struct {
	http.ResponseWriter
	conn net.Conn
}

func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	h.conn = c
	return c, brw, err
}

// serveEvents handles one request to the WebSocket port the way SnowLuma's
// WebSocket server does: a plain request gets 426, an upgrade to another
// path 400 "Bad path for WebSocket"; an upgrade to the path is accepted
// whatever its token, and a wrong or missing token is then closed with
// 1008 "invalid access token". An accepted connection gets lifecycle
// connect, lifecycle enable and a heartbeat at once, then a heartbeat each
// interval, until either side closes it or the fake stops.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.inflight.Add(1)
	s.upgrades = append(s.upgrades, r.Header.Clone())
	s.mu.Unlock()
	defer s.inflight.Done()
	e := &s.events
	plain := func(status int, body string) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Connection", "close")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	switch {
	case e.redirect != "":
		http.Redirect(w, r, e.redirect, http.StatusTemporaryRedirect)
		return
	case !strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
		plain(http.StatusUpgradeRequired, http.StatusText(http.StatusUpgradeRequired))
		return
	case r.URL.Path != e.path:
		plain(http.StatusBadRequest, "Bad path for WebSocket")
		return
	}
	hj := &hijackRecorder{ResponseWriter: w}
	ws, err := websocket.Accept(hj, r, nil)
	if err != nil {
		return
	}
	// Reading keeps control frames flowing and sees the client's close.
	ws.SetReadLimit(1 << 20)
	ec := &EventConn{Header: r.Header.Clone(), self: s.self(), ws: ws, raw: hj.conn, done: make(chan struct{}), stalled: make(chan struct{}), status: -1}
	if e.token != "" && r.Header.Get("Authorization") != "Bearer "+e.token && r.URL.Query().Get("access_token") != e.token {
		// Refused connections are not recorded in EventConns: SnowLuma
		// never registers them.
		ws.Close(websocket.StatusPolicyViolation, "invalid access token")
		return
	}
	s.mu.Lock()
	s.eventConns = append(s.eventConns, ec)
	s.mu.Unlock()
	defer close(ec.done)
	for _, f := range []string{lifecycle(ec.self, "connect"), lifecycle(ec.self, "enable"), heartbeat(ec.self, e.heartbeat)} {
		ec.Send(f)
	}
	go ec.beat(e.heartbeat)
	for {
		if _, _, err := ws.Read(r.Context()); err != nil {
			ec.mu.Lock()
			ec.status = websocket.CloseStatus(err)
			ec.mu.Unlock()
			ws.CloseNow()
			return
		}
	}
}

// beat sends a heartbeat each interval until the connection ends or stalls.
func (c *EventConn) beat(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-c.stalled:
			return
		case <-t.C:
			c.Send(heartbeat(c.self, interval))
		}
	}
}

// Send pushes one text frame, such as an event built by Message.
func (c *EventConn) Send(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.broken {
		return errors.New("simulator: the connection is stalled inside a frame")
	}
	return c.ws.Write(ctx, websocket.MessageText, []byte(text))
}

// SendBinary pushes one binary frame, which SnowLuma never sends.
func (c *EventConn) SendBinary(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageBinary, b)
}

// Stall stops the heartbeats: the connection stays open and silent, as a
// SnowLuma that hangs.
func (c *EventConn) Stall() {
	c.stallOne.Do(func() { close(c.stalled) })
}

// StallInFrame stalls the connection inside a frame: it stops the
// heartbeats, then writes the header of a text frame announcing n payload
// bytes and only a few of them. Nothing can be sent afterwards.
func (c *EventConn) StallInFrame(n int) error {
	c.Stall()
	if n < 8 || n > 65535 {
		return fmt.Errorf("simulator: StallInFrame takes 8 to 65535 bytes, not %d", n)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.broken = true
	// FIN and text, then the 16-bit length form, unmasked as a server
	// frame is, then the start of a JSON object.
	hdr := []byte{0x81, 126, byte(n >> 8), byte(n), '{', '"', 'p', 'o'}
	_, err := c.raw.Write(hdr)
	return err
}

// Close closes the connection from SnowLuma's side with code and no
// reason.
func (c *EventConn) Close(code websocket.StatusCode) error {
	return c.ws.Close(code, "")
}

// CloseWith closes the connection from SnowLuma's side with code and
// reason.
func (c *EventConn) CloseWith(code websocket.StatusCode, reason string) error {
	return c.ws.Close(code, reason)
}

// Shutdown does what SnowLuma does when it stops: a lifecycle disable meta
// event, then a normal close.
func (c *EventConn) Shutdown() error {
	if err := c.Send(lifecycle(c.self, "disable")); err != nil {
		return err
	}
	return c.ws.Close(websocket.StatusNormalClosure, "normal")
}

// goodbye is Shutdown when the fake stops, without waiting long for a
// client that is gone.
func (c *EventConn) goodbye() {
	c.Stall()
	c.writeMu.Lock()
	broken := c.broken
	c.writeMu.Unlock()
	if broken {
		c.ws.CloseNow()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.writeMu.Lock()
	err := c.ws.Write(ctx, websocket.MessageText, []byte(lifecycle(c.self, "disable")))
	c.writeMu.Unlock()
	if err != nil {
		c.ws.CloseNow()
		return
	}
	c.ws.Close(websocket.StatusNormalClosure, "normal")
}

// Wait waits up to d for the connection to end and returns the close code
// the client sent (-1 when it sent none), or an error when it is still open.
func (c *EventConn) Wait(d time.Duration) (websocket.StatusCode, error) {
	select {
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.status, nil
	case <-time.After(d):
		return 0, errors.New("the event connection is still open")
	}
}

// Open reports whether the connection is still up.
func (c *EventConn) Open() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// lifecycle is a lifecycle meta event of account self: connect, enable
// or disable.
func lifecycle(self int64, sub string) string {
	return fmt.Sprintf(`{"time":%d,"self_id":%d,"post_type":"meta_event","meta_event_type":"lifecycle","sub_type":%q,"status":{"online":true,"good":true}}`, time.Now().Unix(), self, sub)
}

// heartbeat is a heartbeat meta event of account self announcing interval.
func heartbeat(self int64, interval time.Duration) string {
	return fmt.Sprintf(`{"time":%d,"self_id":%d,"post_type":"meta_event","meta_event_type":"heartbeat","status":{"online":true,"good":true},"interval":%d}`, time.Now().Unix(), self, interval.Milliseconds())
}

// GroupMessage is a group message event of account SelfID, as SnowLuma
// sends it.
func GroupMessage(groupID, userID int64, text string) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"message","message_type":"group","sub_type":"normal","message_id":%d,"group_id":%d,"user_id":%d,"message":[{"type":"text","data":{"text":%s}}],"raw_message":%s,"font":0,"sender":{"user_id":%d,"nickname":"member","card":"","role":"member"}}`,
		SelfID, nextMessageID(), groupID, userID, quote(text), quote(text), userID)
}

// PrivateMessage is a private message event of account SelfID.
func PrivateMessage(userID int64, text string) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"message","message_type":"private","sub_type":"friend","message_id":%d,"user_id":%d,"message":[{"type":"text","data":{"text":%s}}],"raw_message":%s,"font":0,"sender":{"user_id":%d,"nickname":"friend"}}`,
		SelfID, nextMessageID(), userID, quote(text), quote(text), userID)
}

// QuoteReply is a private message event of userID that quote-replies
// message quotedID, as SnowLuma delivers one: a reply segment whose id is
// the quoted message's message_id as a string, then the text (a private
// quote-reply carries no at segment), and raw_message with the reply as a
// CQ code.
func QuoteReply(userID, quotedID int64, text string) string {
	raw := fmt.Sprintf("[CQ:reply,id=%d]", quotedID) + strings.NewReplacer("&", "&amp;", "[", "&#91;", "]", "&#93;", ",", "&#44;").Replace(text)
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"message","message_type":"private","sub_type":"friend","message_id":%d,"user_id":%d,"message":[{"type":"reply","data":{"id":"%d"}},{"type":"text","data":{"text":%s}}],"raw_message":%s,"font":0,"sender":{"user_id":%d,"nickname":"friend"}}`,
		SelfID, nextMessageID(), userID, quotedID, quote(text), quote(raw), userID)
}

// GroupIncrease is a notice event: userID joined groupID.
func GroupIncrease(groupID, userID int64) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"notice","notice_type":"group_increase","sub_type":"approve","group_id":%d,"user_id":%d,"operator_id":%d}`, SelfID, groupID, userID, userID)
}

// FriendRequest is a request event from userID.
func FriendRequest(userID int64) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"request","request_type":"friend","user_id":%d,"comment":"hi","flag":"flag-%d"}`, SelfID, userID, userID)
}

// Heartbeat is a heartbeat meta event announcing SnowLuma's interval.
func Heartbeat() string {
	return heartbeat(SelfID, DefaultHeartbeat)
}

var messageIDs atomic.Int64

func nextMessageID() int64 { return messageIDs.Add(1) }
