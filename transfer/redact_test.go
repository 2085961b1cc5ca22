package transfer

import (
	"errors"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/outcome"
)

// TestFailHidesTheToken: a token that reaches an error's message is
// replaced wherever it appears, and the rest of the message, ports and
// numbers included, is left alone. A token short enough to be mistaken
// for ordinary text (a token 3000 and the port of 127.0.0.1:3000) is
// hidden there too: the secret comes first (internal/config warns about
// such tokens, MinTokenLen).
func TestFailHidesTheToken(t *testing.T) {
	c := &Client{token: "Xq3-aZ81kP0"}
	e := c.fail("get_status", 0, outcome.KindTransport, errors.New(`dial 127.0.0.1:3000: header "Bearer Xq3-aZ81kP0" (Xq3-aZ81kP0) refused`))
	got := e.Err.Error()
	if want := `dial 127.0.0.1:3000: header "Bearer [redacted]" ([redacted]) refused`; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if e := c.fail("get_status", 0, outcome.KindTransport, errors.New("dial 127.0.0.1:3000: refused")); e.Err.Error() != "dial 127.0.0.1:3000: refused" {
		t.Errorf("a message without the token changed: %q", e.Err)
	}
	short := &Client{token: "3000"}
	if e := short.fail("get_status", 0, outcome.KindTransport, errors.New("dial 127.0.0.1:3000: token 3000 refused")); e.Err.Error() != "dial 127.0.0.1:[redacted]: token [redacted] refused" {
		t.Errorf("a short token: %q", e.Err)
	}
	if strings.Contains(got, c.token) {
		t.Error("the token leaked")
	}
}
