// Package transfer is everything that crosses HTTP to SnowLuma: the action
// client, stream frame reading and the classification of what went wrong.
//
// A Client sends one OneBot action per call and never retries: a call that
// timed out or was cancelled may still have been carried out by SnowLuma, and
// only the caller can decide what to do about that. Answers are kept as the
// exact bytes SnowLuma sent, so negative message ids, large integers, numbers
// sent as strings and the difference between null and {} all survive.
package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// Limits applied when the corresponding Options field is zero.
const (
	// DefaultTimeout bounds an ordinary call: connecting, sending, waiting for
	// the headers and reading the body. Streams do not use it.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxResponseBytes caps the body of one ordinary answer.
	DefaultMaxResponseBytes = 16 << 20
	// DefaultMaxStreamBytes caps the total body of one stream answer.
	DefaultMaxStreamBytes = 64 << 20
	// DefaultStreamIdleTimeout is the longest wait for the next bytes of a
	// stream: its response headers, or the next read of its body.
	DefaultStreamIdleTimeout = 60 * time.Second
	// DefaultStreamConnectTimeout bounds connecting to SnowLuma and sending
	// a stream call's request.
	DefaultStreamConnectTimeout = 10 * time.Second
	// DefaultMaxBodyBytes caps the body of one request: SnowLuma cuts off a
	// longer body and destroys its connection before any action runs.
	DefaultMaxBodyBytes = 2 << 20
	// DefaultMaxStreams is how many stream calls may run at once.
	DefaultMaxStreams = 4
	// IdleConns is how many idle keep-alive connections to SnowLuma the
	// default client keeps: one per call of a 64-wide burst, the widest
	// the server is measured and sized for. Go's default of 2 per host made
	// every such burst dial about 62 new connections.
	IdleConns = 64
)

// Options configure a Client.
type Options struct {
	// Endpoint is SnowLuma's HTTP endpoint, an absolute http or https URL
	// such as http://127.0.0.1:3000/, without query or fragment. Each
	// action is posted to <endpoint>/<action>, the form in which SnowLuma
	// takes the action from the path, so that path and body always agree.
	Endpoint string
	// Token, when not empty, is sent as "Authorization: Bearer <token>" and
	// nowhere else: never in URLs, error messages or logs.
	Token string
	// Timeout bounds each ordinary call, covering connect, headers and body.
	// Streams use StreamConnectTimeout and StreamIdleTimeout instead. Zero
	// means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes caps the body of one ordinary answer. Zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxStreamBytes caps the total body of one stream answer. Zero means
	// DefaultMaxStreamBytes.
	MaxStreamBytes int64
	// StreamIdleTimeout is the longest wait for the next bytes of a stream:
	// its response headers once the request is sent, and each read of its
	// body. A long stream that keeps moving never times out. Zero means
	// DefaultStreamIdleTimeout.
	StreamIdleTimeout time.Duration
	// UserAgent, when not empty, is the User-Agent header of every request
	// (snowluma-mcp/<version>), so that SnowLuma's logs and any proxy
	// between show who is calling.
	UserAgent string
	// StreamConnectTimeout bounds connecting to SnowLuma and sending the
	// request of a stream call. Zero means DefaultStreamConnectTimeout.
	StreamConnectTimeout time.Duration
	// MaxBodyBytes caps the body of one request. A call whose body would be
	// longer fails with outcome.KindTooLarge before anything is sent, and upload
	// chunks are cut to fit under it. Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxStreams is how many stream calls (Stream, Download, Upload) may run
	// at once; one more fails at once with outcome.KindBusy. Zero means
	// DefaultMaxStreams.
	MaxStreams int
	// HTTPClient, when set, sends the requests. The default client follows
	// no redirects, ignores proxy settings from the environment, since
	// SnowLuma normally runs on the same host, and keeps up to IdleConns
	// connections alive for reuse.
	HTTPClient *http.Client
}

// Client sends OneBot actions to one SnowLuma instance. It is safe for
// concurrent use.
type Client struct {
	endpoint    *url.URL
	maxBody     int64
	token       string
	userAgent   string
	timeout     time.Duration
	maxResponse int64
	maxStream   int64
	idle        time.Duration
	connect     time.Duration
	slots       chan struct{} // one token per running stream call
	hc          *http.Client
}

