package simulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// frameDelimiter ends every frame of a stream body.
const frameDelimiter = "\r\n\r\n"

// StreamOK returns an intermediate or final stream frame with status "ok":
// {"status":"ok","retcode":0,"data":<data>,"message":"","wording":"",
// "stream":"stream-action"}, with the empty message and wording SnowLuma puts
// on every stream frame. Pass a
// json.RawMessage to send exact bytes; data.type says which kind of frame it
// is ("stream" or "response").
func StreamOK(data any) []byte {
	d := raw(data)
	if d == nil {
		d = json.RawMessage("null")
	}
	return []byte(`{"status":"ok","retcode":0,"data":` + string(d) + `,"message":"","wording":"","stream":"stream-action"}`)
}

// StreamError returns the failed terminal frame of a stream, with the reason
// in message and wording.
func StreamError(retcode int, wording string) []byte {
	return []byte(`{"status":"failed","retcode":` + strconv.Itoa(retcode) +
		`,"stream":"stream-action","data":{"type":"error","data_type":"error"},` +
		`"message":` + quote(wording) + `,"wording":` + quote(wording) + `}`)
}

// testDownloadStream answers ten data_chunk frames and then data_complete,
// or a failed error frame when params has "error": true.
func testDownloadStream(params json.RawMessage) Reply {
	var p struct {
		Error bool `json:"error"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return Failed(1400, "invalid params")
	}
	frames := make([][]byte, 0, 11)
	for k := 1; k <= 10; k++ {
		frames = append(frames, StreamOK(json.RawMessage(fmt.Sprintf(
			`{"type":"stream","data_type":"data_chunk","data":"Index-> %d"}`, k))))
	}
	if p.Error {
		frames = append(frames, StreamError(1200, "test error"))
	} else {
		frames = append(frames, StreamOK(json.RawMessage(
			`{"type":"response","data_type":"data_complete","data":"Stream transmission complete"}`)))
	}
	return Reply{Frames: frames}
}

// writeFrames sends reply.Frames as a chunked stream body. The chunks are cut
// in the middle of each frame and inside each delimiter, so that a client
// which expects chunks to line up with frames fails.
func writeFrames(w http.ResponseWriter, r *http.Request, reply Reply) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	contentType := reply.ContentType
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(statusOr200(reply.Status))
	rc.Flush()

	for i, frame := range reply.Frames {
		if i > 0 && reply.FrameDelay > 0 {
			t := time.NewTimer(reply.FrameDelay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		whole := slices.Concat(frame, []byte(frameDelimiter))
		half := len(frame) / 2
		d := len(frame)
		// frame[:half] | frame[half:] "\r" | "\n\r" | "\n"
		for _, chunk := range [][]byte{whole[:half], whole[half : d+1], whole[d+1 : d+3], whole[d+3:]} {
			if len(chunk) == 0 {
				continue
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
	if reply.Produce != nil {
		reply.Produce(ctx, func(frame []byte) bool {
			// Split inside the frame, so that reads never line up with it.
			half := len(frame) / 2
			for _, chunk := range [][]byte{frame[:half], frame[half:], []byte(frameDelimiter)} {
				if _, err := w.Write(chunk); err != nil {
					return false
				}
			}
			return rc.Flush() == nil && ctx.Err() == nil
		})
	}
	if reply.Hang {
		<-ctx.Done()
	}
}
