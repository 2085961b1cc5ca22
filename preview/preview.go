// Package preview drafts a plain-text QQ message without sending it: it
// checks the draft's arguments, renders what QQ will show, and prepares the
// exact invoke_action arguments that would send it. Text is always literal:
// anything that looks like a CQ code or HTML stays text, because the
// prepared call sends it with auto_escape (or as a text segment when the
// message quotes a reply). The package contacts nothing and knows nothing of
// MCP; internal/server wires it to the preview_message tool.
package preview

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of a draft.
const (
	// MaxText is the most characters (Unicode code points, as JSON Schema's
	// maxLength counts them) a draft's text may hold.
	MaxText = 4500
	// MaxSafeInteger is the largest integer every JSON peer reads exactly
	// (2^53-1); target ids above it would be rounded by some clients.
	MaxSafeInteger = 1<<53 - 1
)

// Message types a draft can be sent as.
const (
	Group   = "group"
	Private = "private"
)

// Args are preview_message's arguments as received. The numbers stay
// json.Number so that a fraction, an exponent or an out-of-range value is
// reported instead of being rounded on decoding.
type Args struct {
	MessageType string      `json:"message_type"`
	TargetID    json.Number `json:"target_id"`
	Text        string      `json:"text"`
	ReplyTo     json.Number `json:"reply_to,omitempty"`
}

// A Problem is one bad argument: its name and what a valid value looks like.
type Problem struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

func (p Problem) String() string { return p.Field + ": " + p.Problem }

// Draft is the readable message: what QQ will show once it is sent.
type Draft struct {
	MessageType string `json:"message_type"`
	TargetID    int64  `json:"target_id"`
	// ReplyTo is the quoted message's id, when the draft replies to one.
	ReplyTo *int32 `json:"reply_to,omitempty"`
	// Text is the message text exactly as it will be sent and shown.
	Text string `json:"text"`
	// Readable is the whole draft as a person reads it: recipient, quoted
	// reply and text.
	Readable string `json:"readable"`
}

// Invoke is the exact invoke_action arguments that send the draft.
type Invoke struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params"`
}

// Preview is preview_message's result.
type Preview struct {
	Draft Draft `json:"draft"`
	// CanSend reports whether this server could send the draft now: only in
	// write mode, where invoke_action runs.
	CanSend bool `json:"can_send"`
	// CannotSend says why CanSend is false, so a panel can show the reason.
	CannotSend string `json:"cannot_send,omitempty"`
	Invoke     Invoke `json:"invoke"`
}

// Prepare checks args and builds the preview. canSend is whether the
// server runs in write mode; cannotSend is the reason shown otherwise. Every
// bad argument is reported, in argument order; with any problem there is no
// preview.
func Prepare(args Args, canSend bool, cannotSend string) (*Preview, []Problem) {
	var problems []Problem
	bad := func(field, format string, a ...any) {
		problems = append(problems, Problem{Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	switch args.MessageType {
	case Group, Private:
	case "":
		bad("message_type", "required: %q or %q", Group, Private)
	default:
		bad("message_type", "must be %q or %q", Group, Private)
	}
	target, ok := integer(args.TargetID)
	switch {
	case args.TargetID == "":
		bad("target_id", "required: the group number (group) or QQ number (private), a positive integer")
	case !ok || target < 1 || target > MaxSafeInteger:
		bad("target_id", "must be a positive integer no larger than %d", int64(MaxSafeInteger))
	}
	n := utf8.RuneCountInString(args.Text)
	switch {
	case !utf8.ValidString(args.Text):
		bad("text", "must be valid UTF-8 text")
	case n == 0:
		bad("text", "required: 1 to %d characters of message text", MaxText)
	case n > MaxText:
		bad("text", "has %d characters; at most %d fit in one message", n, MaxText)
	}
	var replyTo *int32
	if args.ReplyTo != "" {
		id, ok := integer(args.ReplyTo)
		if !ok || id == 0 || id < math.MinInt32 || id > math.MaxInt32 {
			bad("reply_to", "must be a non-zero signed 32-bit message id (%d to %d), as a message event or a send_*_msg result gives it", math.MinInt32, math.MaxInt32)
		} else {
			r := int32(id)
			replyTo = &r
		}
	}
	if problems != nil {
		return nil, problems
	}
	if canSend {
		cannotSend = ""
	}
	d := Draft{MessageType: args.MessageType, TargetID: target, ReplyTo: replyTo, Text: args.Text}
	d.Readable = readable(d)
	return &Preview{Draft: d, CanSend: canSend, CannotSend: cannotSend, Invoke: invoke(d)}, nil
}

// integer reads n as an integer, rejecting fractions and values outside
// int64. An exponent form of an integer (2e4) is accepted, as JSON Schema's
// "integer" accepts it.
func integer(n json.Number) (int64, bool) {
	if n == "" {
		return 0, false
	}
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return i, true
	}
	f, ok := new(big.Float).SetString(string(n))
	if !ok || !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	return i, acc == big.Exact
}

// readable renders d as a person reads it.
func readable(d Draft) string {
	var b strings.Builder
	if d.MessageType == Group {
		fmt.Fprintf(&b, "To group %d", d.TargetID)
	} else {
		fmt.Fprintf(&b, "To QQ user %d (private)", d.TargetID)
	}
	if d.ReplyTo != nil {
		fmt.Fprintf(&b, ", quoting message %d", *d.ReplyTo)
	}
	b.WriteString(":\n")
	b.WriteString(d.Text)
	return b.String()
}

// segment is one OneBot message segment.
type segment struct {
	Type string            `json:"type"`
	Data map[string]string `json:"data"`
}

// invoke prepares the call that sends d. A plain message is a string with
// auto_escape, so SnowLuma parses no CQ code in it; a reply is a reply
// segment followed by a text segment, whose text is never parsed either.
func invoke(d Draft) Invoke {
	params := map[string]any{}
	action := "send_private_msg"
	if d.MessageType == Group {
		action = "send_group_msg"
		params["group_id"] = d.TargetID
	} else {
		params["user_id"] = d.TargetID
	}
	if d.ReplyTo == nil {
		params["message"] = d.Text
		params["auto_escape"] = true
	} else {
		params["message"] = []segment{
			{Type: "reply", Data: map[string]string{"id": strconv.FormatInt(int64(*d.ReplyTo), 10)}},
			{Type: "text", Data: map[string]string{"text": d.Text}},
		}
	}
	raw, err := marshal(params)
	if err != nil {
		// Strings, integers and segments always encode.
		panic(fmt.Sprintf("preview: encoding params: %v", err))
	}
	return Invoke{Action: action, Params: raw}
}

// marshal encodes v without HTML escaping, so the prepared params show the
// text's characters as they are.
func marshal(v any) (json.RawMessage, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(strings.TrimSuffix(b.String(), "\n")), nil
}
