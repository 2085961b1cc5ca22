package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// Stream actions through invoke_action: downloads are saved to the download
// directory, upload_file_stream with execution.input_file sends a file from
// the upload root, other streams have their frames collected. Progress goes
// to the caller as notifications/progress when it sent a progress token.
// The work itself is transfer's; this file only wires it.

// uploadAction is the one action execution applies to.
const uploadAction = "upload_file_stream"

// downloadActions save their file instead of returning frames.
var downloadActions = map[string]bool{
	"download_file_stream":        true,
	"download_file_image_stream":  true,
	"download_file_record_stream": true,
}

// executionArgs is invoke_action's optional execution object.
type executionArgs struct {
	InputFile string `json:"input_file"`
}

// invokeInput is invoke_action's input: actionInput plus execution.
const invokeInput = `{
  "type": "object",
  "properties": {
    ` + actionProp + `,
    "params": {"type": "object", "description": "` + paramsHelp + ` With execution only filename, file_retention."},
    "execution": {
      "type": "object",
      "description": "upload_file_stream: the server uploads input_file itself.",
      "properties": {
        "input_file": {"type": "string", "minLength": 1, "description": "Absolute path inside SNOWLUMA_MCP_UPLOAD_ROOT."}
      },
      "required": ["input_file"],
      "additionalProperties": false
    }
  },
  "required": ["action"],
  "additionalProperties": false
}`

// invokeResult is invoke_action's payload schema: an envelope, a generic
// stream's frames, a saved download or a sent upload.
const invokeResult = `{"type": "object", "description": "The envelope as sent; a stream's {frames, count, terminal}; a download's {saved, terminal}; an upload's {sent, terminal}."}`

// downloadResult is a download's payload. It never holds file bytes.
type downloadResult struct {
	Saved    *transfer.Saved `json:"saved"`
	Terminal json.RawMessage `json:"terminal"`
}

// uploadResult is an automatic upload's payload.
type uploadResult struct {
	Sent     transfer.Sent          `json:"sent"`
	Terminal json.RawMessage        `json:"terminal"`
	Reset    *transfer.ResetOutcome `json:"reset,omitempty"`
}

// stream runs a stream action once the pipeline let it through: an
// automatic upload (when the plan holds one), a download to disk, a
// hand-made upload call, or a generic stream whose frames are collected.
func (x *executor) stream(ctx context.Context, c *toolkit.Call, req transfer.Request, pu *pendingUpload, readOnly bool) toolkit.Reply {
	p := progressOf(ctx, c)
	var r toolkit.Reply
	if pu != nil && req.Action == uploadAction {
		r = x.upload(ctx, *pu, req.Header, p, readOnly)
	} else if downloadActions[req.Action] {
		r = x.download(ctx, req, p, readOnly)
	} else if req.Action == uploadAction {
		r = x.uploadChunk(ctx, req, readOnly)
	} else {
		r = x.collect(ctx, req, p, readOnly)
	}
	return finish(r, p)
}

// uploadStandIn is the stream_id the safety checks see for an automatic
// upload: the real one is chosen when the upload starts.
const uploadStandIn = "chosen-by-snowluma-mcp"

