package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// post sends body to the fake at path and returns the status and body.
func post(t *testing.T, s *Server, path, body string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestURL(t *testing.T) {
	s := startFake(t)
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/") {
		t.Errorf("URL %q", s.URL)
	}
}

func TestBothPostForms(t *testing.T) {
	s := startFake(t)
	const want = `{"status":"ok","retcode":0,"data":{"user_id":10001,"nickname":"SnowBot"}}`
	for _, tc := range []struct{ path, body string }{
		{"/", `{"action":"get_login_info","params":{}}`},
		{"/", `{"action":"get_login_info"}`},
		{"/get_login_info", `{}`},
		{"/get_login_info", ``},
		{"/get_login_info", `{"action":"get_login_info","params":{}}`},
		// The action in the path wins over the body's.
		{"/get_login_info", `{"action":"set_group_ban","params":{"group_id":1}}`},
	} {
		status, body := post(t, s, tc.path, tc.body, nil)
		if status != 200 || body != want {
			t.Errorf("POST %s %s: %d %s", tc.path, tc.body, status, body)
		}
	}
	reqs := s.Requests()
	if last := reqs[len(reqs)-1]; last.Action != "get_login_info" || string(last.Params) != `{"group_id":1}` {
		t.Errorf("path and body disagreeing: recorded %+v", last)
	}
}

func TestWireErrors(t *testing.T) {
	s := startFake(t)
	for _, tc := range []struct {
		path, body string
		status     int
		want       string
	}{
		// An unknown action is an ordinary answer, retcode 1404.
		{"/", `{"action":"no_such_action","params":{}}`, 200, `{"status":"failed","retcode":1404,"data":null,"wording":"unknown action"}`},
		{"/no_such_action", `{}`, 200, `"retcode":1404`},
		{"/onebot/get_status", `{}`, 200, `"wording":"unknown action"`},
		{"/", `{"action":`, 400, `{"status":"failed","retcode":1400,"data":null,"wording":"bad request: invalid json"}`},
		{"/", `{"params":{}}`, 400, `"wording":"bad request: missing action"`},
		// SnowLuma takes a body that is not an object as no params, and
		// params that are not an object as the whole body.
		{"/get_status", `[1]`, 200, `"online":true`},
		{"/get_status", `null`, 200, `"online":true`},
		{"/", `{"action":0,"params":{}}`, 400, `"wording":"bad request: missing action"`},
		{"/get_status", `{"action":"","params":{}}`, 200, `"online":true`},
		{"/", `{"action":"get_status","params":"x"}`, 200, `"online":true`},
	} {
		status, body := post(t, s, tc.path, tc.body, nil)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("POST %s %s: %d %s", tc.path, tc.body, status, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, s.URL+"get_status", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 405 || string(b) != `{"status":"failed","retcode":1400,"data":null,"wording":"method not allowed"}` {
		t.Errorf("PUT: %d %s", resp.StatusCode, b)
	}
}

// TestHTTPPath: with a configured path, the path itself takes the action
// from the body, a path below it names the action, and any other path is
// 404 "not found", before the token is looked at.
func TestHTTPPath(t *testing.T) {
	s := startFake(t, WithHTTPPath("/onebot/"), WithToken("tok"))
	auth := http.Header{"Authorization": {"Bearer tok"}}
	for _, tc := range []struct {
		path, body string
		header     http.Header
		status     int
		want       string
	}{
		{"/onebot", `{"action":"get_status"}`, auth, 200, `"online":true`},
		{"/onebot/", `{"action":"get_status"}`, auth, 200, `"online":true`},
		{"/onebot/get_status", `{}`, auth, 200, `"online":true`},
		{"/get_status", `{}`, auth, 404, `{"status":"failed","retcode":1404,"data":null,"wording":"not found"}`},
		{"/", `{"action":"get_status"}`, nil, 404, `"wording":"not found"`},
		{"/onebotx/get_status", `{}`, auth, 404, `"wording":"not found"`},
		{"/onebot/get_status", `{}`, nil, 401, `"retcode":1401`},
	} {
		status, body := post(t, s, tc.path, tc.body, tc.header)
		if status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("POST %s: %d %s", tc.path, status, body)
		}
	}
	reqs := s.Requests()
	if r := reqs[3]; r.Path != "/get_status" || r.Action != "" {
		t.Errorf("a refused path is recorded %+v", r)
	}
}

// TestBodyCap: a body past the cap is cut off and its connection destroyed,
// with no envelope; a body at the cap is served.
func TestBodyCap(t *testing.T) {
	s := startFake(t)
	at := `{"action":"get_status","params":{"pad":"` + strings.Repeat("x", DefaultMaxBodyBytes-len(`{"action":"get_status","params":{"pad":""}}`)) + `"}}`
	if status, body := post(t, s, "/", at, nil); status != 200 || !strings.Contains(body, `"online":true`) {
		t.Errorf("a body of exactly %d bytes: %d %s", len(at), status, body)
	}
	over := at[:len(at)-2] + `x"}}`
	resp, err := http.Post(s.URL, "application/json", strings.NewReader(over))
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Errorf("a body of %d bytes was answered: %d %s", len(over), resp.StatusCode, b)
	}
}

