package mcptest

import (
	"strings"
	"testing"
)

// TestChannelShapes: Claude Code's channel notifications are checked
// against its channels reference's shapes, and a wrong one fails.
func TestChannelShapes(t *testing.T) {
	v := NewValidator(t, Legacy)
	if v == nil {
		t.Skip("no ../shared/reference: the schema check is skipped")
	}
	for _, ok := range []string{
		`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"hi","meta":{"group_id":"1","message_id":"2"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`,
		`{"jsonrpc":"2.0","method":"notifications/claude/channel/permission","params":{"request_id":"tbxkq","behavior":"allow"}}`,
	} {
		if err := v.Check([]byte(ok), ""); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{
		`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"meta":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"x","meta":{"group-id":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"x","meta":{"group_id":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"notifications/claude/channel","params":{"content":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/claude/channel/permission","params":{"request_id":"abcle","behavior":"allow"}}`,
		`{"jsonrpc":"2.0","method":"notifications/claude/channel/permission","params":{"request_id":"abcde","behavior":"maybe"}}`,
	} {
		if err := v.Check([]byte(bad), ""); err == nil || !strings.Contains(err.Error(), "channels reference") {
			t.Errorf("%s passed: %v", bad, err)
		}
	}
}
