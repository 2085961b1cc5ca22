// Package events holds SnowLuma's live account events for an MCP client:
// the one WebSocket event connection, the filters that route each event to
// the resources subscribed to it, each resource's bounded buffer and its
// opaque cursors, and the connection status every resource reports.
//
// The connection opens on the first Subscribe, never earlier, and is never
// silently reopened: when it ends, the resources keep their buffers and say
// why, and a new connection needs them released first. Releasing the last
// resource closes the socket. Memory is bounded by the caps below whatever
// SnowLuma sends. Nothing here sends an action or a message to SnowLuma.
package events

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// Limits of the features document ("Live event resources").
const (
	MaxResources   = 16        // resources per process, sharing one connection
	MaxEvents      = 256       // entries held by one resource
	MaxBytes       = 1 << 20   // event bytes held by one resource
	MaxFrame       = 256 << 10 // bytes of one incoming frame
	MaxFilterIDs   = 100       // distinct ids in one group or user filter
	UpdateInterval = 100 * time.Millisecond
	// DialTimeout bounds opening the connection when the caller sets no
	// earlier deadline.
	DialTimeout = 10 * time.Second
	// GreetingWait is how long Subscribe waits after the upgrade for the
	// first frame before it calls the connection open. SnowLuma checks the
	// token only after the upgrade: it greets an accepted connection with
	// a lifecycle connect meta event at once, and closes a refused one
	// with 1008 at once. A server that greets nobody is taken as open when
	// the wait passes with the socket up.
	GreetingWait = 2 * time.Second
	// StallHeartbeats is how many heartbeat intervals may pass without a
	// single frame before the connection counts as stalled and is dropped
	// (status disconnected). The interval is the one the last heartbeat
	// announced, DefaultHeartbeatInterval until one does, and at least
	// MinHeartbeatInterval.
	StallHeartbeats          = 3
	DefaultHeartbeatInterval = 30 * time.Second // SnowLuma's own
	MinHeartbeatInterval     = 100 * time.Millisecond
	MaxHeartbeatInterval     = time.Hour
)

// statusOpening is a connection's status between the upgrade and its
// greeting (or GreetingWait). No resource sees it: the connection becomes
// the Hub's only once it is open.
const statusOpening Status = "opening"

// Status is the state of the connection a resource belongs to.
type Status string

const (
	// StatusNotConnected: no connection is open because no resource exists.
	StatusNotConnected Status = "not_connected"
	StatusConnected    Status = "connected"
	// StatusDisconnected: SnowLuma closed the socket, or it failed.
	StatusDisconnected Status = "disconnected"
	// StatusStopped: this server closed the socket (a bad frame, a release,
	// the end of the session).
	StatusStopped Status = "stopped"
)

// State is a connection's status and why, in words.
type State struct {
	Status Status `json:"status"`
	Reason string `json:"status_reason"`
	// Resources counts the live event resources.
	Resources int `json:"resources"`
}

// Options configure a Hub.
type Options struct {
	// URL is SnowLuma's event WebSocket, ws:// or wss://.
	URL string
	// Token, when set, goes in the upgrade's Authorization header and
	// nowhere else.
	Token string
	// UserAgent, when set, is the upgrade's User-Agent header, so that
	// SnowLuma's log names the client rather than Go's HTTP library.
	UserAgent string
	// AllowGroups and AllowUsers, when not nil, are the only groups and
	// users whose events any resource buffers: an event naming another
	// group_id or user_id is dropped on arrival, whatever the filters say.
	AllowGroups, AllowUsers []int64
}

// A Hub owns the event connection and the resources fed by it. It is safe
// for concurrent use.
type Hub struct {
	opts Options

	dialMu sync.Mutex // one Subscribe at a time opens a connection

	mu        sync.Mutex
	onUpdate  func(id string)
	tap       Tap
	conn      *conn       // nil while no resource exists
	resources []*resource // live resources, oldest first
	closed    bool
	done      chan struct{} // closed by Close
}

// conn is one WebSocket connection. status, reason, sawDisable, interval
// and the close fields are guarded by the Hub's mutex.
type conn struct {
	ws         *websocket.Conn
	selfID     int64
	status     Status
	reason     string
	sawDisable bool
	// interval is the heartbeat interval in force; announced tells whether
	// a heartbeat gave it.
	interval  time.Duration
	announced bool
	// closeCode and closeReason are SnowLuma's close frame; closeCode is
	// -1 until one arrives.
	closeCode   websocket.StatusCode
	closeReason string

	done     chan struct{} // closed when the reader has returned
	settled  chan struct{} // closed once the first frame arrived or the socket ended
	settle   sync.Once
	admitted chan struct{} // closed once Subscribe has decided about the connection
	watchdog *time.Timer   // drops the connection when it stalls
}

