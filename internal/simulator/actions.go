package simulator

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Reply is how the fake answers one request.
type Reply struct {
	// Status is the HTTP status; zero means 200.
	Status int
	// Envelope is the OneBot envelope to send when Body is nil.
	Envelope Envelope
	// Body, when not nil, is sent as it is instead of Envelope.
	Body []byte
	// ContentType overrides the content type: application/json for an
	// ordinary answer, application/octet-stream for a stream.
	ContentType string
	// Delay is a wait before answering; it ends early, without an answer,
	// when the client goes away or the server stops.
	Delay time.Duration
	// Hang keeps the answer from finishing until the client goes away: with
	// nothing else set nothing is sent at all, not even headers; with a Body,
	// Envelope or Frames those are sent first and the body is left open.
	Hang bool
	// Frames, when not nil, makes the answer a stream: each frame followed
	// by "\r\n\r\n", written in chunks whose boundaries fall inside frames
	// and delimiters, flushed one by one.
	Frames [][]byte
	// FrameDelay is a pause between two frames of a stream.
	FrameDelay time.Duration
	// Produce, when not nil, makes the answer a stream whose frames are made
	// while it is sent: it calls emit with each frame (without delimiter)
	// until it is done or emit returns false because the client went away.
	// ctx ends when the client goes away.
	Produce func(ctx context.Context, emit func(frame []byte) bool)
}

// Envelope is a OneBot answer envelope.
type Envelope struct {
	Status  string          // "ok", "failed" or "async"
	Retcode int             // 0 for success
	Data    json.RawMessage // sent byte for byte; nil is null
	Message string          // omitted when empty, as SnowLuma's ordinary answers never carry it
	Wording string          // omitted when empty on a success, as SnowLuma's successes have none
	Echo    json.RawMessage // omitted when nil
}

// Marshal encodes e, keeping Data's bytes exactly as they are. Like
// SnowLuma's ordinary answers, a success is {status, retcode, data} and a
// failure adds wording; message appears only when e sets it.
func (e Envelope) Marshal() []byte {
	var b strings.Builder
	b.WriteString(`{"status":`)
	b.WriteString(quote(e.Status))
	b.WriteString(`,"retcode":`)
	b.WriteString(strconv.Itoa(e.Retcode))
	b.WriteString(`,"data":`)
	if e.Data == nil {
		b.WriteString("null")
	} else {
		b.Write(e.Data)
	}
	if e.Message != "" {
		b.WriteString(`,"message":`)
		b.WriteString(quote(e.Message))
	}
	if e.Wording != "" || e.Status != "ok" {
		b.WriteString(`,"wording":`)
		b.WriteString(quote(e.Wording))
	}
	if e.Echo != nil {
		b.WriteString(`,"echo":`)
		b.Write(e.Echo)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// quote encodes s as a JSON string.
func quote(s string) string {
	q, _ := json.Marshal(s) // a string always encodes
	return string(q)
}

// raw encodes data for an envelope: json.RawMessage is kept as it is, nil is
// null, anything else is marshalled. It panics when data cannot be encoded,
// a mistake in the test that supplied it.
func raw(data any) json.RawMessage {
	switch d := data.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return d
	}
	b, err := json.Marshal(data)
	if err != nil {
		panic(fmt.Sprintf("simulator: encoding reply data: %v", err))
	}
	return b
}

// OK answers status "ok", retcode 0 with data. Pass a json.RawMessage to
// send exact bytes; nil sends null.
func OK(data any) Reply {
	return Reply{Envelope: Envelope{Status: "ok", Data: raw(data)}}
}

// Failed answers a business failure: HTTP 200, status "failed", data null.
func Failed(retcode int, wording string) Reply {
	return Reply{Envelope: Envelope{Status: "failed", Retcode: retcode, Wording: wording}}
}

// Async answers an unconfirmed acknowledgement: status "async", retcode 1.
func Async() Reply {
	return Reply{Envelope: Envelope{Status: "async", Retcode: 1}}
}

// wireError is one of SnowLuma's HTTP-level error answers.
func wireError(status, retcode int, wording string) Reply {
	r := Failed(retcode, wording)
	r.Status = status
	return r
}

// writeReply sends reply, honouring the request's context while it waits.
func writeReply(w http.ResponseWriter, r *http.Request, reply Reply) {
	ctx := r.Context()
	if reply.Delay > 0 {
		t := time.NewTimer(reply.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
	if reply.Frames != nil || reply.Produce != nil {
		writeFrames(w, r, reply)
		return
	}
	body := reply.Body
	if body == nil && reply.Envelope.Status != "" {
		body = reply.Envelope.Marshal()
	}
	if body == nil && reply.Hang {
		<-ctx.Done()
		return
	}
	contentType := reply.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	w.Header().Set("Content-Type", contentType)
	if !reply.Hang {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(statusOr200(reply.Status))
	w.Write(body)
	if reply.Hang {
		http.NewResponseController(w).Flush()
		<-ctx.Done()
	}
}

func statusOr200(status int) int {
	if status == 0 {
		return http.StatusOK
	}
	return status
}

// defaultHandlers returns the responders a new server starts with.
func (s *Server) defaultHandlers() map[string]Handler {
	fixed := func(data string) Handler {
		return func(json.RawMessage) Reply { return OK(json.RawMessage(data)) }
	}
	sent := fixed(`{"message_id":-123456}`)
	h := map[string]Handler{
		"get_login_info":              fixed(`{"user_id":10001,"nickname":"SnowBot"}`),
		"get_status":                  fixed(`{"online":true,"good":true}`),
		"get_version_info":            fixed(`{"app_name":"SnowLuma","app_version":"1.11.1-node","protocol_version":"v11"}`),
		"get_msg":                     mediaGetMsg(getMsg),
		"ocr_image":                   s.ocrImage,
		"fetch_ptt_text":              s.pttText,
		"get_group_list":              getGroupList,
		"get_group_member_list":       getGroupMemberList,
		"get_friend_list":             getFriendList,
		"send_group_msg":              sent,
		"send_private_msg":            sent,
		"set_group_ban":               func(json.RawMessage) Reply { return OK(nil) },
		"test_download_stream":        testDownloadStream,
		"download_file_stream":        s.download,
		"download_file_image_stream":  s.download,
		"download_file_record_stream": s.download,
		uploadAction:                  s.upload,
	}
	if s.world != nil {
		maps.Copy(h, s.worldHandlers())
	}
	return h
}

// getMsg answers a group message carrying the requested message_id exactly
// as it was sent; a missing or zero id is not found.
func getMsg(params json.RawMessage) Reply {
	var p struct {
		MessageID json.RawMessage `json:"message_id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return Failed(1400, "invalid params")
	}
	id := strings.Trim(string(p.MessageID), `"`)
	if id == "" || id == "0" || id == "null" {
		return Failed(100, "message not found")
	}
	return OK(json.RawMessage(`{"time":1700000000,"message_type":"group","sub_type":"normal",` +
		`"message_id":` + string(p.MessageID) + `,"real_id":` + string(p.MessageID) + `,` +
		`"group_id":30003,"user_id":20002,` +
		`"sender":{"user_id":20002,"nickname":"Alice","card":"","role":"member"},` +
		`"message":[{"type":"text","data":{"text":"hello from the fake"}}],` +
		`"raw_message":"hello from the fake","font":0}`))
}
