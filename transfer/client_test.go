package transfer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
	"github.com/snowluma/snowluma-mcp/internal/simulator/simtest"
)

const testToken = "s3cret-token-value"

// newTestClient starts a loopback server running h and returns a client for
// it with the test token, adjusted by edit.
func newTestClient(t *testing.T, h http.HandlerFunc, edit func(*Options)) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	opts := Options{Endpoint: srv.URL + "/", Token: testToken, UserAgent: "snowluma-mcp/test"}
	if edit != nil {
		edit(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// answer returns a handler that answers every request with status and body.
func answer(status int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// checkError asserts that err is an *Error of kind want for action op and
// that its message does not leak the token.
func checkError(t *testing.T, err error, op string, want outcome.Kind) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *Error of kind %s", err, err, want)
	}
	if e.Kind != want {
		t.Fatalf("kind %q (%v), want %q", e.Kind, err, want)
	}
	if e.Op != op {
		t.Errorf("Op %q, want %q", e.Op, op)
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	if strings.Contains(msg, testToken) {
		t.Errorf("error message leaks the token: %s", msg)
	}
	if !strings.HasPrefix(msg, "snowluma: "+op+": ") {
		t.Errorf("error message %q lacks the snowluma: %s: prefix", msg, op)
	}
	return e
}

func TestNewValidates(t *testing.T) {
	for _, opts := range []Options{
		{Endpoint: ""},
		{Endpoint: "127.0.0.1:3000"},
		{Endpoint: "ftp://127.0.0.1/"},
		{Endpoint: "http:///path"},
		{Endpoint: "http://127.0.0.1/", Timeout: -1},
		{Endpoint: "http://127.0.0.1/", MaxStreamBytes: -1},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) succeeded", opts)
		}
	}
	if _, err := New(Options{Endpoint: "https://snowluma.example:3000/"}); err != nil {
		t.Errorf("New with an https endpoint: %v", err)
	}
}

func TestCallSendsRequestAndPreservesEnvelope(t *testing.T) {
	const envelope = `{"status":"ok","retcode":0,"data":{"message_id":-2147483648,"seq":12345678901234567890,` +
		`"file_size":"1024","ratio":1.50,"extra":{},"none":null},"message":"","wording":""}`
	var got struct {
		method, contentType, auth, trace, body, userAgent string
	}
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.body = r.Method, string(b)
		got.contentType = r.Header.Get("Content-Type")
		got.auth = r.Header.Get("Authorization")
		got.trace = r.Header.Get("Traceparent")
		got.userAgent = r.Header.Get("User-Agent")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, envelope)
	}, nil)

	header := http.Header{}
	header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	header.Set("Authorization", "Bearer not-this-one")
	header.Set("User-Agent", "not-this-one-either")
	resp, err := c.Call(context.Background(), Request{
		Action: "get_msg",
		Params: json.RawMessage(`{"message_id":-2147483648,"seq":12345678901234567890}`),
		Header: header,
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Envelope) != envelope {
		t.Errorf("envelope changed:\n got %s\nwant %s", resp.Envelope, envelope)
	}
	if resp.Status != "ok" || resp.Retcode != "0" || resp.HTTPStatus != 200 {
		t.Errorf("status %q retcode %q http %d", resp.Status, resp.Retcode, resp.HTTPStatus)
	}
	if want := `{"action":"get_msg","params":{"message_id":-2147483648,"seq":12345678901234567890}}`; got.body != want {
		t.Errorf("request body %s, want %s", got.body, want)
	}
	if got.method != http.MethodPost || got.contentType != "application/json" {
		t.Errorf("method %s content type %q", got.method, got.contentType)
	}
	if got.auth != "Bearer "+testToken {
		t.Errorf("Authorization %q, want the client's token", got.auth)
	}
	if got.trace == "" {
		t.Error("the request's extra headers were not sent")
	}
	if got.userAgent != "snowluma-mcp/test" {
		t.Errorf("User-Agent %q, want the client's snowluma-mcp/test", got.userAgent)
	}
}