// New returns a Client for opts.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(opts.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("transfer: the endpoint must be an absolute http or https URL")
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, errors.New("transfer: the endpoint must have no credentials, query or fragment")
	}
	if opts.Timeout < 0 || opts.MaxResponseBytes < 0 || opts.MaxStreamBytes < 0 || opts.StreamIdleTimeout < 0 ||
		opts.StreamConnectTimeout < 0 || opts.MaxStreams < 0 || opts.MaxBodyBytes < 0 {
		return nil, errors.New("transfer: timeouts and limits must not be negative")
	}
	c := &Client{
		endpoint:    u,
		maxBody:     orDefault(opts.MaxBodyBytes, DefaultMaxBodyBytes),
		token:       opts.Token,
		userAgent:   opts.UserAgent,
		timeout:     orDefault(opts.Timeout, DefaultTimeout),
		maxResponse: orDefault(opts.MaxResponseBytes, DefaultMaxResponseBytes),
		maxStream:   orDefault(opts.MaxStreamBytes, DefaultMaxStreamBytes),
		idle:        orDefault(opts.StreamIdleTimeout, DefaultStreamIdleTimeout),
		connect:     orDefault(opts.StreamConnectTimeout, DefaultStreamConnectTimeout),
		slots:       make(chan struct{}, orDefault(opts.MaxStreams, DefaultMaxStreams)),
		hc:          opts.HTTPClient,
	}
	if c.hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = nil
		t.DisableKeepAlives = false
		t.MaxIdleConns = IdleConns
		t.MaxIdleConnsPerHost = IdleConns
		c.hc = &http.Client{
			Transport: t,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	return c, nil
}

// Limits are a client's effective timeouts and caps.
type Limits struct {
	Timeout              time.Duration
	MaxBodyBytes         int64
	MaxResponseBytes     int64
	MaxStreamBytes       int64
	StreamIdleTimeout    time.Duration
	StreamConnectTimeout time.Duration
	MaxStreams           int
}

// Limits reports the timeouts and caps c applies, defaults filled in.
func (c *Client) Limits() Limits {
	return Limits{Timeout: c.timeout, MaxBodyBytes: c.maxBody, MaxResponseBytes: c.maxResponse, MaxStreamBytes: c.maxStream,
		StreamIdleTimeout: c.idle, StreamConnectTimeout: c.connect, MaxStreams: cap(c.slots)}
}

// acquire takes one of the stream slots for op, or fails at once with
// outcome.KindBusy when every slot is taken. The caller calls the release function
// it returns when its stream call ends.
func (c *Client) acquire(op string) (release func(), err error) {
	select {
	case c.slots <- struct{}{}:
		return func() { <-c.slots }, nil
	default:
		return nil, c.fail(op, 0, outcome.KindBusy, fmt.Errorf("%d stream calls are already running, the most allowed at once", cap(c.slots)))
	}
}

// orDefault returns v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Request is one OneBot action call.
type Request struct {
	// Action is the OneBot action name, such as "get_status".
	Action string
	// Params is the action's parameters, a JSON object sent byte for byte.
	// Nil or empty means {}.
	Params json.RawMessage
	// Header holds extra HTTP headers for this call, such as trace context.
	// They travel as headers only, never inside the params.
	Header http.Header
}

// Response is SnowLuma's answer to an ordinary call: one OneBot envelope.
// A business failure (status "failed", a non-zero retcode, or an envelope
// with a 4xx or 5xx HTTP status) is a Response, not an error.
type Response struct {
	// Envelope is the body exactly as received.
	Envelope json.RawMessage
	// Status is the envelope's "status": "ok", "failed", "async", ...
	Status string
	// Retcode is the envelope's "retcode" as sent.
	Retcode json.Number
	// HTTPStatus is the HTTP status code of the answer.
	HTTPStatus int
}

