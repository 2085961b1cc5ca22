package channel

import (
	"strings"
	"testing"
)

func TestCatchUp(t *testing.T) {
	msgs := []*Message{msg(20001, 1, 7, "第七条"), msg(20001, 2, 8, "第八条"), msg(20001, 1, 9, "第九条")}
	p := CatchUp(12, msgs, `read_messages {"group_id":20001,"around":1}`)
	lines := strings.Split(p.Content, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "12 条新消息") || !strings.Contains(lines[0], "read_messages") ||
		!strings.Contains(lines[3], "#9: 第九条") || p.Meta[MetaMissed] != "12" || p.Meta[MetaCount] != "3" ||
		p.Meta[MetaMessageID] != "9" || p.Meta[MetaTrust] != TrustUntrusted {
		t.Fatalf("catch-up of 12: %q %v", p.Content, p.Meta)
	}
	// All of them shown: no hint; one message still names its sender.
	p = CatchUp(1, msgs[:1], "hint")
	if strings.Contains(p.Content, "hint") || !strings.Contains(p.Content, "#7: 第七条") || p.Meta[MetaMissed] != "1" {
		t.Fatalf("catch-up of 1: %q %v", p.Content, p.Meta)
	}
}