func TestToken(t *testing.T) {
	s := startFake(t, WithToken("tok-123"))
	const unauthorized = `{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`
	for _, h := range []http.Header{
		nil,
		{"Authorization": {"Bearer wrong"}},
		{"Authorization": {"tok-123"}},
	} {
		status, body := post(t, s, "/get_status", `{}`, h)
		if status != 401 || body != unauthorized {
			t.Errorf("header %v: %d %s", h, status, body)
		}
	}
	status, body := post(t, s, "/", `{"action":"get_status"}`, http.Header{"Authorization": {"Bearer tok-123"}})
	if status != 200 || !strings.Contains(body, `"online":true`) {
		t.Errorf("with the token: %d %s", status, body)
	}
	// SnowLuma also accepts the token in the query string (snowluma-mcp
	// never sends it there), and refuses a wrong one there too.
	if status, _ = post(t, s, "/get_status?access_token=tok-123", `{}`, nil); status != 200 {
		t.Errorf("token in the query: %d", status)
	}
	if status, _ = post(t, s, "/get_status?access_token=nope", `{}`, nil); status != 401 {
		t.Errorf("wrong token in the query: %d", status)
	}
}

func TestRecordingHandleAndReset(t *testing.T) {
	s := startFake(t)
	s.Handle("get_status", func(params json.RawMessage) Reply {
		return Reply{Status: 500, Envelope: Envelope{Status: "failed", Retcode: 1200, Wording: "internal error"}}
	})
	post(t, s, "/", `{"action":"get_msg","params":{"message_id":-2147483648}}`, http.Header{"Traceparent": {"00-abc-def-01"}})
	status, body := post(t, s, "/get_status", `{"x":12345678901234567890}`, nil)
	if status != 500 || body != `{"status":"failed","retcode":1200,"data":null,"wording":"internal error"}` {
		t.Errorf("overridden get_status: %d %s", status, body)
	}

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	if r := reqs[0]; r.Path != "/" || r.Action != "get_msg" || string(r.Params) != `{"message_id":-2147483648}` ||
		r.Header.Get("Traceparent") != "00-abc-def-01" || r.Method != "POST" {
		t.Errorf("first request %+v", r)
	}
	if r := reqs[1]; r.Path != "/get_status" || r.Action != "get_status" || string(r.Params) != `{"x":12345678901234567890}` {
		t.Errorf("second request %+v", r)
	}

	s.Reset()
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests after Reset", n)
	}
	if status, body := post(t, s, "/get_status", `{}`, nil); status != 200 || !strings.Contains(body, `"good":true`) {
		t.Errorf("get_status after Reset: %d %s", status, body)
	}
}

func TestDefaultResponders(t *testing.T) {
	s := startFake(t)
	for _, tc := range []struct{ action, params, want string }{
		{"get_version_info", `{}`, `"data":{"app_name":"SnowLuma","app_version":"1.11.1-node","protocol_version":"v11"}`},
		{"get_msg", `{"message_id":-2147483648}`, `"message_id":-2147483648,`},
		{"get_msg", `{"message_id":"-5"}`, `"message_id":"-5",`},
		{"get_msg", `{"message_id":0}`, `"status":"failed","retcode":100,"data":null`},
		{"get_msg", `{}`, `"status":"failed","retcode":100`},
		{"send_group_msg", `{"group_id":1,"message":"hi"}`, `"data":{"message_id":-123456}`},
		{"send_private_msg", `{"user_id":1,"message":"hi"}`, `"data":{"message_id":-123456}`},
		{"set_group_ban", `{"group_id":1,"user_id":2,"duration":60}`, `"status":"ok","retcode":0,"data":null`},
	} {
		status, body := post(t, s, "/"+tc.action, tc.params, nil)
		if status != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d %s", tc.action, tc.params, status, body)
		}
	}
}