// planUpload makes p, a call with execution, an automatic upload. It is
// refused, with nothing sent, for any other action, without an upload root,
// or with params the server chooses itself.
func (x *executor) planUpload(p *plan) (toolkit.Reply, bool) {
	a, params, ex := p.action, p.params, p.execution
	if a.Name != uploadAction {
		return toolkit.Fail(toolkit.KindInvalidArguments,
			fmt.Sprintf("invoke_action: execution applies only to %s, not %s; nothing was sent", uploadAction, a.Name),
			"remove execution, or use it with action "+uploadAction), false
	}
	if x.backend.Uploads == nil {
		return toolkit.Fail(toolkit.KindInvalidArguments,
			"invoke_action: execution.input_file needs an upload root, and SNOWLUMA_MCP_UPLOAD_ROOT is not set; nothing was sent",
			"set SNOWLUMA_MCP_UPLOAD_ROOT to an absolute directory holding the files to upload and restart the server, or send chunks yourself without execution"), false
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(params, &given); err != nil {
		return toolkit.Fail(toolkit.KindInvalidArguments, "invoke_action: params must be a JSON object", "pass params as a JSON object"), false
	}
	var chosen []string
	for k := range given {
		if k != "filename" && k != "file_retention" {
			chosen = append(chosen, "params/"+k)
		}
	}
	if len(chosen) > 0 {
		return toolkit.Fail(toolkit.KindInvalidArguments,
			fmt.Sprintf("invoke_action: with execution the server chooses the stream, chunks, sizes and hash itself; %s may not be given; nothing was sent", strings.Join(slices.Sorted(slices.Values(chosen)), ", ")),
			"keep only params.filename and params.file_retention, or drop execution to send chunks yourself"), false
	}
	// A path that will be refused is refused now, before a person is asked
	// to confirm the upload; Upload checks it again when it opens the file.
	f, err := x.backend.Uploads.Open(ex.InputFile)
	if err != nil {
		return failure(err, false, true), false
	}
	f.Close()
	// The upload takes the pipeline every action takes: the params check (filename and file_retention against the
	// catalog, a stand-in for the stream id the server will choose), the
	// confirmation, the audit.
	probe := map[string]json.RawMessage{"stream_id": json.RawMessage(`"` + uploadStandIn + `"`)}
	for k, v := range given {
		probe[k] = v
	}
	p.params, _ = json.Marshal(probe)
	p.upload = &pendingUpload{input: ex.InputFile, given: given}
	return toolkit.Reply{}, true
}

// pendingUpload is an automatic upload on its way through the safety
// checks.
type pendingUpload struct {
	input string
	given map[string]json.RawMessage // filename and file_retention, as given
}

// upload runs an automatic upload.
func (x *executor) upload(ctx context.Context, pu pendingUpload, trace http.Header, p *transfer.Throttle, readOnly bool) toolkit.Reply {
	up := transfer.Upload{InputFile: pu.input, Retention: pu.given["file_retention"], Header: trace, MaxFileBytes: x.backend.MaxFileBytes()}
	if up.Retention != nil {
		// Checked here too for SNOWLUMA_MCP_VALIDATE_PARAMS=false: the
		// value goes into every chunk call as it is.
		var n json.Number
		if json.Unmarshal(up.Retention, &n) != nil || up.Retention[0] == '"' {
			return toolkit.Fail(toolkit.KindInvalidParams, "upload_file_stream: params/file_retention must be a number of milliseconds; nothing was sent", "give file_retention as a whole number, e.g. 300000, or 0 to keep the file")
		}
	}
	if raw, ok := pu.given["filename"]; ok {
		if err := json.Unmarshal(raw, &up.Filename); err != nil {
			return toolkit.Fail(toolkit.KindInvalidParams, "upload_file_stream: params/filename must be a string; nothing was sent", "give filename as a string")
		}
	}
	res, err := x.backend.Client.Upload(ctx, x.backend.Uploads, up, p.Update)
	if err != nil {
		r := failure(err, readOnly, true)
		if res != nil && res.Reset != nil {
			r.Diag.Message += "; " + resetSentence(res.Reset)
		}
		return r
	}
	out := uploadResult{Sent: res.Sent, Terminal: res.Terminal.Raw, Reset: res.Reset}
	if !res.Completed {
		r := judge(res.Terminal.Raw, res.Terminal.Status, res.Terminal.Retcode)
		r.Diag.Message += "; " + resetSentence(res.Reset)
		r.Result = out
		return r
	}
	return toolkit.OK(out)
}

// resetSentence says how the reset after a failed upload went.
func resetSentence(r *transfer.ResetOutcome) string {
	switch {
	case r == nil:
		return "nothing had been sent, so no reset was needed"
	case r.Confirmed:
		return "the stream was reset (SnowLuma confirmed)"
	}
	return "resetting the stream was not confirmed: " + r.Detail
}

// download saves a download stream's file.
func (x *executor) download(ctx context.Context, req transfer.Request, p *transfer.Throttle, readOnly bool) toolkit.Reply {
	if x.backend.Downloads == nil {
		return toolkit.Fail(toolkit.KindNotConfigured, "no download directory is configured", "set SNOWLUMA_MCP_DOWNLOAD_DIR and restart the server")
	}
	res, err := x.backend.Client.Download(ctx, req, x.backend.Downloads, p.Update)
	if err != nil {
		return failure(err, readOnly, true)
	}
	out := downloadResult{Saved: res.Saved, Terminal: res.Terminal.Raw}
	if res.Saved == nil {
		r := judge(res.Terminal.Raw, res.Terminal.Status, res.Terminal.Retcode)
		if r.Diag.Outcome == toolkit.OutcomeSuccess {
			r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeUnknown, Kind: toolkit.KindUnconfirmed,
				Message: "the download ended without a file", NextStep: "inspect result.terminal"}
		}
		r.Result = out
		return r
	}
	return toolkit.OK(out)
}

