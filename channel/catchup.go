package channel

import (
	"fmt"
	"strconv"

	"github.com/snowluma/snowluma-mcp/qqmsg"
)

// MetaMissed is the attribute of a catch-up push: how many of the chat's
// messages the host did not get when they arrived.
const MetaMissed = "missed"

// CatchUp is the one push that tells a host what it missed of a chat while
// no client listened: "N 条新消息", then the newest of them (msgs, oldest
// first, rendered as the channel renders a batch), then how to read the
// rest (readHint, e.g. a read_messages call).
func CatchUp(missed int64, msgs []*Message, readHint string) Push {
	b := &batch{msgs: msgs}
	p := b.push()
	if len(msgs) == 1 {
		// One message is pushed as its text alone; a catch-up names it.
		m := msgs[0]
		name := m.Sender
		if name == "" {
			name = "?"
		}
		p.Content = fmt.Sprintf("%s (%d) #%d: %s", name, m.UserID, m.MessageID, p.Content)
		delete(p.Meta, MetaReplyTo)
	}
	head := fmt.Sprintf("%d 条新消息（未送达时到达）", missed)
	if missed > int64(len(msgs)) {
		head += fmt.Sprintf("，以下是最新 %d 条；其余用 %s 读取", len(msgs), readHint)
	}
	p.Content, _ = qqmsg.CapRunes(head+"\n"+p.Content, MaxPushRunes)
	p.Meta[MetaMissed] = strconv.FormatInt(missed, 10)
	return p
}
