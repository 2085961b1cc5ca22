package channel

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// Remote approval. Claude Code gives each permission prompt it relays a
// request id of five lower-case letters from a to z without l (so that it
// is never read as 1 or I); an approver answers "yes <id>" or "no <id>"
// from their private chat with the bot, and the channel turns the answer
// into a verdict. This server's own confirmations use ids of the same
// shape, so one reply rule serves both.
const (
	// IDAlphabet is the letters of a request id.
	IDAlphabet = "abcdefghijkmnopqrstuvwxyz"
	IDLength   = 5
	// ApprovalTTL is how long a request can be answered.
	ApprovalTTL = 10 * time.Minute
	// MaxPending is how many requests wait at once; a new one past it
	// makes the oldest unanswerable.
	MaxPending = 32
	// MaxPreviewRunes caps the tool description and the input preview in
	// the message an approver reads. Claude Code already cuts the preview
	// to 200 characters.
	MaxPreviewRunes = 300
)

// Behaviors of a verdict, as notifications/claude/channel/permission
// carries them.
const (
	Allow = "allow"
	Deny  = "deny"
)

// ValidID reports whether id is a request id: five letters of
// IDAlphabet.
func ValidID(id string) bool {
	if len(id) != IDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if strings.IndexByte(IDAlphabet, id[i]) < 0 {
			return false
		}
	}
	return true
}

// NewID returns a fresh request id for one of this server's own
// confirmations.
func NewID() string {
	var b [IDLength]byte
	rand.Read(b[:])
	for i := range b {
		// 256 is not a multiple of 25; the bias is harmless for an id
		// that is also checked for uniqueness.
		b[i] = IDAlphabet[int(b[i])%len(IDAlphabet)]
	}
	return string(b[:])
}

// ParseVerdict reads an approver's reply: "yes <id>", "y <id>", "同意
// <id>" (and 允许) allow; "no <id>", "n <id>", "拒绝 <id>" deny. Case,
// full-width letters and spaces, surrounding quotes, invisible
// characters, a comma or colon between the word and the id (or nothing,
// after a Chinese word: 同意abcde) and a trailing full stop or
// exclamation mark do not matter; the id is returned in lower case.
// Anything else is not a verdict.
func ParseVerdict(text string) (id, behavior string, ok bool) {
	id, behavior, ok = parseWords(text)
	return id, behavior, ok && id != ""
}

// verdictWords are the words of a verdict, lower-case.
var verdictWords = map[string]string{"y": Allow, "yes": Allow, "同意": Allow, "允许": Allow, "n": Deny, "no": Deny, "拒绝": Deny}

// parseWords reads a verdict whose id may be missing (id ""): the word
// alone answers the prompt a quote-reply quotes.
func parseWords(text string) (id, behavior string, ok bool) {
	text = strings.ToLower(foldWidth(qqmsg.Clean(text, false)))
	text = strings.Map(func(r rune) rune {
		if r == ',' || r == ':' || r == '、' || r == '，' || r == '：' {
			return ' '
		}
		return r
	}, text)
	text = strings.TrimRight(strings.Trim(text, " \"'“”‘’「」"), ".!。！ ")
	fields := strings.Fields(text)
	if len(fields) == 1 {
		// 同意abcde: a Chinese word needs no space before the id.
		for _, w := range []string{"同意", "允许", "拒绝"} {
			if rest, cut := strings.CutPrefix(fields[0], w); cut && rest != "" {
				fields = []string{w, rest}
			}
		}
	}
	if len(fields) == 0 || len(fields) > 2 {
		return "", "", false
	}
	if behavior, ok = verdictWords[fields[0]]; !ok {
		return "", "", false
	}
	if len(fields) == 1 {
		return "", behavior, true
	}
	id = strings.Trim(fields[1], " \"'“”‘’「」")
	if !ValidID(id) {
		return "", "", false
	}
	return id, behavior, true
}

// foldWidth turns full-width ASCII forms (ｙｅｓ ａｂｃｄｅ) and the
// ideographic space into their ASCII forms, as a Chinese input method
// may type them.
func foldWidth(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\u3000':
			return ' '
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFEE0
		}
		return r
	}, s)
}

// A Request is one approval waiting for an answer.
type Request struct {
	ID string
	// Tool is the tool (or action) to approve; Description what it does;
	// Preview its input, shortened.
	Tool, Description, Preview string
	// Own marks one of this server's own confirmations rather than
	// Claude Code's.
	Own     bool
	expires time.Time
}

// Prompt is the private message an approver receives for r.
func (r *Request) Prompt() string {
	var b strings.Builder
	who := "Claude Code 请求使用工具"
	if r.Own {
		who = "snowluma-mcp 请求确认操作"
	}
	fmt.Fprintf(&b, "%s：%s\n", who, qqmsg.CleanName(r.Tool))
	// The description is the requester's text: one quoted line, so that
	// its line breaks cannot draw a 参数： or reply line of their own.
	if d, _ := qqmsg.CapRunes(quoteMarks.Replace(qqmsg.Clean(r.Description, false)), MaxPreviewRunes); d != "" {
		b.WriteString("说明：「" + d + "」\n")
	}
	if p, _ := qqmsg.CapRunes(qqmsg.Clean(r.Preview, false), MaxPreviewRunes); p != "" {
		b.WriteString("参数：" + p + "\n")
	}
	fmt.Fprintf(&b, "回复 yes %[1]s 允许，回复 no %[1]s 拒绝（也可回复 同意 %[1]s 或 拒绝 %[1]s），%[2]d 分钟内有效。", r.ID, int(ApprovalTTL/time.Minute))
	return b.String()
}

