package simulator

import (
	"net/http"
	"strings"
	"testing"
)

// TestSandbox: the sandbox asks for its tokens, one for HTTP and another
// for WebSocket, serves its world and says which actions it does not
// simulate.
func TestSandbox(t *testing.T) {
	sb, err := NewSandbox(SandboxOptions{Seed: 9, Actions: []string{"get_qzone_feeds"}, Trickle: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.Token == "" || sb.EventsToken == "" || sb.Token == sb.EventsToken {
		t.Fatalf("tokens %q and %q", sb.Token, sb.EventsToken)
	}
	if status, _ := post(t, sb.Server, "/get_login_info", `{}`, nil); status != http.StatusUnauthorized {
		t.Errorf("without the token: HTTP %d", status)
	}
	auth := http.Header{"Authorization": {"Bearer " + sb.Token}}
	if _, body := post(t, sb.Server, "/get_group_list", `{}`, auth); !strings.Contains(body, `"group_name"`) {
		t.Errorf("get_group_list: %s", body)
	}
	if _, body := post(t, sb.Server, "/get_qzone_feeds", `{}`, auth); !strings.Contains(body, "not simulated by the sandbox") {
		t.Errorf("an unsimulated action: %s", body)
	}
	if len(sb.Requests()) != 0 {
		t.Error("the sandbox keeps every request in memory")
	}
}
