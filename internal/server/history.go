package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// SnowLuma's history actions through query_action, as a model reads them:
// the messages as compact lines (qqmsg.AppendLines) in the operator's zone
// instead of SnowLuma's message events, which repeat every field and the
// segments beside the raw message for each of up to 200 messages; and, when
// the answer holds fewer messages than asked, a note that SnowLuma reaches
// no further back, so that the model does not page in vain.

// historyActions are the actions whose answer is {messages: [message
// event]} (packages/onebot/src/actions/extended.ts).
var historyActions = map[string]bool{"get_group_msg_history": true, "get_friend_msg_history": true}

// historyWindow is about how many of a chat's newest messages SnowLuma's
// history reaches (QQ's server answers no further back); the note says so.
const historyWindow = 99

// historyCount is the number of messages SnowLuma looks for: count, or 20
// when it is absent or not positive, at most 200
// (normalizeHistoryCount, packages/onebot/src/modules/message-actions.ts).
func historyCount(params json.RawMessage) int {
	var p struct {
		Count json.Number `json:"count"`
	}
	json.Unmarshal(params, &p)
	n, err := p.Count.Float64()
	switch {
	case err != nil || n < 1:
		return 20
	case n > 200:
		return 200
	}
	return int(n)
}

// historyData is the data of a history answer as lines.
type historyData struct {
	Count int    `json:"count"`
	Lines string `json:"lines,omitempty"`
	// Reach says, when SnowLuma answered fewer messages than asked, that
	// nothing older is within its reach.
	Reach string `json:"reach,omitempty"`
	Trust string `json:"trust"`
}

// historyLines rewrites a successful history answer's data as lines in
// loc; any other answer, and one it cannot read, comes back as it is. The
// answer was neutralized by the pipeline; the rendered text and names are
// neutralized again, as an event read's text is, since rendering joins
// segments. archive says whether the local archive can reach further.
func historyLines(r outcome.Reply, params json.RawMessage, loc *time.Location, archive bool) outcome.Reply {
	env, ok := r.Result.(json.RawMessage)
	if !ok || r.Diag.Outcome != outcome.OutcomeSuccess {
		return r
	}
	var fields map[string]json.RawMessage
	var data struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(env, &fields) != nil || json.Unmarshal(fields["data"], &data) != nil || data.Messages == nil {
		return r
	}
	lines := make([]qqmsg.Line, 0, len(data.Messages))
	for _, raw := range data.Messages {
		e, err := qqmsg.ParseEvent(raw)
		if err != nil {
			return r // not a message event: the answer stays SnowLuma's
		}
		rendered := qqmsg.Render(e.Segments, e.SelfID)
		l := qqmsg.Line{Sender: untrusted.NeutralizeAttr(e.Sender), UserID: e.UserID, MessageID: e.MessageID,
			Text: untrusted.Neutralize(rendered.Text), ReplyTo: rendered.ReplyTo, Own: e.SelfID != 0 && e.UserID == e.SelfID}
		if e.Time > 0 {
			l.Time = time.Unix(e.Time, 0)
		}
		lines = append(lines, l)
	}
	d := historyData{Count: len(lines), Lines: string(qqmsg.AppendLines(nil, lines, loc)), Trust: channel.TrustUntrusted}
	if want := historyCount(params); len(lines) < want {
		d.Reach = fmt.Sprintf("%d of the %d asked: SnowLuma's history reaches no further back (about the newest %d messages of a chat); an older message_id answers nothing", len(lines), want, historyWindow)
		if archive {
			d.Reach += "; search_messages and read_messages reach the archive's older messages"
		}
	}
	b, err := marshalText(d)
	if err != nil {
		return r
	}
	fields["data"] = b
	out, err := marshalText(fields)
	if err != nil {
		return r
	}
	r.Result = json.RawMessage(out)
	return r
}

// marshalText is v's JSON without HTML escaping: the text was neutralized
// already, and \u0026 costs a model six bytes for one.
func marshalText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
