package transfer

import (
	"errors"
	"fmt"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// Error is the error a Client returns for a call that produced no usable
// answer. A business failure (an envelope with status "failed") is not an
// Error: it is returned as a Response or a Frame for the caller to judge.
//
// Its Kind is one of the failure vocabulary's (package outcome), as tools
// report it: transport (SnowLuma unreachable, or the connection broke
// before a whole answer), timeout (no answer within the call timeout, a
// stream idle past its idle timeout, or the caller's deadline), cancelled
// (the caller cancelled), unauthorized (HTTP 401 or 403), protocol (not
// what the wire format promises), too_large (an answer, stream, frame or
// file over its cap), stream_failed (a stream ended before its terminal
// frame), quota (a download past the directory's quota), busy (as many
// streams as allowed already running), path_refused (a file to upload
// outside the root, or not a readable regular file; nothing sent) or
// local_io (the host's own disk failed a read or write of a transfer).
//
// Its message never contains the token, the call's params or the answer's
// body, so it can be shown to users and logged as it is.
type Error struct {
	Kind       outcome.Kind // why the call failed
	Op         string       // the OneBot action name; empty for a bare FrameReader
	HTTPStatus int          // the HTTP status when an answer arrived, else 0
	Err        error        // what happened, wrapping the underlying cause if any
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
// because its body was over the request body limit: a outcome.KindTooLarge whose
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
