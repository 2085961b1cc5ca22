package events

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder/websocket"
)

// A Greeting is what Probe saw of the event connection.
type Greeting struct {
	// First names the first frame: its post_type and, for a meta event,
	// its meta_event_type and sub_type ("meta_event lifecycle connect").
	// Empty when nothing arrived before the probe's deadline.
	First string
}

// Probe opens the event connection of opts as Subscribe does (token,
// redirects refused), waits within ctx for the first frame or a close,
// and closes it. Refusals are those of Subscribe: a close before any frame
// with 1008 is CodeUnauthorized. A socket still open and silent when ctx
// ends is no error and gives an empty First.
func Probe(ctx context.Context, opts Options) (Greeting, error) {
	ws, err := dial(ctx, opts)
	if err != nil {
		return Greeting{}, err
	}
	defer ws.CloseNow()
	typ, raw, err := ws.Read(ctx)
	if err != nil {
		var ce websocket.CloseError
		c := &conn{status: StatusDisconnected, closeCode: -1}
		switch {
		case errors.As(err, &ce):
			c.closeCode, c.closeReason = ce.Code, ce.Reason
			c.reason = fmt.Sprintf("SnowLuma closed the connection (WebSocket status %d%s)", int(ce.Code), closeReasonText(ce.Reason))
		case ctx.Err() != nil:
			return Greeting{}, nil
		default:
			c.reason = "the connection to SnowLuma failed: " + err.Error()
		}
		return Greeting{}, greetingError(c)
	}
	ws.Close(websocket.StatusNormalClosure, "")
	if typ != websocket.MessageText {
		return Greeting{First: "a binary frame"}, nil
	}
	f, err := parseFrame(raw)
	if err != nil {
		return Greeting{First: "a frame that is not an event"}, nil
	}
	first := f.postType
	if fields, _ := scanObject(raw); f.postType == "meta_event" {
		for _, v := range [][]byte{fields.metaEventType, fields.subType} {
			if s, ok := str(v); ok && s != "" && len(s) <= 32 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz_") == "" {
				first += " " + s
			}
		}
	}
	return Greeting{First: first}, nil
}