// TestProtocolFailureSaysWhatCame checks that an answer that is not a
// OneBot envelope is explained by its HTTP status and content type, which
// point at a wrong endpoint path, without quoting the body.
func TestProtocolFailureSaysWhatCame(t *testing.T) {
	for _, tc := range []struct {
		h    http.HandlerFunc
		want string
	}{
		{answer(404, "text/plain; charset=utf-8", "404 page not found"), "HTTP 404, text/plain: not a OneBot envelope"},
		{answer(200, "text/html", "<html>hello</html>"), "HTTP 200, text/html: not a OneBot envelope"},
		{answer(502, "", ""), "HTTP 502, no content type: not a OneBot envelope"},
		{answer(200, "application/json", `{"retcode":0}`), "HTTP 200, application/json: not a OneBot envelope (answer has no envelope status)"},
		{answer(200, "text/html; charset", "x"), "HTTP 200, an unreadable content type: not a OneBot envelope"},
	} {
		c := newTestClient(t, tc.h, nil)
		_, err := c.Call(context.Background(), Request{Action: "get_status"})
		e := checkError(t, err, "get_status", outcome.KindProtocol)
		if !strings.Contains(e.Error(), tc.want) || !strings.HasSuffix(e.Error(), "; check the endpoint path") {
			t.Errorf("message %q, want %q ... check the endpoint path", e.Error(), tc.want)
		}
		if strings.Contains(e.Error(), "page not found") || strings.Contains(e.Error(), "hello") {
			t.Errorf("message quotes the body: %q", e.Error())
		}
	}
}

func TestCallEmptyParamsAndNoToken(t *testing.T) {
	var body string
	var hasAuth bool
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		_, hasAuth = r.Header["Authorization"]
		io.WriteString(w, `{"status":"ok","retcode":0,"data":null}`)
	}, func(o *Options) { o.Token = "" })
	resp, err := c.Call(context.Background(), Request{Action: "get_status"})
	if err != nil {
		t.Fatal(err)
	}
	if body != `{"action":"get_status","params":{}}` {
		t.Errorf("request body %s", body)
	}
	if hasAuth {
		t.Error("Authorization sent without a token")
	}
	if string(resp.Envelope) != `{"status":"ok","retcode":0,"data":null}` {
		t.Errorf("envelope %s", resp.Envelope)
	}
}

func TestCallRejectsBadRequests(t *testing.T) {
	c := newTestClient(t, answer(200, "", `{"status":"ok","retcode":0}`), nil)
	for _, req := range []Request{
		{Action: ""},
		{Action: "get_msg", Params: json.RawMessage(`[1]`)},
		{Action: "get_msg", Params: json.RawMessage(`{"a":`)},
		{Action: "get_msg", Params: json.RawMessage(`null`)},
	} {
		if _, err := c.Call(context.Background(), req); err == nil {
			t.Errorf("Call(%q, %s) succeeded", req.Action, req.Params)
		}
	}
}

func TestCallReturnsErrorEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
	}{
		{400, `{"status":"failed","retcode":1400,"data":null,"message":"bad request","wording":"bad request"}`},
		{404, `{"status":"failed","retcode":1404,"data":null,"message":"unknown action","wording":"unknown action"}`},
		{405, `{"status":"failed","retcode":1405,"data":null,"wording":"method not allowed"}`},
		{500, `{"status":"failed","retcode":1200,"data":null,"wording":"internal error"}`},
		{200, `{"status":"async","retcode":1,"data":null}`},
		{200, `{"status":"failed","retcode":100,"data":null,"wording":"message not found"}`},
	} {
		c := newTestClient(t, answer(tc.status, "application/json", tc.body), nil)
		resp, err := c.Call(context.Background(), Request{Action: "some_action"})
		if err != nil {
			t.Errorf("HTTP %d envelope: %v", tc.status, err)
			continue
		}
		if resp.HTTPStatus != tc.status || string(resp.Envelope) != tc.body {
			t.Errorf("HTTP %d: got %d %s", tc.status, resp.HTTPStatus, resp.Envelope)
		}
		var env struct {
			Status  string          `json:"status"`
			Retcode json.RawMessage `json:"retcode"`
		}
		if err := json.Unmarshal([]byte(tc.body), &env); err != nil {
			t.Fatal(err)
		}
		if resp.Status != env.Status || string(resp.Retcode) != string(env.Retcode) {
			t.Errorf("HTTP %d: status %q retcode %q", tc.status, resp.Status, resp.Retcode)
		}
	}
}

func TestCallFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      http.HandlerFunc
		edit   func(*Options)
		want   outcome.Kind
		status int
	}{
		{"401 envelope", answer(401, "application/json", `{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`), nil, outcome.KindUnauthorized, 401},
		{"403 html", answer(403, "text/html", `<html>forbidden</html>`), nil, outcome.KindUnauthorized, 403},
		{"empty body", answer(200, "application/json", ``), nil, outcome.KindProtocol, 200},
		{"blank body", answer(200, "application/json", " \r\n"), nil, outcome.KindProtocol, 200},
		{"html", answer(200, "text/html", `<html><body>hello</body></html>`), nil, outcome.KindProtocol, 200},
		{"array", answer(200, "application/json", `[{"status":"ok"}]`), nil, outcome.KindProtocol, 200},
		{"null", answer(200, "application/json", `null`), nil, outcome.KindProtocol, 200},
		{"trailing garbage", answer(200, "application/json", `{"status":"ok","retcode":0} x`), nil, outcome.KindProtocol, 200},
		{"two objects", answer(200, "application/json", `{"status":"ok","retcode":0}{"status":"ok"}`), nil, outcome.KindProtocol, 200},
		{"truncated", answer(200, "application/json", `{"status":"ok","retcode":0,"data":{"a":`), nil, outcome.KindProtocol, 200},
		{"no status", answer(200, "application/json", `{"retcode":0,"data":null}`), nil, outcome.KindProtocol, 200},
		{"status not a string", answer(200, "application/json", `{"status":1,"retcode":0}`), nil, outcome.KindProtocol, 200},
		{"500 html", answer(500, "text/html", `<h1>Internal Server Error</h1>`), nil, outcome.KindProtocol, 500},
		{"502 empty", answer(502, "", ``), nil, outcome.KindProtocol, 502},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusFound)
		}, nil, outcome.KindProtocol, 302},
		{"too large", answer(200, "application/json", `{"status":"ok","retcode":0,"data":"`+strings.Repeat("x", 100)+`"}`),
			func(o *Options) { o.MaxResponseBytes = 64 }, outcome.KindTooLarge, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestClient(t, tc.h, tc.edit)
			resp, err := c.Call(context.Background(), Request{Action: "get_status"})
			if err == nil {
				t.Fatalf("got a response %s, want an error", resp.Envelope)
			}
			e := checkError(t, err, "get_status", tc.want)
			if e.HTTPStatus != tc.status {
				t.Errorf("HTTPStatus %d, want %d", e.HTTPStatus, tc.status)
			}
			if strings.Contains(err.Error(), "hello") || strings.Contains(err.Error(), "xxx") {
				t.Errorf("error message quotes the body: %v", err)
			}
		})
	}
}

func TestCallAtTheCap(t *testing.T) {
	body := `{"status":"ok","retcode":0}`
	c := newTestClient(t, answer(200, "application/json", body), func(o *Options) {
		o.MaxResponseBytes = int64(len(body))
	})
	if _, err := c.Call(context.Background(), Request{Action: "get_status"}); err != nil {
		t.Fatalf("a body exactly at the cap: %v", err)
	}
}

func TestCallTransportFailures(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c, err := New(Options{Endpoint: "http://" + addr + "/", Token: testToken})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Call(context.Background(), Request{Action: "get_status"})
		checkError(t, err, "get_status", outcome.KindTransport)
		if !strings.Contains(err.Error(), "could not reach SnowLuma") {
			t.Errorf("message %q", err)
		}
	})
	t.Run("closed before answering", func(t *testing.T) {
		c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, nil)
		_, err := c.Call(context.Background(), Request{Action: "get_status"})
		checkError(t, err, "get_status", outcome.KindTransport)
	})
	t.Run("closed mid-body", func(t *testing.T) {
		c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			io.WriteString(w, `{"status":"ok",`)
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}, nil)
		_, err := c.Call(context.Background(), Request{Action: "get_status"})
		checkError(t, err, "get_status", outcome.KindTransport)
	})
}

// waitGone reads the request body, which lets the server notice a client
// that goes away, then waits until it does.
func waitGone(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// blockUntilGone answers with half an envelope, signals ready, then waits
// for the client to go away.
func blockUntilGone(ready chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		io.WriteString(w, `{"status":"ok","retcode":0,"data":{"half":`)
		w.(http.Flusher).Flush()
		if ready != nil {
			close(ready)
		}
		waitGone(r)
	}
}

func TestCallTimeout(t *testing.T) {
	t.Run("before headers", func(t *testing.T) {
		c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			waitGone(r)
		}, func(o *Options) { o.Timeout = 50 * time.Millisecond })
		_, err := c.Call(context.Background(), Request{Action: "get_status"})
		checkError(t, err, "get_status", outcome.KindTimeout)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%v does not wrap context.DeadlineExceeded", err)
		}
	})
	t.Run("mid-body", func(t *testing.T) {
		c := newTestClient(t, blockUntilGone(nil), func(o *Options) { o.Timeout = 50 * time.Millisecond })
		_, err := c.Call(context.Background(), Request{Action: "get_status"})
		checkError(t, err, "get_status", outcome.KindTimeout)
	})
	t.Run("caller deadline", func(t *testing.T) {
		c := newTestClient(t, blockUntilGone(nil), nil)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := c.Call(ctx, Request{Action: "get_status"})
		checkError(t, err, "get_status", outcome.KindTimeout)
	})
}