func (c *conn) state() State {
	return State{Status: c.status, Reason: c.reason}
}

// New returns a Hub for opts. It connects to nothing.
func New(opts Options) *Hub {
	return &Hub{opts: opts, done: make(chan struct{})}
}

// Done is closed once Close has been called: the session has ended and
// nothing more will be served.
func (h *Hub) Done() <-chan struct{} { return h.done }

// OnUpdate sets f to be told that a resource changed (new events or a new
// status), at most once per UpdateInterval per resource, on its own
// goroutine.
func (h *Hub) OnUpdate(f func(id string)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onUpdate = f
}

// A Tap receives every message, notice and request event that the
// account check and the allowlists admit, in the order it arrived, on the
// connection's reader and before any resource buffers it: the archive is
// fed so, not from a buffer that may overflow.
type Tap interface {
	// Connected is told that a new connection began, before any of its
	// events.
	Connected()
	// Event receives one event exactly as SnowLuma sent it. It may block:
	// the reader then waits (and so, through TCP, does SnowLuma), its
	// stall watchdog paused meanwhile, so nothing is dropped and memory
	// stays what the tap holds. It must return promptly once Done is
	// closed, or Close waits for it.
	Event(raw []byte)
}

// SetTap makes t the hub's tap; nil removes it.
func (h *Hub) SetTap(t Tap) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tap = t
}

// Info describes a created resource.
type Info struct {
	ID     string
	Filter Filter
}

// Subscribe creates a resource for f, opening the connection when none is
// open. It refuses a 17th resource, an account other than the open
// connection's, and any new resource while the existing ones belong to a
// connection that has ended.
func (h *Hub) Subscribe(ctx context.Context, f Filter) (Info, error) {
	return h.subscribe(ctx, f, nil)
}

// SubscribeFunc is Subscribe for a reader inside this process (the
// channel): the resource's updates go to notify, under the same
// coalescing, instead of to the OnUpdate function, and it is read and
// released like any other.
func (h *Hub) SubscribeFunc(ctx context.Context, f Filter, notify func()) (Info, error) {
	return h.subscribe(ctx, f, notify)
}

func (h *Hub) subscribe(ctx context.Context, f Filter, notify func()) (Info, error) {
	f, err := f.Normalize()
	if err != nil {
		return Info{}, err
	}
	h.dialMu.Lock()
	defer h.dialMu.Unlock()

	h.mu.Lock()
	if err := h.admit(f); err != nil {
		h.mu.Unlock()
		return Info{}, err
	}
	if h.conn != nil {
		defer h.mu.Unlock()
		return h.addWith(h.conn, f, notify), nil
	}
	h.mu.Unlock()

	ws, err := dial(ctx, h.opts)
	if err != nil {
		return Info{}, err
	}
	c := &conn{ws: ws, selfID: f.SelfID, status: statusOpening, interval: DefaultHeartbeatInterval, closeCode: -1,
		done: make(chan struct{}), settled: make(chan struct{}), admitted: make(chan struct{})}
	c.watchdog = time.AfterFunc(StallHeartbeats*DefaultHeartbeatInterval, func() { h.stalled(c) })
	go h.read(c)

	// The upgrade alone proves nothing: wait for the greeting or a close.
	wait := time.NewTimer(GreetingWait)
	defer wait.Stop()
	greeted := false
	select {
	case <-c.settled:
		greeted = true
	case <-wait.C:
	case <-ctx.Done():
	}
	h.mu.Lock()
	var refusal error
	switch {
	case h.closed:
		refusal = errClosed()
	case c.status != statusOpening:
		refusal = greetingError(c)
	case !greeted && ctx.Err() != nil:
		refusal = waitError(ctx)
	}
	if refusal != nil {
		if c.status == statusOpening {
			c.status, c.reason = StatusStopped, "abandoned while opening"
		}
		close(c.admitted)
		h.mu.Unlock()
		ws.CloseNow()
		<-c.done
		return Info{}, refusal
	}
	defer h.mu.Unlock()
	c.status, c.reason = StatusConnected, "the event connection to SnowLuma is open; SnowLuma greeted it"
	if !greeted {
		c.reason = fmt.Sprintf("the event connection is open, but nothing arrived in the first %v (SnowLuma greets an accepted connection at once, so this may be another OneBot server)", GreetingWait)
	}
	h.conn = c
	info := h.addWith(c, f, notify)
	close(c.admitted)
	return info, nil
}