// quoteMarks keeps a quoted description from closing its own quote.
var quoteMarks = strings.NewReplacer("「", "『", "」", "』")

// A Verdict is an approver's answer to a request.
type Verdict struct {
	Request  Request
	Behavior string // Allow or Deny
	Approver int64
}

// Relay holds the requests sent to approvers until one is answered. It
// is not safe for concurrent use; the Channel serialises it.
type Relay struct {
	approvers map[int64]struct{}
	pending   []*Request // oldest first
	// prompts maps the message id of each prompt sent to an approver to
	// its request, so that a quote-reply names the request; promptOrder
	// bounds it.
	prompts     map[int64]string
	promptOrder []int64
}

// maxPrompts is how many prompt message ids a relay remembers.
const maxPrompts = 4 * MaxPending

// NewRelay returns a relay for the approvers' QQ numbers.
func NewRelay(approvers []int64) *Relay {
	r := &Relay{approvers: map[int64]struct{}{}, prompts: map[int64]string{}}
	for _, a := range approvers {
		r.approvers[a] = struct{}{}
	}
	return r
}

// IsApprover reports whether user may answer.
func (r *Relay) IsApprover(user int64) bool {
	_, ok := r.approvers[user]
	return ok
}

// Open registers req, answerable until now+ApprovalTTL. It refuses an id
// that is not five letters of IDAlphabet or that is already waiting.
func (r *Relay) Open(req Request, now time.Time) error {
	if !ValidID(req.ID) {
		return fmt.Errorf("request_id %q is not five letters a-z without l", clip(req.ID))
	}
	r.expire(now)
	for _, p := range r.pending {
		if p.ID == req.ID {
			return fmt.Errorf("request_id %q is already waiting for an answer", req.ID)
		}
	}
	if len(r.pending) >= MaxPending {
		r.pending = r.pending[1:]
	}
	req.expires = now.Add(ApprovalTTL)
	r.pending = append(r.pending, &req)
	return nil
}

// Cancel forgets request id (answered elsewhere); it reports whether it
// was waiting.
func (r *Relay) Cancel(id string) bool {
	for i, p := range r.pending {
		if p.ID == id {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			return true
		}
	}
	return false
}

func (r *Relay) expire(now time.Time) {
	keep := r.pending[:0]
	for _, p := range r.pending {
		if now.Before(p.expires) {
			keep = append(keep, p)
		}
	}
	clear(r.pending[len(keep):])
	r.pending = keep
}

// Prompted records that the prompt of request id was sent as message
// messageID, so that a quote-reply to it answers id.
func (r *Relay) Prompted(id string, messageID int64) {
	if messageID == 0 {
		return
	}
	if _, ok := r.prompts[messageID]; !ok {
		if len(r.promptOrder) >= maxPrompts {
			delete(r.prompts, r.promptOrder[0])
			r.promptOrder = r.promptOrder[1:]
		}
		r.promptOrder = append(r.promptOrder, messageID)
	}
	r.prompts[messageID] = id
}

// Pending reports whether request id is still answerable.
func (r *Relay) Pending(id string) bool {
	for _, p := range r.pending {
		if p.ID == id {
			return true
		}
	}
	return false
}

// Answer reads a private message of user at now: its text, and quotes,
// the message its reply segment quotes (0 when none). consumed reports
// that the message is an approver's verdict (it is then never pushed as
// a message); v is set when it answers a waiting request, which it then
// closes. A verdict names its request by id, or without an id by quoting
// the request's prompt. When consumed is true and v is nil, note says why
// nothing happened (an unknown or expired id, a quote of another
// request's prompt), for stderr. Messages of anyone else, and an
// approver's messages that are not a verdict (a bare "yes" that quotes
// no prompt), are not consumed.
func (r *Relay) Answer(user int64, text string, quotes int64, now time.Time) (v *Verdict, consumed bool, note string) {
	if !r.IsApprover(user) {
		return nil, false, ""
	}
	id, behavior, ok := parseWords(text)
	if !ok {
		return nil, false, ""
	}
	quoted := r.prompts[quotes]
	switch {
	case id == "" && quoted == "":
		return nil, false, ""
	case id == "":
		id = quoted
	case quoted != "" && quoted != id:
		return nil, true, fmt.Sprintf("channel: approver %d answered %q for request %s while quoting the prompt of request %s; ignored", user, behavior, id, quoted)
	}
	r.expire(now)
	for i, p := range r.pending {
		if p.ID == id {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			return &Verdict{Request: *p, Behavior: behavior, Approver: user}, true, ""
		}
	}
	return nil, true, fmt.Sprintf("channel: approver %d answered %q for request %s, which is unknown or expired (requests last %v); ignored", user, behavior, id, ApprovalTTL)
}

// Waiting counts the requests still answerable at now.
func (r *Relay) Waiting(now time.Time) int {
	r.expire(now)
	return len(r.pending)
}

func clip(s string) string { return quote.Clip(s, 16) }

// verdictText reads a private message for the relay: the text of its
// text segments and the message its reply segment quotes (a quote-reply
// arrives as a reply segment, then the text; an at segment a client may
// add is skipped). A message that holds anything else reads as its
// rendered text, which no verdict matches.
func verdictText(segs []qqmsg.Segment, selfID int64) (text string, quotes int64) {
	var b strings.Builder
	for _, s := range segs {
		switch s.Type {
		case "text":
			b.WriteString(s.Data["text"])
		case "at":
		case "reply":
			if quotes == 0 {
				quotes, _ = strconv.ParseInt(strings.TrimSpace(s.Data["id"]), 10, 64)
			}
		default:
			return qqmsg.Render(segs, selfID).Text, 0
		}
	}
	return b.String(), quotes
}