// Call sends req to SnowLuma and returns its answer. It never retries.
//
// The call is bounded by the client's Timeout and by ctx: cancelling ctx
// aborts both the request and the reading of the answer. Failures are
// reported as *Error values with a Kind saying why.
func (c *Client) Call(ctx context.Context, req Request) (*Response, error) {
	body, err := requestBody(req)
	if err != nil {
		return nil, err
	}
	limit := &deadline{fmt.Sprintf("no answer within %v", c.timeout)}
	callCtx, cancel := context.WithTimeoutCause(ctx, c.timeout, limit)
	defer cancel()

	hreq, err := c.newRequest(callCtx, req, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return nil, c.failure(ctx, callCtx, req.Action, 0, "could not reach SnowLuma", err)
	}
	defer resp.Body.Close()
	if e := c.checkStatus(req.Action, resp); e != nil {
		return nil, e
	}

	raw, err := io.ReadAll(io.LimitReader(resp.Body, c.maxResponse+1))
	if err != nil {
		return nil, c.failure(ctx, callCtx, req.Action, resp.StatusCode, "connection lost while reading the answer", err)
	}
	if int64(len(raw)) > c.maxResponse {
		return nil, c.fail(req.Action, resp.StatusCode, outcome.KindTooLarge,
			fmt.Errorf("answer larger than %d bytes", c.maxResponse))
	}
	env, err := parseEnvelope(raw, "answer")
	if err != nil {
		return nil, c.fail(req.Action, resp.StatusCode, outcome.KindProtocol, notEnvelope(resp, err))
	}
	return &Response{
		Envelope:   raw,
		Status:     env.Status,
		Retcode:    env.Retcode,
		HTTPStatus: resp.StatusCode,
	}, nil
}

// requestBody builds {"action": ..., "params": ...} with the params bytes
// untouched.
func requestBody(req Request) ([]byte, error) {
	if req.Action == "" {
		return nil, errors.New("transfer: a request needs an action name")
	}
	params := bytes.Trim(req.Params, jsonSpace)
	if len(params) == 0 {
		params = []byte("{}")
	} else if params[0] != '{' || !json.Valid(params) {
		return nil, fmt.Errorf("transfer: %s: params must be a JSON object", req.Action)
	}
	name, err := json.Marshal(req.Action)
	if err != nil {
		return nil, fmt.Errorf("transfer: encoding the action name: %w", err)
	}
	body := make([]byte, 0, len(`{"action":,"params":}`)+len(name)+len(params))
	body = append(body, `{"action":`...)
	body = append(body, name...)
	body = append(body, `,"params":`...)
	body = append(body, params...)
	body = append(body, '}')
	return body, nil
}

// ActionURL is where req's action is posted: the endpoint with the action
// name as one more path element, whether or not the endpoint ends in "/".
func (c *Client) ActionURL(action string) string {
	return c.endpoint.JoinPath(url.PathEscape(action)).String()
}

// newRequest builds the POST for req to <endpoint>/<action>. The caller's
// headers come first so that they cannot replace the content type or the
// credentials. A body over the request cap is refused with outcome.KindTooLarge:
// SnowLuma would cut it off and drop the connection without an answer.
func (c *Client) newRequest(ctx context.Context, req Request, body []byte) (*http.Request, error) {
	if int64(len(body)) > c.maxBody {
		return nil, c.fail(req.Action, 0, outcome.KindTooLarge, &bodyLimitError{int64(len(body)), c.maxBody})
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.ActionURL(req.Action), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("transfer: %s: building the request: %w", req.Action, err)
	}
	for k, vs := range req.Header {
		hreq.Header[k] = slices.Clone(vs)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.userAgent != "" {
		hreq.Header.Set("User-Agent", c.userAgent)
	}
	hreq.Header.Del("Authorization")
	if c.token != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.token)
	}
	return hreq, nil
}

// checkStatus reports the HTTP statuses that are failures whatever the body
// says: refused credentials and redirects, which are never followed, so the
// token goes nowhere but the configured endpoint.
func (c *Client) checkStatus(op string, resp *http.Response) *Error {
	status := resp.StatusCode
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		what := "SnowLuma refused the token"
		if c.token == "" {
			what = "SnowLuma requires a token"
		}
		return c.fail(op, status, outcome.KindUnauthorized, fmt.Errorf("%s (HTTP %d)", what, status))
	case status >= 300 && status < 400:
		return c.fail(op, status, outcome.KindProtocol,
			fmt.Errorf("the endpoint answered with a redirect (HTTP %d) to %s, which is not followed; set SNOWLUMA_MCP_ENDPOINT to SnowLuma's own address", status, quote.Location(resp)))
	}
	return nil
}