// uploadChunk runs one upload_file_stream call whose params the caller
// wrote (chunks sent by hand): its answer is a single frame.
func (x *executor) uploadChunk(ctx context.Context, req transfer.Request, readOnly bool) toolkit.Reply {
	f, err := x.backend.Client.StreamCall(ctx, req)
	if err != nil {
		return failure(err, readOnly, true)
	}
	r := judge(f.Raw, f.Status, f.Retcode)
	r.Result = streamResult{Frames: []json.RawMessage{}, Terminal: f.Raw}
	return r
}

// streamResult is a generic stream's collected answer.
type streamResult struct {
	Frames   []json.RawMessage `json:"frames"`
	Count    int               `json:"count"`
	Terminal json.RawMessage   `json:"terminal"`
}

// errCollectCap stops a stream whose frames outgrow MaxCollectedStream.
var errCollectCap = errors.New("collected frames exceed the cap")

// collect runs a generic stream action and collects each frame's data;
// progress counts the frames accepted.
func (x *executor) collect(ctx context.Context, req transfer.Request, p *transfer.Throttle, readOnly bool) toolkit.Reply {
	res := streamResult{Frames: []json.RawMessage{}}
	var last transfer.Frame
	size := 0
	err := x.backend.Client.Stream(ctx, req, func(f transfer.Frame) error {
		size += len(f.Raw)
		if size > MaxCollectedStream {
			return errCollectCap
		}
		if f.Terminal {
			last = f
			res.Terminal = f.Raw
			return nil
		}
		res.Frames = append(res.Frames, f.Data)
		res.Count++
		p.Update(int64(res.Count), 0)
		return nil
	})
	if errors.Is(err, errCollectCap) {
		return toolkit.Fail(toolkit.KindTooLarge, fmt.Sprintf("the %s stream exceeded %d MiB of frames, the most a tool result collects", req.Action, MaxCollectedStream>>20),
			"narrow the request: a tool result holds at most that much of a stream's frames")
	}
	if err != nil {
		return failure(err, readOnly, true)
	}
	r := judge(last.Raw, last.Status, last.Retcode)
	if r.Diag.Outcome == toolkit.OutcomeSuccess && last.Type != "response" {
		r.Diag = toolkit.Diagnostics{Outcome: toolkit.OutcomeUnknown, Kind: toolkit.KindUnconfirmed,
			Message:  "the stream's final frame is not a response frame",
			NextStep: "inspect result.terminal before relying on the stream's data"}
	}
	r.Result = res
	return r
}

// progressOf returns a throttle that reports to the caller through the
// request's progress token, or nil (which reports nothing) without one.
func progressOf(ctx context.Context, c *toolkit.Call) *transfer.Throttle {
	tok := c.Req.Params.GetProgressToken()
	if tok == nil || c.Req.Session == nil {
		return nil
	}
	session := c.Req.Session
	return transfer.NewThrottle(transfer.ProgressInterval, func(done, total int64) error {
		n := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(done)}
		if total > 0 {
			n.Total = float64(total)
		}
		return session.NotifyProgress(ctx, n)
	})
}

// finish ends a call's progress: the final pending update goes before a
// successful result, nothing more after a failure, and a notification that
// could not be delivered is reported in the diagnostics.
func finish(r toolkit.Reply, p *transfer.Throttle) toolkit.Reply {
	if r.Diag.Outcome == toolkit.OutcomeSuccess {
		p.Flush()
	} else {
		p.Stop()
	}
	if err := p.Err(); err != nil {
		note := "progress notifications stopped: one could not be delivered (" + err.Error() + ")"
		if r.Diag.Message == "" {
			r.Diag.Message = note
		} else {
			r.Diag.Message += "; " + note
		}
		if r.Diag.NextStep == "" {
			r.Diag.NextStep = "the transfer itself is described by result; check the client's connection if progress matters"
		}
	}
	return r
}

// describeFiles fills get_runtime_info's file and stream fields.
func (x *executor) describeFiles(t *transportInfo, l transfer.Limits) {
	t.MaxStreams = l.MaxStreams
	t.StreamConnectTimeoutMS = l.StreamConnectTimeout.Milliseconds()
	t.MaxFileBytes = transfer.DefaultMaxFileBytes
	t.DownloadQuotaBytes = transfer.DefaultDownloadQuotaBytes
	if x.backend.Downloads != nil {
		dir := x.backend.Downloads.Dir()
		t.DownloadDir = &dir
		t.MaxFileBytes = x.backend.Downloads.MaxFileBytes()
		t.DownloadQuotaBytes = x.backend.Downloads.QuotaBytes()
	}
	if x.backend.Uploads != nil {
		root := x.backend.Uploads.Dir()
		t.UploadRoot = &root
		t.UploadEnabled = true
	}
}