func TestCallCancelledMidBody(t *testing.T) {
	ready := make(chan struct{})
	c := newTestClient(t, blockUntilGone(ready), nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-ready
		cancel()
	}()
	_, err := c.Call(ctx, Request{Action: "send_group_msg"})
	checkError(t, err, "send_group_msg", outcome.KindCancelled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
}

func TestCallCancelledBeforeHeaders(t *testing.T) {
	arrived := make(chan struct{})
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		waitGone(r)
	}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := c.Call(ctx, Request{Action: "get_status"})
	checkError(t, err, "get_status", outcome.KindCancelled)
}

func TestCallNeverRetries(t *testing.T) {
	var calls atomic.Int32
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}, nil)
	c.Call(context.Background(), Request{Action: "send_group_msg"})
	if n := calls.Load(); n != 1 {
		t.Errorf("the server saw %d requests, want 1", n)
	}
}

func TestErrorMessageRedactsToken(t *testing.T) {
	c, err := New(Options{Endpoint: "http://127.0.0.1:1/", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	e := c.fail("get_status", 0, outcome.KindTransport, errors.New("something mentioning "+testToken))
	if strings.Contains(e.Error(), testToken) {
		t.Errorf("token in %q", e)
	}
}

// TestActionInThePath: every call goes to <endpoint>/<action>, whatever
// the endpoint's path and trailing slash, ordinary calls, streams and
// upload chunks alike, and the body's action agrees with the path.
func TestActionInThePath(t *testing.T) {
	for _, tc := range []struct{ configured, endpoint, want string }{
		{"/", "", "/get_status"},
		{"/", "/", "/get_status"},
		{"/onebot", "/onebot", "/onebot/get_status"},
		{"/onebot", "/onebot/", "/onebot/get_status"},
	} {
		fake := simtest.Start(t, simulator.WithHTTPPath(tc.configured))
		c, err := New(Options{Endpoint: strings.TrimSuffix(fake.URL, "/") + tc.endpoint})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Call(context.Background(), Request{Action: "get_status"})
		if err != nil || resp.Status != "ok" {
			t.Fatalf("endpoint path %q: %v %+v", tc.endpoint, err, resp)
		}
		if _, err := c.StreamCall(context.Background(), Request{Action: "test_download_stream"}); err != nil {
			t.Fatalf("endpoint path %q: stream: %v", tc.endpoint, err)
		}
		reqs := fake.Requests()
		if reqs[0].Path != tc.want || reqs[0].Action != "get_status" || reqs[1].Path != strings.TrimSuffix(tc.want, "get_status")+"test_download_stream" {
			t.Errorf("endpoint path %q: requests went to %s and %s", tc.endpoint, reqs[0].Path, reqs[1].Path)
		}
	}
}

// TestRequestBodyLimit: a call whose body would pass the limit is refused
// with too_large before anything is sent; one exactly at it goes.
func TestRequestBodyLimit(t *testing.T) {
	fake := simtest.Start(t)
	c, err := New(Options{Endpoint: fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	pad := func(n int) json.RawMessage {
		return json.RawMessage(`{"message":"` + strings.Repeat("x", n) + `"}`)
	}
	frame := len(`{"action":"get_status","params":{"message":""}}`)
	if _, err := c.Call(context.Background(), Request{Action: "get_status", Params: pad(DefaultMaxBodyBytes - frame)}); err != nil {
		t.Fatalf("a body at the limit: %v", err)
	}
	for _, send := range []func(Request) error{
		func(r Request) error { _, err := c.Call(context.Background(), r); return err },
		func(r Request) error { _, err := c.StreamCall(context.Background(), r); return err },
	} {
		err := send(Request{Action: "get_status", Params: pad(DefaultMaxBodyBytes - frame + 1)})
		e := checkError(t, err, "get_status", outcome.KindTooLarge)
		if !strings.Contains(e.Error(), "2097152-byte request body limit") || !strings.Contains(e.Error(), "SNOWLUMA_MCP_MAX_BODY_BYTES") {
			t.Errorf("message %q", e)
		}
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("%d requests reached SnowLuma, want only the one at the limit", n)
	}
}

// TestRedirectNamesItsTarget: a redirect is not followed, the token goes
// nowhere else, and the failure says where it pointed.
func TestRedirectNamesItsTarget(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(other.Close)
	c := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/next?access_token=x", http.StatusTemporaryRedirect)
	}, nil)
	_, err := c.Call(context.Background(), Request{Action: "get_status"})
	e := checkError(t, err, "get_status", outcome.KindProtocol)
	if !strings.Contains(e.Error(), "redirect (HTTP 307) to "+other.URL+"/next,") || strings.Contains(e.Error(), "access_token") {
		t.Errorf("message %q", e)
	}
	if _, err := c.StreamCall(context.Background(), Request{Action: "upload_file_stream"}); err == nil || !strings.Contains(err.Error(), other.URL) {
		t.Errorf("stream call: %v", err)
	}
	if elsewhere.Load() != 0 {
		t.Error("the redirect was followed")
	}
}
