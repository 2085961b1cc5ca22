package events

// Code classifies why the Hub refused a request.
type Code string

const (
	CodeInvalidFilter    Code = "invalid_filter"     // the filter is wrong; Field names the part
	CodeBadCursor        Code = "bad_cursor"         // a garbled cursor or one of another resource
	CodeUnknownResource  Code = "unknown_resource"   // no live resource has that id
	CodeTooManyResources Code = "too_many_resources" // MaxResources already exist
	CodeReleaseFirst     Code = "release_first"      // existing resources tie the connection to another account or a dead socket
	CodeUnauthorized     Code = "unauthorized"       // SnowLuma refused the token at the upgrade
	CodeConnect          Code = "connect"            // the WebSocket could not be opened
	CodeTimeout          Code = "timeout"            // opening the WebSocket took too long
	CodeCancelled        Code = "cancelled"          // the caller gave up while connecting
	CodeClosed           Code = "closed"             // the Hub was closed: the session ended
)

// An Error is a refusal in words: what is wrong and what to do about it. It
// never holds the token.
type Error struct {
	Code Code
	// Field names the filter field at fault, for CodeInvalidFilter.
	Field    string
	Message  string
	NextStep string
}

func (e *Error) Error() string { return e.Message }

func filterError(field, problem string) *Error {
	return &Error{Code: CodeInvalidFilter, Field: field, Message: field + ": " + problem,
		NextStep: "fix " + field + " and call subscribe_events again"}
}

func cursorError(problem string) *Error {
	return &Error{Code: CodeBadCursor, Message: problem,
		NextStep: "read the resource without ?after to get fresh cursors"}
}
