package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// Stream actions, by the kind the catalog records for each: a download is
// saved to the download directory, an upload is either the server's own
// upload of a file from the upload root (an automatic upload, planned by
// the upload step) or one call whose chunk the caller wrote, and any
// other stream has its frames collected. transfer.Client.Transfer runs
// each; this file makes its plan and judges its outcome. Progress goes to
// the call's Client when it asked for it.

// MaxCollectedStream caps the frames a generic stream call collects into
// its result. Past it the call stops reading and fails with kind
// too_large.
const MaxCollectedStream = 8 << 20

// uploadStandIn is the stream_id the safety checks see for an automatic
// upload: the real one is chosen when the upload starts.
const uploadStandIn = "chosen-by-snowluma-mcp"

// pendingUpload is an automatic upload on its way through the safety
// checks.
type pendingUpload struct {
	input string
	given map[string]json.RawMessage // filename and file_retention, as given
}

// planUpload makes p an automatic upload of p.InputFile. It is refused,
// with nothing sent, for an action that is not an upload, without an
// upload root, or with params the server chooses itself.
func (x *Executor) planUpload(p *Plan) (outcome.Reply, bool) {
	a := p.Action
	if a.StreamKind != catalog.StreamUpload {
		return outcome.Fail(outcome.KindInvalidArguments,
			fmt.Sprintf("invoke_action: execution applies only to upload_file_stream, not %s; nothing was sent", a.Name),
			"remove execution, or use it with action upload_file_stream"), false
	}
	if x.backend.Uploads == nil {
		return outcome.Fail(outcome.KindInvalidArguments,
			"invoke_action: execution.input_file needs an upload root, and SNOWLUMA_MCP_UPLOAD_ROOT is not set; nothing was sent",
			"set SNOWLUMA_MCP_UPLOAD_ROOT to an absolute directory holding the files to upload and restart the server, or send chunks yourself without execution"), false
	}
	var given map[string]json.RawMessage
	if err := json.Unmarshal(p.Params, &given); err != nil {
		return outcome.Fail(outcome.KindInvalidArguments, "invoke_action: params must be a JSON object", "pass params as a JSON object"), false
	}
	var chosen []string
	for k := range given {
		if k != "filename" && k != "file_retention" {
			chosen = append(chosen, "params/"+k)
		}
	}
	if len(chosen) > 0 {
		return outcome.Fail(outcome.KindInvalidArguments,
			fmt.Sprintf("invoke_action: with execution the server chooses the stream, chunks, sizes and hash itself; %s may not be given; nothing was sent", strings.Join(slices.Sorted(slices.Values(chosen)), ", ")),
			"keep only params.filename and params.file_retention, or drop execution to send chunks yourself"), false
	}
	// A path that will be refused is refused now, before a person is asked
	// to confirm the upload; the upload checks it again when it opens the
	// file.
	f, err := x.backend.Uploads.Open(p.InputFile)
	if err != nil {
		return failure(err, false, true), false
	}
	f.Close()
	// The upload takes the pipeline every action takes: the params check
	// (filename and file_retention against the catalog, a stand-in for the
	// stream id the server will choose), the confirmation, the audit.
	probe := map[string]json.RawMessage{"stream_id": json.RawMessage(`"` + uploadStandIn + `"`)}
	for k, v := range given {
		probe[k] = v
	}
	p.Params, _ = json.Marshal(probe)
	p.upload = &pendingUpload{input: p.InputFile, given: given}
	return outcome.Reply{}, true
}

// downloadResult is a download's payload. It never holds file bytes.
type downloadResult struct {
	Saved    *transfer.Saved `json:"saved"`
	Terminal json.RawMessage `json:"terminal"`
}

// SavedFile is the file the download saved, nil when none: a feature that
// reads the file itself (view_media) takes it from the reply so, without
// encoding the payload.
func (d downloadResult) SavedFile() *transfer.Saved { return d.Saved }

// uploadResult is an automatic upload's payload.
type uploadResult struct {
	Sent     transfer.Sent          `json:"sent"`
	Terminal json.RawMessage        `json:"terminal"`
	Reset    *transfer.ResetOutcome `json:"reset,omitempty"`
}

// streamResult is a generic stream's collected answer (and, with no
// frames, an upload call's).
type streamResult struct {
	Frames   []json.RawMessage `json:"frames"`
	Count    int               `json:"count"`
	Terminal json.RawMessage   `json:"terminal"`
}

// errCollectCap stops a stream whose frames outgrow MaxCollectedStream.
var errCollectCap = errors.New("collected frames exceed the cap")

// automatic is the transfer of a planned automatic upload, its params
// checked once more for SNOWLUMA_MCP_VALIDATE_PARAMS=false: they go into
// every chunk call as they are.
func (x *Executor) automatic(pu pendingUpload) (transfer.Upload, outcome.Reply, bool) {
	up := transfer.Upload{InputFile: pu.input, Retention: pu.given["file_retention"], MaxFileBytes: x.backend.MaxFileBytes()}
	if up.Retention != nil {
		var n json.Number
		if json.Unmarshal(up.Retention, &n) != nil || up.Retention[0] == '"' {
			return up, outcome.Fail(outcome.KindInvalidParams, "upload_file_stream: params/file_retention must be a number of milliseconds; nothing was sent", "give file_retention as a whole number, e.g. 300000, or 0 to keep the file"), false
		}
	}
	if raw, ok := pu.given["filename"]; ok {
		if err := json.Unmarshal(raw, &up.Filename); err != nil {
			return up, outcome.Fail(outcome.KindInvalidParams, "upload_file_stream: params/filename must be a string; nothing was sent", "give filename as a string"), false
		}
	}
	return up, outcome.Reply{}, true
}

// uploaded judges an automatic upload.
func uploaded(res *transfer.UploadResult, err error, readOnly bool) outcome.Reply {
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
	return outcome.OK(out)
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

// downloaded judges a download that SnowLuma finished.
func downloaded(res *transfer.DownloadResult) outcome.Reply {
	out := downloadResult{Saved: res.Saved, Terminal: res.Terminal.Raw}
	if res.Saved == nil {
		r := judge(res.Terminal.Raw, res.Terminal.Status, res.Terminal.Retcode)
		if r.Diag.Outcome == outcome.OutcomeSuccess {
			r.Diag = outcome.Diagnostics{Outcome: outcome.OutcomeUnknown, Kind: outcome.KindUnconfirmed,
				Message: "the download ended without a file", NextStep: "inspect result.terminal"}
		}
		r.Result = out
		return r
	}
	return outcome.OK(out)
}

// progress returns a throttle that reports to the call's client, or nil
// (which reports nothing) when it asked for no progress.
func progress(ctx context.Context, c *Call) *transfer.Throttle {
	if c.Client == nil {
		return nil
	}
	send := c.Client.Progress(ctx)
	if send == nil {
		return nil
	}
	return transfer.NewThrottle(transfer.ProgressInterval, send)
}

// finish ends a call's progress: the final pending update goes before a
// successful result, nothing more after a failure, and a notification that
// could not be delivered is reported in the diagnostics.
func finish(r outcome.Reply, p *transfer.Throttle) outcome.Reply {
	if r.Diag.Outcome == outcome.OutcomeSuccess {
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