// notEnvelope explains an answer that is not a OneBot envelope by what came
// instead: the HTTP status and content type, which usually show that the
// endpoint is some other web server or the wrong path of this one. err says
// what is wrong with the body, never quoting it.
func notEnvelope(resp *http.Response, err error) error {
	return fmt.Errorf("HTTP %d, %s: not a OneBot envelope (%w); check the endpoint path", resp.StatusCode, mediaType(resp.Header.Get("Content-Type")), err)
}

// mediaType names a Content-Type header for a message: its media type
// alone, without parameters, or what is wrong with it.
func mediaType(contentType string) string {
	if strings.TrimSpace(contentType) == "" {
		return "no content type"
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || len(mt) > 100 {
		return "an unreadable content type"
	}
	return mt
}

// A deadline is one of the client's own time limits. It is the cause given
// to the context the limit cancels, so that a failure can be traced to it.
type deadline struct{ what string }

func (d *deadline) Error() string { return d.what }

// failure classifies err, an error from sending a request or reading its
// answer. parent is the caller's context and ctx the one derived for the
// call; doing says what was going on, for transport failures.
func (c *Client) failure(parent, ctx context.Context, op string, status int, doing string, err error) *Error {
	if perr := parent.Err(); perr != nil {
		if errors.Is(perr, context.Canceled) {
			return c.fail(op, status, outcome.KindCancelled, fmt.Errorf("cancelled by the caller: %w", perr))
		}
		return c.fail(op, status, outcome.KindTimeout, fmt.Errorf("the caller's deadline passed: %w", perr))
	}
	var dl *deadline
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &dl) {
		return c.fail(op, status, outcome.KindTimeout, fmt.Errorf("%s: %w", dl.what, context.DeadlineExceeded))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the method and URL
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return c.fail(op, status, outcome.KindTimeout, fmt.Errorf("%s: %w", doing, err))
	}
	return c.fail(op, status, outcome.KindTransport, fmt.Errorf("%s: %w", doing, err))
}

// fail builds an Error, making sure that the token cannot leak through the
// message of some underlying error.
func (c *Client) fail(op string, status int, kind outcome.Kind, err error) *Error {
	if c.token != "" && strings.Contains(err.Error(), c.token) {
		err = errors.New(strings.ReplaceAll(err.Error(), c.token, "[redacted]"))
	}
	return &Error{Kind: kind, Op: op, HTTPStatus: status, Err: err}
}

// jsonSpace is the whitespace JSON allows between tokens.
const jsonSpace = " \t\r\n"

// envelope is the part of a OneBot envelope the client looks at.
type envelope struct {
	Status  string          `json:"status"`
	Retcode json.Number     `json:"retcode"`
	Data    json.RawMessage `json:"data"`
}

// parseEnvelope checks that raw is a single JSON object with a status and
// returns the fields the client needs. Its errors name raw as what ("answer"
// or "stream frame") and describe the shape of the problem, never its content.
func parseEnvelope(raw []byte, what string) (envelope, error) {
	var env envelope
	trimmed := bytes.TrimLeft(raw, jsonSpace)
	if len(trimmed) == 0 {
		return env, fmt.Errorf("empty %s where a JSON envelope was expected", what)
	}
	if trimmed[0] != '{' {
		return env, fmt.Errorf("%s is not a JSON object", what)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(&env); err != nil {
		// The decoder's own messages can quote the input, so they are
		// summarised rather than passed on.
		var syn *json.SyntaxError
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return env, fmt.Errorf("%s is a truncated JSON object", what)
		case errors.As(err, &syn):
			return env, fmt.Errorf("%s is not valid JSON (at byte %d)", what, syn.Offset)
		default:
			return env, fmt.Errorf("%s has a status or retcode of the wrong type", what)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return env, fmt.Errorf("%s has data after its JSON object", what)
	}
	if env.Status == "" {
		return env, fmt.Errorf("%s has no envelope status", what)
	}
	return env, nil
}
