package transfer

import (
	"errors"
	"fmt"
)

// Kind classifies why a call to SnowLuma failed. The values are the failure
// kinds the MCP layer reports in diagnostics, so they are stable strings.
type Kind string

// The failure kinds a Client reports.
const (
	// KindTransport: SnowLuma could not be reached, or the connection broke
	// before a whole answer arrived (refused, DNS, reset).
	KindTransport Kind = "transport"
	// KindTimeout: no answer within the call timeout, a stream stayed idle
	// longer than its idle timeout, or the caller's deadline passed.
	KindTimeout Kind = "timeout"
	// KindCancelled: the caller cancelled the call (MCP cancellation).
	KindCancelled Kind = "cancelled"
	// KindUnauthorized: SnowLuma refused the token (HTTP 401 or 403).
	KindUnauthorized Kind = "unauthorized"
	// KindProtocol: the answer is not what the wire format promises, for
	// example a body that is not a single JSON object.
	KindProtocol Kind = "protocol"
	// KindTooLarge: an answer, a stream or one of its frames exceeded its
	// cap, or a file is larger than the file size limit.
	KindTooLarge Kind = "too_large"
	// KindStreamFailed: a stream ended before its terminal frame.
	KindStreamFailed Kind = "stream_failed"
	// KindQuota: saving a download would take the download directory past
	// its quota.
	KindQuota Kind = "quota"
	// KindBusy: as many stream calls as allowed are already running.
	KindBusy Kind = "busy"
	// KindPathRefused: a file to upload lies outside the upload root, or is
	// not a readable regular file; nothing was sent.
	KindPathRefused Kind = "path_refused"
	// KindLocalIO: the MCP host's own disk failed a read or write of a
	// transfer (a full disk, a permission changed under the server).
	KindLocalIO Kind = "local_io"
)

// Error is the error a Client returns for a call that produced no usable
// answer. A business failure (an envelope with status "failed") is not an
// Error: it is returned as a Response or a Frame for the caller to judge.
//
// Its message never contains the token, the call's params or the answer's
// body, so it can be shown to users and logged as it is.
type Error struct {
	Kind       Kind   // why the call failed
	Op         string // the OneBot action name; empty for a bare FrameReader
	HTTPStatus int    // the HTTP status when an answer arrived, else 0
	Err        error  // what happened, wrapping the underlying cause if any
}

// A bodyLimitError is a request refused before sending because its body is
// over the client's request body limit. size is zero for an upload whose
// chunks could not carry any data under the limit.
type bodyLimitError struct{ size, limit int64 }

func (e *bodyLimitError) Error() string {
	if e.size == 0 {
		return fmt.Sprintf("the %d-byte request body limit (SNOWLUMA_MCP_MAX_BODY_BYTES) leaves no room for upload data beside the filename and the other params; nothing was sent", e.limit)
	}
	return fmt.Sprintf("the request is %d bytes, more than the %d-byte request body limit (SnowLuma cuts off longer bodies; SNOWLUMA_MCP_MAX_BODY_BYTES); nothing was sent", e.size, e.limit)
}

// RequestTooLarge reports whether err is a call refused before sending
// because its body was over the request body limit: a KindTooLarge whose
// fix is a smaller request, not a larger answer cap.
func RequestTooLarge(err error) bool {
	var e *bodyLimitError
	return errors.As(err, &e)
}

// Error returns "snowluma: <action>: <what happened>".
func (e *Error) Error() string {
	what := string(e.Kind)
	if e.Err != nil {
		what = e.Err.Error()
	}
	if e.Op == "" {
		return "snowluma: " + what
	}
	return "snowluma: " + e.Op + ": " + what
}

// Unwrap returns the underlying error, so errors.Is(err, context.Canceled)
// and similar checks see through an Error.
func (e *Error) Unwrap() error { return e.Err }