func TestHelpers(t *testing.T) {
	if got := string(Async().Envelope.Marshal()); got != `{"status":"async","retcode":1,"data":null,"wording":""}` {
		t.Errorf("Async: %s", got)
	}
	if got := string(OK(map[string]int{"a": 1}).Envelope.Marshal()); got != `{"status":"ok","retcode":0,"data":{"a":1}}` {
		t.Errorf("OK: %s", got)
	}
	if got := string(OK(json.RawMessage(`{ "n" : 1.50 }`)).Envelope.Marshal()); !strings.Contains(got, `"data":{ "n" : 1.50 }`) {
		t.Errorf("OK with raw data: %s", got)
	}
	e := Envelope{Status: "ok", Data: json.RawMessage(`{}`), Echo: json.RawMessage(`"e1"`)}
	if got := string(e.Marshal()); got != `{"status":"ok","retcode":0,"data":{},"echo":"e1"}` {
		t.Errorf("echo: %s", got)
	}
}

func newClient(t *testing.T, s *Server, opts transfer.Options) *transfer.Client {
	t.Helper()
	opts.Endpoint = s.URL
	c, err := transfer.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHangAndDelayEndWithTheClient(t *testing.T) {
	s := startFake(t)
	s.Handle("slow", func(json.RawMessage) Reply { return Reply{Delay: time.Hour, Envelope: OK(nil).Envelope} })
	s.Handle("hang", func(json.RawMessage) Reply { return Reply{Hang: true} })
	s.Handle("half", func(json.RawMessage) Reply { return Reply{Hang: true, Body: []byte(`{"status":"ok","data":`)} })
	c := newClient(t, s, transfer.Options{Timeout: 50 * time.Millisecond})
	for _, action := range []string{"slow", "hang", "half"} {
		_, err := c.Call(context.Background(), transfer.Request{Action: action})
		var e *transfer.Error
		if !errors.As(err, &e) || e.Kind != outcome.KindTimeout {
			t.Errorf("%s: %v, want a timeout", action, err)
		}
	}
	// A hanging request still open when the test ends must not block cleanup.
	go c.Call(context.Background(), transfer.Request{Action: "hang"})
}

// readStream posts a stream action and returns its response and frames.
func readStream(t *testing.T, s *Server, params string) (*http.Response, []string) {
	t.Helper()
	resp, err := http.Post(s.URL+"test_download_stream", "application/json", strings.NewReader(params))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	fr := transfer.NewFrameReader(resp.Body, 0)
	var frames []string
	for {
		f, err := fr.Next()
		if err == io.EOF {
			return resp, frames
		}
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, string(f))
	}
}

func TestTestDownloadStream(t *testing.T) {
	s := startFake(t)
	resp, frames := readStream(t, s, `{}`)
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "json") {
		t.Errorf("stream content type %q", ct)
	}
	if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
		t.Errorf("transfer encoding %v", resp.TransferEncoding)
	}
	if len(frames) != 11 {
		t.Fatalf("%d frames: %q", len(frames), frames)
	}
	if want := `{"status":"ok","retcode":0,"data":{"type":"stream","data_type":"data_chunk","data":"Index-> 1"},"message":"","wording":"","stream":"stream-action"}`; frames[0] != want {
		t.Errorf("first frame %s", frames[0])
	}
	if !strings.Contains(frames[10], `"type":"response","data_type":"data_complete"`) {
		t.Errorf("last frame %s", frames[10])
	}

	_, frames = readStream(t, s, `{"error":true}`)
	if len(frames) != 11 || frames[10] != `{"status":"failed","retcode":1200,"stream":"stream-action","data":{"type":"error","data_type":"error"},"message":"test error","wording":"test error"}` {
		t.Errorf("error stream: %q", frames)
	}
}

func TestStreamThroughTransfer(t *testing.T) {
	s := startFake(t, WithToken("tok"))
	s.Handle("slow_stream", func(json.RawMessage) Reply {
		return Reply{Frames: [][]byte{StreamOK(map[string]string{"type": "stream"})}, Hang: true, FrameDelay: time.Millisecond}
	})
	c := newClient(t, s, transfer.Options{Token: "tok", StreamIdleTimeout: 50 * time.Millisecond})
	var frames []transfer.Frame
	err := c.Stream(context.Background(), transfer.Request{Action: "test_download_stream"}, func(f transfer.Frame) error {
		frames = append(frames, f)
		return nil
	})
	if err != nil || len(frames) != 11 || frames[10].Type != "response" || !frames[10].Terminal {
		t.Errorf("%d frames, %v", len(frames), err)
	}
	err = c.Stream(context.Background(), transfer.Request{Action: "slow_stream"}, func(transfer.Frame) error { return nil })
	var e *transfer.Error
	if !errors.As(err, &e) || e.Kind != outcome.KindTimeout {
		t.Errorf("a stream that stops: %v", err)
	}
	if got := s.Requests()[0].Header.Get("Authorization"); got != "Bearer tok" {
		t.Errorf("Authorization %q", got)
	}
}