// greetingError says why c ended between the upgrade and its greeting.
// h.mu is held.
func greetingError(c *conn) *Error {
	switch {
	case c.closeCode == websocket.StatusPolicyViolation:
		return &Error{Code: CodeUnauthorized,
			Message:  "SnowLuma accepted the WebSocket upgrade, then closed it at once with status 1008" + closeReasonText(c.closeReason) + ": it refused the event connection's token",
			NextStep: "set SNOWLUMA_MCP_EVENTS_TOKEN to the access token of SnowLuma's WebSocket server (SnowLuma gives it a token of its own, separate from the HTTP server's; without SNOWLUMA_MCP_EVENTS_TOKEN, SNOWLUMA_MCP_TOKEN is sent) and restart the server"}
	case c.status == StatusStopped:
		return &Error{Code: CodeConnect, Message: "the event connection ended before it was open: " + c.reason,
			NextStep: "check self_id (get_login_info's user_id) and that SNOWLUMA_MCP_EVENTS_URL is SnowLuma's WebSocket server, then subscribe again"}
	}
	return &Error{Code: CodeConnect, Message: "the event connection ended right after the upgrade: " + c.reason,
		NextStep: "check SnowLuma's logs and its WebSocket server's configuration, then subscribe again"}
}

// waitError is the refusal when ctx ended while the greeting was awaited.
func waitError(ctx context.Context) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Message: "the time allowed ran out while waiting for SnowLuma to greet the event connection; no resource was created",
			NextStep: "check that SNOWLUMA_MCP_EVENTS_URL is SnowLuma's WebSocket server, then subscribe again"}
	}
	return &Error{Code: CodeCancelled, Message: "subscribing was cancelled while connecting; no resource was created", NextStep: "subscribe again if it is still wanted"}
}

// closeReasonText quotes a close frame's reason for a message, keeping
// only printable characters: it comes from the network.
func closeReasonText(reason string) string {
	clean := strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, reason)
	if clean == "" {
		return ", no reason given"
	}
	return fmt.Sprintf(", reason %q", clean)
}

// admit checks that a resource for f may be created. h.mu is held.
func (h *Hub) admit(f Filter) error {
	switch {
	case h.closed:
		return errClosed()
	case len(h.resources) >= MaxResources:
		return &Error{Code: CodeTooManyResources,
			Message:  fmt.Sprintf("%d event resources already exist, the most one server holds", MaxResources),
			NextStep: "release one you no longer read with unsubscribe_events {\"uri\": ...} (legacy clients: resources/unsubscribe), then subscribe again"}
	case h.conn == nil:
		return nil
	case h.conn.status != StatusConnected:
		return &Error{Code: CodeReleaseFirst,
			Message:  fmt.Sprintf("the event connection is %s (%s) and is never reopened silently; %d event resources still hold its buffers", h.conn.status, h.conn.reason, len(h.resources)),
			NextStep: "read what the existing resources hold, release each with unsubscribe_events, then subscribe again to open a new connection"}
	case h.conn.selfID != f.SelfID:
		return &Error{Code: CodeReleaseFirst,
			Message:  fmt.Sprintf("the event connection serves account %d, not %d", h.conn.selfID, f.SelfID),
			NextStep: "subscribe with self_id " + fmt.Sprint(h.conn.selfID) + ", or release every existing event resource with unsubscribe_events before changing accounts"}
	}
	return nil
}

// add creates a resource on c. h.mu is held.
func (h *Hub) add(c *conn, f Filter) Info { return h.addWith(c, f, nil) }

// addWith creates a resource on c whose updates go to notify, when set.
// h.mu is held.
func (h *Hub) addWith(c *conn, f Filter, notify func()) Info {
	r := &resource{filter: f, conn: c, notify: notify}
	rand.Read(r.id[:])
	h.resources = append(h.resources, r)
	return Info{ID: r.name(), Filter: f}
}

func errClosed() *Error {
	return &Error{Code: CodeClosed, Message: "the event service has shut down with the MCP session", NextStep: "start a new MCP session"}
}

