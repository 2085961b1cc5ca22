package fakesnowluma

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// SelfID is the account the fake is logged in as: get_login_info's user_id
// and the self_id of the events built by Message.
const SelfID = 10001

// EventsPath is the forward WebSocket path that carries events only.
const EventsPath = "/event"

// An EventConn is one accepted event WebSocket. Tests push frames through it
// and watch how the client closes it.
type EventConn struct {
	// Header is a copy of the upgrade request's headers.
	Header http.Header

	ws     *websocket.Conn
	done   chan struct{} // closed once the connection has ended
	mu     sync.Mutex
	status websocket.StatusCode // the client's close code; -1 when it sent none
}

// EventsURL is the event WebSocket to give to clients:
// ws://127.0.0.1:<port>/event.
func (s *Server) EventsURL() string {
	return "ws://" + strings.TrimPrefix(strings.TrimSuffix(s.URL, "/"), "http://") + EventsPath
}

// EventConns returns every event connection accepted so far, oldest first.
func (s *Server) EventConns() []*EventConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*EventConn(nil), s.eventConns...)
}

// EventConn returns the i-th event connection (from 0), waiting for the
// fake to have accepted it: a client's dial can return just before the fake
// records the connection. It fails the test after a generous wait.
func (s *Server) EventConn(tb testing.TB, i int) *EventConn {
	tb.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if conns := s.EventConns(); len(conns) > i {
			return conns[i]
		}
		if time.Now().After(deadline) {
			tb.Fatalf("fakesnowluma: event connection %d was never accepted (%d upgrade requests)", i, len(s.Upgrades()))
			return nil
		}
	}
}

// Upgrades returns the headers of every event upgrade request, accepted or
// not, in order of arrival.
func (s *Server) Upgrades() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.upgrades...)
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// serveEvents accepts an event WebSocket on EventsPath when the token
// matches, then holds it until either side closes it or the fake stops.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.upgrades = append(s.upgrades, r.Header.Clone())
	s.mu.Unlock()
	switch {
	case s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token:
		writeReply(w, r, Reply{Status: http.StatusUnauthorized,
			Body: []byte(`{"status":"failed","retcode":1401,"data":null,"wording":"unauthorized"}`)})
		return
	case r.URL.Path != EventsPath:
		writeReply(w, r, wireError(http.StatusNotFound, 1404, "no WebSocket here"))
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	// Reading keeps control frames flowing and sees the client's close.
	ws.SetReadLimit(1 << 20)
	ec := &EventConn{Header: r.Header.Clone(), ws: ws, done: make(chan struct{}), status: -1}
	s.mu.Lock()
	s.eventConns = append(s.eventConns, ec)
	s.mu.Unlock()
	defer close(ec.done)
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

// Send pushes one text frame, such as an event built by Message.
func (c *EventConn) Send(text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, []byte(text))
}

// SendBinary pushes one binary frame, which SnowLuma never sends.
func (c *EventConn) SendBinary(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageBinary, b)
}

// Close closes the connection from SnowLuma's side with code.
func (c *EventConn) Close(code websocket.StatusCode) error {
	return c.ws.Close(code, "")
}

// Shutdown does what SnowLuma does when it stops: a lifecycle disable meta
// event, then a normal close.
func (c *EventConn) Shutdown() error {
	if err := c.Send(`{"time":1700000000,"self_id":10001,"post_type":"meta_event","meta_event_type":"lifecycle","sub_type":"disable"}`); err != nil {
		return err
	}
	return c.Close(websocket.StatusNormalClosure)
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

// GroupIncrease is a notice event: userID joined groupID.
func GroupIncrease(groupID, userID int64) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"notice","notice_type":"group_increase","sub_type":"approve","group_id":%d,"user_id":%d,"operator_id":%d}`, SelfID, groupID, userID, userID)
}

// FriendRequest is a request event from userID.
func FriendRequest(userID int64) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"request","request_type":"friend","user_id":%d,"comment":"hi","flag":"flag-%d"}`, SelfID, userID, userID)
}

// Heartbeat is a heartbeat meta event.
func Heartbeat() string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":%d,"post_type":"meta_event","meta_event_type":"heartbeat","status":{"online":true,"good":true},"interval":30000}`, SelfID)
}

var messageIDs atomic.Int64

func nextMessageID() int64 { return messageIDs.Add(1) }
