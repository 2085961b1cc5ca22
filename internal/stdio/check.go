package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A refusal is the answer to a line that is not passed on.
type refusal struct {
	code    int64
	id      jsonrpc.ID // the request's id when it could be read
	message string     // for the client: what is wrong and what to send
	problem string     // for stderr: what is wrong, never the input
	silent  bool       // a notification: logged, not answered
}

// maxSafeInt is the largest integer every JSON implementation reads exactly.
const maxSafeInt = 1<<53 - 1

// check decides what to do with one input line (newline excluded): it
// returns the message to pass on, a refusal, or neither for a blank line.
// It builds the message itself, as jsonrpc.DecodeMessage would: that
// function decodes the line a second time, and the SDK's decoder takes a
// 32 KiB buffer for every value it decodes.
func check(line []byte) (jsonrpc.Message, *refusal) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	invalid := func(id jsonrpc.ID, what, problem string) *refusal {
		return &refusal{code: jsonrpc.CodeInvalidRequest, id: id,
			message: "Invalid request: " + what + "; send one JSON-RPC 2.0 message object per line",
			problem: problem}
	}
	// The depth comes first: encoding/json gives up on its own at 10,000
	// levels and calls that invalid, so checked second the one limit
	// would turn into a parse error past that depth.
	if tooDeep(line, MaxDepth) {
		return nil, invalid(jsonrpc.ID{}, fmt.Sprintf("arrays and objects nest deeper than %d levels", MaxDepth),
			fmt.Sprintf("nested deeper than %d levels", MaxDepth))
	}
	if !json.Valid(line) {
		return nil, &refusal{code: jsonrpc.CodeParseError,
			message: "Parse error: the line is not valid JSON; send one JSON-RPC 2.0 message object per line",
			problem: "not valid JSON"}
	}
	switch line[0] {
	case '{':
	case '[':
		if bytes.Equal(bytes.Join(bytes.Fields(line), nil), []byte("[]")) {
			return nil, invalid(jsonrpc.ID{}, "an empty batch", "an empty batch")
		}
		return nil, invalid(jsonrpc.ID{}, "batches are not supported", "a batch")
	default:
		return nil, invalid(jsonrpc.ID{}, "the line is not a JSON object", "not a JSON object")
	}

	// A map, not a struct: its keys match exactly, as the SDK's decoder
	// matches field names, where encoding/json would also take "Method".
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return nil, invalid(jsonrpc.ID{}, "the message cannot be read", "unreadable message object")
	}
	m := struct{ JSONRPC, ID, Method, Params, Result, Error json.RawMessage }{
		fields["jsonrpc"], fields["id"], fields["method"], fields["params"], fields["result"], fields["error"]}
	id, idErr := readID(m.ID)
	if idErr != "" {
		return nil, invalid(jsonrpc.ID{}, idErr, idErr)
	}
	if string(m.JSONRPC) != `"2.0"` {
		return nil, invalid(id, `"jsonrpc" must be "2.0"`, `"jsonrpc" is not "2.0"`)
	}
	if m.Method != nil {
		var method string
		if json.Unmarshal(m.Method, &method) != nil {
			return nil, invalid(id, `"method" must be a string`, `"method" is not a string`)
		}
		if m.Params != nil && m.Params[0] != '{' && string(m.Params) != "null" {
			return nil, &refusal{code: jsonrpc.CodeInvalidParams, id: id, silent: !id.IsValid(),
				message: `Invalid params: "params" must be a JSON object, e.g. {}; a 2026-07-28 request carries its protocolVersion, clientCapabilities and clientInfo in params._meta`,
				problem: `"params" is not an object`}
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: m.Params}, nil
	}
	if !id.IsValid() || (m.Result == nil) == (m.Error == nil) {
		return nil, invalid(id, `a message needs "method" (a request or notification) or "id" with one of "result" and "error" (a response)`,
			"neither a request nor a response")
	}
	resp := &jsonrpc.Response{ID: id, Result: m.Result}
	if m.Error != nil {
		werr, ok := readError(m.Error)
		if !ok {
			return nil, invalid(id, `"error" must be an object with an integer "code" and a string "message"`, `"error" is not an error object`)
		}
		if werr != nil {
			resp.Error = werr
		}
	}
	return resp, nil
}

// readError reads a response's error object as the SDK's decoder does: keys
// matched exactly, code an integer, message a string, data kept raw. A
// JSON null is no error.
func readError(raw json.RawMessage) (*jsonrpc.Error, bool) {
	if string(raw) == "null" {
		return nil, true
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return nil, false
	}
	e := &jsonrpc.Error{}
	if c := fields["code"]; c != nil && json.Unmarshal(c, &e.Code) != nil {
		return nil, false
	}
	if m := fields["message"]; m != nil && json.Unmarshal(m, &e.Message) != nil {
		return nil, false
	}
	if d := fields["data"]; d != nil && string(d) != "null" {
		e.Data = d
	}
	return e, true
}

// readID reads a message's id: absent, a string, or an integer that every
// JSON implementation reads exactly. It returns what is wrong otherwise.
func readID(raw json.RawMessage) (jsonrpc.ID, string) {
	const want = `"id" must be a string or an integer`
	switch {
	case raw == nil:
		return jsonrpc.ID{}, ""
	case string(raw) == "null":
		return jsonrpc.ID{}, want
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, want
		}
		id, _ := jsonrpc.MakeID(s)
		return id, ""
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > maxSafeInt || n < -maxSafeInt {
		return jsonrpc.ID{}, want + " between -(2^53-1) and 2^53-1"
	}
	id, _ := jsonrpc.MakeID(float64(n))
	return id, ""
}

// cancelledID reads the requestId of a notifications/cancelled.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, problem := readID(p.RequestID)
	return id, problem == "" && id.IsValid()
}

// tooDeep reports whether arrays and objects nest deeper than limit in b,
// counting the brackets outside strings. It scans without recursion, and
// before b is known to be valid JSON: the same limit holds at any depth.
func tooDeep(b []byte, limit int) bool {
	depth := 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			if depth > limit {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// lineReader splits the input into lines of at most max bytes.
type lineReader struct {
	r   *bufio.Reader
	max int
}

// next returns the next line without its newline and the line's length.
// A line longer than max is read to its end but not kept: line is nil and
// size is more than max. At the end of the input, a last line without a
// newline is returned with io.EOF; err is io.EOF with size 0 when nothing
// is left.
func (l *lineReader) next() (line []byte, size int, err error) {
	for {
		chunk, err := l.r.ReadSlice('\n')
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
		}
		if size+len(body) > l.max {
			line = nil
		} else {
			line = append(line, body...)
		}
		size += len(body)
		switch {
		case err == nil:
			if line == nil && size <= l.max {
				line = []byte{}
			}
			return line, size, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && size == 0:
			return nil, 0, io.EOF
		default:
			return line, size, err
		}
	}
}