// dial opens the WebSocket of opts with the token in the Authorization
// header. It follows no redirect: a 3xx answer is a failure that names
// where it pointed, so that the token goes to the configured host and port
// only.
func dial(ctx context.Context, opts Options) (*websocket.Conn, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DialTimeout)
		defer cancel()
	}
	hdr := http.Header{}
	if opts.Token != "" {
		hdr.Set("Authorization", "Bearer "+opts.Token)
	}
	if opts.UserAgent != "" {
		hdr.Set("User-Agent", opts.UserAgent)
	}
	client := &http.Client{Transport: guardTransport{base: http.DefaultTransport, limit: MaxFrame},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ws, resp, err := websocket.Dial(ctx, opts.URL, &websocket.DialOptions{HTTPHeader: hdr, HTTPClient: client})
	if err == nil {
		ws.SetReadLimit(MaxFrame)
		return ws, nil
	}
	const check = "check that SnowLuma is running with its WebSocket server enabled at SNOWLUMA_MCP_EVENTS_URL"
	switch {
	case resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		return nil, &Error{Code: CodeUnauthorized,
			Message:  fmt.Sprintf("the WebSocket server refused the event connection's token (HTTP %d)", resp.StatusCode),
			NextStep: "set SNOWLUMA_MCP_EVENTS_TOKEN (or SNOWLUMA_MCP_TOKEN, which it defaults to) to the WebSocket server's access token and restart the server"}
	case resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 400:
		return nil, &Error{Code: CodeConnect,
			Message:  fmt.Sprintf("the WebSocket upgrade was answered with a redirect (HTTP %d) to %s; the event connection follows no redirect, so nothing was sent there", resp.StatusCode, quote.Location(resp)),
			NextStep: "set SNOWLUMA_MCP_EVENTS_URL to SnowLuma's WebSocket server itself (SnowLuma never redirects an upgrade)"}
	case resp != nil && resp.StatusCode == http.StatusBadRequest:
		path := "/"
		if u, err := url.Parse(opts.URL); err == nil && u.Path != "" {
			path = u.Path
		}
		return nil, &Error{Code: CodeConnect,
			Message:  fmt.Sprintf("the WebSocket upgrade was refused with HTTP 400%s: the path %q is not one SnowLuma's WebSocket server serves", bodyText(resp), path),
			NextStep: "set SNOWLUMA_MCP_EVENTS_URL to the path configured in SnowLuma's WebSocket server; SnowLuma's default is /, as in ws://127.0.0.1:3001/"}
	case resp != nil:
		return nil, &Error{Code: CodeConnect,
			Message:  fmt.Sprintf("the WebSocket upgrade was answered with HTTP %d%s", resp.StatusCode, bodyText(resp)),
			NextStep: check}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, &Error{Code: CodeTimeout, Message: "opening the event connection timed out", NextStep: check + ", then subscribe again"}
	case errors.Is(ctx.Err(), context.Canceled):
		return nil, &Error{Code: CodeCancelled, Message: "subscribing was cancelled while connecting; no resource was created", NextStep: "subscribe again if it is still wanted"}
	}
	return nil, &Error{Code: CodeConnect, Message: "the event connection could not be opened: " + err.Error(), NextStep: check}
}

// bodyText quotes the start of a refused upgrade's body (SnowLuma says why
// in plain text), keeping printable characters only.
func bodyText(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	clean := strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, string(b)))
	if clean == "" || strings.HasPrefix(clean, "<") {
		return ""
	}
	return fmt.Sprintf(" (%q)", clean)
}

// read feeds c's frames to the resources until the socket ends. After the
// first frame it waits for Subscribe to add the resource, so that no
// event passes before it exists.
func (h *Hub) read(c *conn) {
	defer close(c.done)
	defer c.settle.Do(func() { close(c.settled) })
	defer c.watchdog.Stop()
	h.mu.Lock()
	tap := h.tap
	h.mu.Unlock()
	if tap != nil {
		tap.Connected()
	}
	for first := true; ; first = false {
		typ, raw, err := c.ws.Read(context.Background())
		if err != nil {
			h.ended(c, err)
			return
		}
		if typ != websocket.MessageText {
			h.stop(c, websocket.StatusUnsupportedData, "SnowLuma sent a binary frame; events are JSON text frames")
			return
		}
		if code, reason := h.ingest(c, raw); reason != "" {
			h.stop(c, code, reason)
			return
		}
		// After ingest, so that a heartbeat announcing an interval
		// re-arms the watchdog with that interval, not the one before.
		h.alive(c)
		if first {
			c.settle.Do(func() { close(c.settled) })
			<-c.admitted
		}
	}
}

