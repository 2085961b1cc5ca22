package catalog

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// An Effect is what an action does with its params once SnowLuma runs it,
// taken from SnowLuma 1.11.1's own handler (Source names the file under
// packages/onebot/src/): where a write lands and which params carry what
// reaches others, or whose text a read hands back. The send gate, the
// allowlists, the dry run and the audit read it, so that they judge what
// SnowLuma will do rather than what the params look like.
type Effect struct {
	// Source is the handler's file, such as "actions/message.ts".
	Source string `json:"src"`

	// To says how SnowLuma picks a write's destination; see the Dest*
	// constants. Empty for a read.
	To string `json:"to,omitempty"`
	// Text are the params whose strings reach others as words (a notice,
	// a card, a nickname, a comment).
	Text []string `json:"text,omitempty"`
	// Message are the params SnowLuma parses as a OneBot message (a
	// string, a JSON-array string, CQ codes, segments, forward nodes).
	Message []string `json:"message,omitempty"`
	// Media are the params SnowLuma loads as a source: base64:// data,
	// an http(s) URL it fetches, or a local path it opens (a string or an
	// array of them).
	Media []string `json:"media,omitempty"`
	// Fetch are the params SnowLuma loads as a source for its own use (a
	// download, OCR): a local file stays on its side, but a URL is
	// fetched, carrying whatever its query string holds.
	Fetch []string `json:"fetch,omitempty"`
	// Carries are the params naming existing messages whose content the
	// write copies to its destination (a forward of one message).
	Carries []string `json:"carries,omitempty"`

	// Reads says whose text a read's answer holds; see the Reads*
	// constants. Empty for a write.
	Reads string `json:"reads,omitempty"`
}

// How a write's destination is found (Effect.To), each as SnowLuma's
// handler does it.
const (
	// DestGroup: the group its group_id names; nothing else.
	DestGroup = "group"
	// DestUser: the private chat of the person its user_id names; a
	// group_id beside it is ignored (send_private_msg, upload_private_file).
	DestUser = "user"
	// DestMember: a member (user_id) of the group its group_id names: the
	// group is the chat.
	DestMember = "member"
	// DestSendMsg: send_msg's routing: the group when message_type is
	// "group" or a group_id is present, else the user_id's private chat.
	DestSendMsg = "send_msg"
	// DestSendForward: send_forward_msg's routing: the group when
	// message_type is "group" or group_id is a positive number, else the
	// private chat when message_type is "private" or user_id is positive,
	// else no chat (the forward is only uploaded).
	DestSendForward = "send_forward_msg"
	// DestPoke: send_poke: in the group when group_id is given (the
	// user_id is its member), else the user_id's private chat.
	DestPoke = "poke"
	// DestEach: every id given is a destination (send_flash_msg).
	DestEach = "each"
	// DestMessage: the chat of the message its message_id names, which
	// SnowLuma looks up in its own store; the params do not tell it.
	DestMessage = "message"
	// DestFlag: the person behind a request's flag, whom the params do
	// not name.
	DestFlag = "flag"
	// DestSelf: the bot's own account or SnowLuma's own store; nothing
	// reaches a chat.
	DestSelf = "self"
	// DestPublic: it publishes outside any chat (QZone, the profile, the
	// long nick, the online status, the avatar, a share link, a raw
	// packet).
	DestPublic = "public"
)

// Whose text a read's answer holds (Effect.Reads).
const (
	// ReadsNone: nothing written by other people.
	ReadsNone = "none"
	// ReadsGroup: text of the group its group_id names.
	ReadsGroup = "group"
	// ReadsUser: text of the person its user_id names.
	ReadsUser = "user"
	// ReadsTarget: the group its group_id names, else the person.
	ReadsTarget = "target"
	// ReadsAnswer: one message, whose chat the answer names (get_msg).
	ReadsAnswer = "answer"
	// ReadsAnswerIDs: a list whose entries name their own group or person
	// (group and friend lists: each name is that chat's text).
	ReadsAnswerIDs = "answerIds"
	// ReadsUnknown: text of chats the answer cannot tell (a forward,
	// feeds, OCR, a voice's transcript, reactions, recent contacts).
	ReadsUnknown = "unknown"
)

// Write reports whether e is a write's effect.
func (e Effect) Write() bool { return e.To != "" }

// OthersText reports whether a read's answer holds text written by
// other people.
func (e Effect) OthersText() bool { return e.Reads != "" && e.Reads != ReadsNone }

//go:embed effects.json
var effectsJSON []byte

// effects is the decoded effect model, made on first use.
var effects = sync.OnceValues(func() (map[string]Effect, error) {
	var m map[string]Effect
	if err := json.Unmarshal(effectsJSON, &m); err != nil {
		return nil, fmt.Errorf("catalog: effects.json: %w", err)
	}
	return m, nil
})

// EffectOf returns the effect of the action named name (its canonical
// name, not an alias), and whether the model has one.
func EffectOf(name string) (Effect, bool) {
	m, err := effects()
	if err != nil {
		return Effect{}, false
	}
	e, ok := m[name]
	return e, ok
}

// Effects returns the whole effect model by action name.
func Effects() (map[string]Effect, error) { return effects() }
