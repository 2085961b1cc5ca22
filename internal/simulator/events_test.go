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

	"github.com/coder/websocket"
)

// dialEvents opens the fake's event WebSocket at path with token.
func dialEvents(t *testing.T, s *Server, path, token string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return websocket.Dial(ctx, s.events.url+path, &websocket.DialOptions{HTTPHeader: h, HTTPClient: noRedirect})
}

// next reads one text frame within a generous wait.
func next(t *testing.T, ws *websocket.Conn) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := ws.Read(ctx)
	return string(b), err
}

// TestEventsLikeSnowLuma: the fake's WebSocket server behaves as SnowLuma
// 1.11.1's: its own port, token and path; the token checked after the
// upgrade; the greeting; heartbeats; lifecycle disable when it stops.
func TestEventsLikeSnowLuma(t *testing.T) {
	s, err := New(WithToken("http-tok"), WithEventsToken("ws-tok"), WithHeartbeat(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if strings.HasPrefix(s.EventsURL(), "ws"+strings.TrimPrefix(s.URL, "http")) || !strings.HasSuffix(s.EventsURL(), "/") {
		t.Errorf("EventsURL %s for URL %s: want a port of its own and path /", s.EventsURL(), s.URL)
	}

	// Another path: refused at the upgrade, as SnowLuma's WebSocket server does.
	_, resp, err := dialEvents(t, s, "/event", "ws-tok")
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("/event: %v %v", resp, err)
	}
	if b, _ := io.ReadAll(resp.Body); string(b) != "Bad path for WebSocket" {
		t.Errorf("400 body %q", b)
	}

	// The HTTP token: upgraded, then closed with 1008.
	ws, _, err := dialEvents(t, s, "/", "http-tok")
	if err != nil {
		t.Fatalf("the upgrade with a wrong token must succeed: %v", err)
	}
	_, err = next(t, ws)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusPolicyViolation || ce.Reason != "invalid access token" {
		t.Errorf("wrong token: %v", err)
	}
	if len(s.EventConns()) != 0 || len(s.Upgrades()) != 2 {
		t.Errorf("%d accepted, %d upgrades", len(s.EventConns()), len(s.Upgrades()))
	}

	// The WebSocket token: greeted, then heartbeats announcing the interval.
	ws, _, err = dialEvents(t, s, "/", "ws-tok")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sub_type":"connect"`, `"sub_type":"enable"`, `"interval":50`, `"interval":50`} {
		got, err := next(t, ws)
		if err != nil || !strings.Contains(got, want) || !strings.Contains(got, `"self_id":10001`) {
			t.Fatalf("frame %q, %v; want %s", got, err, want)
		}
	}
	eventConn(t, s, 0).Stall()
	// A stalled connection still ends with the fake's goodbye.
	go s.close()
	// Heartbeats may come first, but not forever.
	for deadline := time.Now().Add(30 * time.Second); ; {
		if time.Now().After(deadline) {
			t.Fatal("no lifecycle disable within 30 s of the close")
		}
		got, err := next(t, ws)
		if err != nil {
			t.Fatalf("no lifecycle disable before the close: %v", err)
		}
		if strings.Contains(got, `"sub_type":"disable"`) {
			break
		}
	}
	if _, err := next(t, ws); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after disable: %v", err)
	}
}

// TestEventsRedirectAndPlain: WithEventsRedirect answers the upgrade 307;
// a plain request to the WebSocket port gets 426.
func TestEventsRedirectAndPlain(t *testing.T) {
	s := startFake(t, WithEventsRedirect("ws://127.0.0.1:9/elsewhere"))
	_, resp, err := dialEvents(t, s, "/", "")
	if err == nil || resp == nil || resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != "ws://127.0.0.1:9/elsewhere" {
		t.Errorf("redirect: %v %v", resp, err)
	}
	plain := startFake(t)
	r, err := http.Get("http" + strings.TrimPrefix(plain.EventsURL(), "ws"))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusUpgradeRequired {
		t.Errorf("plain GET: %d", r.StatusCode)
	}
}

// TestQuoteReplyShape: a quote-reply is a private message whose segments
// are a reply naming the quoted message_id as a string, then the text, and
// whose raw_message starts with the reply's CQ code, as SnowLuma's
// converter writes them.
func TestQuoteReplyShape(t *testing.T) {
	t.Parallel()
	var e struct {
		PostType    string `json:"post_type"`
		MessageType string `json:"message_type"`
		UserID      int64  `json:"user_id"`
		Message     []struct {
			Type string            `json:"type"`
			Data map[string]string `json:"data"`
		} `json:"message"`
		Raw string `json:"raw_message"`
	}
	if err := json.Unmarshal([]byte(QuoteReply(30002, -2147483000, "yes, [ok]")), &e); err != nil {
		t.Fatal(err)
	}
	if e.PostType != "message" || e.MessageType != "private" || e.UserID != 30002 || len(e.Message) != 2 ||
		e.Message[0].Type != "reply" || e.Message[0].Data["id"] != "-2147483000" || e.Message[1].Type != "text" || e.Message[1].Data["text"] != "yes, [ok]" ||
		e.Raw != "[CQ:reply,id=-2147483000]yes&#44; &#91;ok&#93;" {
		t.Errorf("quote-reply %+v", e)
	}
}