// alive restarts c's stall watchdog: a frame has just arrived.
func (h *Hub) alive(c *conn) {
	h.mu.Lock()
	iv := c.interval
	h.mu.Unlock()
	c.watchdog.Reset(StallHeartbeats * iv)
}

// stalled drops c, from which nothing arrived for StallHeartbeats
// intervals. It also ends a read stuck inside a frame whose header
// announced bytes that never came.
func (h *Hub) stalled(c *conn) {
	h.mu.Lock()
	iv, announced := c.interval, c.announced
	h.mu.Unlock()
	of := "its announced heartbeat interval"
	if !announced {
		of = "the assumed heartbeat interval (none was announced)"
	}
	h.setStatus(c, StatusDisconnected, fmt.Sprintf("the connection stalled: nothing arrived from SnowLuma for %v, %d times %s of %v, so this server dropped it", StallHeartbeats*iv, StallHeartbeats, of, iv))
	c.ws.CloseNow()
}

// ingest routes one frame to the resources whose filter it passes. A frame
// that must stop the connection returns the close code and the reason.
func (h *Hub) ingest(c *conn, raw []byte) (websocket.StatusCode, string) {
	f, err := parseFrame(raw)
	if err != nil {
		return websocket.StatusInvalidFramePayloadData, "SnowLuma sent a malformed event (not a JSON object with a post_type), so this server stopped the connection"
	}
	if !f.hasSelf || f.selfID != c.selfID {
		got := "no self_id"
		if f.hasSelf {
			got = fmt.Sprintf("self_id %d", f.selfID)
		}
		return websocket.StatusPolicyViolation, fmt.Sprintf("an event with %s arrived on the connection subscribed for account %d, so this server stopped the connection", got, c.selfID)
	}
	if f.category == "" {
		h.mu.Lock()
		if f.lifecycleDisable {
			c.sawDisable = true
		}
		if f.heartbeat > 0 {
			c.interval, c.announced = max(f.heartbeat, MinHeartbeatInterval), true
		}
		h.mu.Unlock()
		return 0, ""
	}
	if !h.allowed(f) {
		return 0, ""
	}
	h.mu.Lock()
	tap := h.tap
	h.mu.Unlock()
	if tap != nil {
		// A tap that waits is back-pressure, not a stalled SnowLuma: read
		// re-arms the watchdog once the frame is through.
		c.watchdog.Stop()
		tap.Event(raw)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.resources {
		if r.conn == c && r.filter.match(f) {
			r.add(raw)
			h.changed(r)
		}
	}
	return 0, ""
}

// allowed reports whether f names only allowed groups and users.
func (h *Hub) allowed(f *frame) bool {
	if h.opts.AllowGroups != nil && f.hasGroup && !slices.Contains(h.opts.AllowGroups, f.groupID) {
		return false
	}
	if h.opts.AllowUsers != nil && f.hasUser && !slices.Contains(h.opts.AllowUsers, f.userID) {
		return false
	}
	return true
}

// stop ends c on this server's side for reason.
func (h *Hub) stop(c *conn, code websocket.StatusCode, reason string) {
	h.setStatus(c, StatusStopped, reason)
	c.ws.Close(code, "")
}

// ended records why c's socket ended, unless this server ended it first.
func (h *Hub) ended(c *conn, err error) {
	if errors.Is(err, websocket.ErrMessageTooBig) {
		h.setStatus(c, StatusStopped, fmt.Sprintf("SnowLuma sent a frame over the %d KiB limit, so this server stopped the connection", MaxFrame>>10))
		c.ws.CloseNow()
		return
	}
	if errors.Is(err, errAnnouncedTooBig) {
		h.setStatus(c, StatusStopped, fmt.Sprintf("SnowLuma announced a frame over the %d KiB limit, so this server stopped the connection before reading it", MaxFrame>>10))
		c.ws.Close(websocket.StatusMessageTooBig, "")
		return
	}
	var ce websocket.CloseError
	h.mu.Lock()
	disable := c.sawDisable
	if errors.As(err, &ce) {
		c.closeCode, c.closeReason = ce.Code, ce.Reason
	}
	h.mu.Unlock()
	var reason string
	switch {
	case disable:
		reason = "SnowLuma shut down (lifecycle disable) and closed the connection"
	case ce.Code != 0:
		reason = fmt.Sprintf("SnowLuma closed the connection (WebSocket status %d%s)", int(ce.Code), closeReasonText(ce.Reason))
	default:
		reason = "the connection to SnowLuma failed: " + err.Error()
	}
	h.setStatus(c, StatusDisconnected, reason)
	c.ws.CloseNow()
}

// setStatus moves a connected c to status and tells its resources. A
// connection that already ended keeps its first status.
func (h *Hub) setStatus(c *conn, status Status, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.status != StatusConnected && c.status != statusOpening {
		return
	}
	c.status, c.reason = status, reason+" at "+time.Now().UTC().Format(time.RFC3339)
	for _, r := range h.resources {
		if r.conn == c {
			h.changed(r)
		}
	}
}

// changed schedules r's update call, coalescing to one per UpdateInterval.
// h.mu is held.
func (h *Hub) changed(r *resource) {
	if r.pending || (h.onUpdate == nil && r.notify == nil) {
		return
	}
	r.pending = true
	time.AfterFunc(time.Until(r.lastUpdate.Add(UpdateInterval)), func() {
		h.mu.Lock()
		r.pending = false
		if r.released {
			h.mu.Unlock()
			return
		}
		r.lastUpdate = time.Now()
		id, f, notify := r.name(), h.onUpdate, r.notify
		h.mu.Unlock()
		if notify != nil {
			notify()
			return
		}
		if f != nil {
			f(id)
		}
	})
}

// find returns the live resource with id. h.mu is held.
func (h *Hub) find(id string) (int, *resource, error) {
	for i, r := range h.resources {
		if r.name() == id {
			return i, r, nil
		}
	}
	return -1, nil, &Error{Code: CodeUnknownResource,
		Message:  "no live event resource has that URI (it was never created, or it was released)",
		NextStep: "call subscribe_events and use the uri it returns"}
}

// Read returns the entries of resource id newer than the after cursor (all
// held entries when after is empty), with the status and loss counters.
func (h *Hub) Read(id, after string) (Snapshot, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, r, err := h.find(id)
	if err != nil {
		return Snapshot{}, err
	}
	var seq int64
	if after != "" {
		if seq, err = r.parseCursor(after); err != nil {
			return Snapshot{}, err
		}
	}
	return r.snapshot(seq), nil
}

// Exists reports whether id is a live resource.
func (h *Hub) Exists(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, _, err := h.find(id)
	return err == nil
}

// NotificationFailed records that an update notification for id could not
// be delivered; reads of id say so from then on.
func (h *Hub) NotificationFailed(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, r, err := h.find(id); err == nil {
		r.notificationFailed = true
	}
}

// Release drops resource id and its buffer. Releasing the last resource
// closes the connection.
func (h *Hub) Release(id string) error {
	h.mu.Lock()
	i, r, err := h.find(id)
	if err != nil {
		h.mu.Unlock()
		return err
	}
	r.released = true
	h.resources = slices.Delete(h.resources, i, i+1)
	var last *conn
	if len(h.resources) == 0 {
		last, h.conn = h.conn, nil
		if last.status == StatusConnected {
			last.status, last.reason = StatusStopped, "the last event resource was released"
		}
	}
	h.mu.Unlock()
	if last != nil {
		last.ws.Close(websocket.StatusNormalClosure, "")
		<-last.done
	}
	return nil
}

// Close releases every resource and closes the connection cleanly: the MCP
// session has ended. Later calls are refused.
func (h *Hub) Close() {
	h.mu.Lock()
	if !h.closed {
		close(h.done)
	}
	h.closed = true
	for _, r := range h.resources {
		r.released = true
	}
	h.resources = nil
	c := h.conn
	h.conn = nil
	if c != nil && c.status == StatusConnected {
		c.status, c.reason = StatusStopped, "the MCP session ended"
	}
	h.mu.Unlock()
	if c != nil {
		c.ws.Close(websocket.StatusNormalClosure, "")
		<-c.done
	}
}

// State reports the connection's status and the number of live resources.
func (h *Hub) State() State {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conn == nil {
		return State{Status: StatusNotConnected, Reason: "no event resource exists; subscribe_events opens the connection"}
	}
	st := h.conn.state()
	st.Resources = len(h.resources)
	return st
}
