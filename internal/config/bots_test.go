package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/safety"
)

// TestOneBotAsToday: without SNOWLUMA_MCP_BOTS there is one bot, named
// main, whose settings are the unsuffixed variables'.
func TestOneBotAsToday(t *testing.T) {
	c, err := Load(base(t, "SNOWLUMA_MCP_TOKEN=tok-main-123", "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:8/"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bots) != 1 {
		t.Fatalf("%d bots, want 1", len(c.Bots))
	}
	b := c.Bots[0]
	if b.Label != DefaultBot || b.Endpoint != c.Endpoint || b.Token != "tok-main-123" || b.EventsURL != c.EventsURL || b.EventsToken != "tok-main-123" || b.Suffix != "" {
		t.Errorf("the one bot: %+v", b)
	}
}

// TestThreeBots: an operator with three accounts names them in
// SNOWLUMA_MCP_BOTS and gives each further one its own suffixed variables;
// no token is taken from another bot, and the suffixed names are not
// warned about (but a misspelt label's are).
func TestThreeBots(t *testing.T) {
	dir := t.TempDir()
	env := base(t,
		"SNOWLUMA_MCP_BOTS=main, Alt ,backup",
		"SNOWLUMA_MCP_MODE=write",
		"SNOWLUMA_MCP_TOKEN=tok-main-123",
		"SNOWLUMA_MCP_TASK_DIR="+dir,
		"SNOWLUMA_MCP_ENDPOINT_ALT=http://127.0.0.1:3010/",
		"SNOWLUMA_MCP_TOKEN_ALT=tok-alt-4567",
		"SNOWLUMA_MCP_EVENTS_URL_ALT=ws://127.0.0.1:3011/",
		"SNOWLUMA_MCP_ENDPOINT_BACKUP=http://127.0.0.1:3020/",
		"SNOWLUMA_MCP_EVENTS_TOKEN_BACKUP=ws-backup-890",
		"SNOWLUMA_MCP_TOKEN_BAKCUP=oops",
	)
	c, err := Load(env)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bots) != 3 {
		t.Fatalf("bots %+v", c.Bots)
	}
	main, alt, backup := c.Bots[0], c.Bots[1], c.Bots[2]
	if main.Label != "main" || main.Token != "tok-main-123" || main.Endpoint.String() != "http://127.0.0.1:9/" {
		t.Errorf("main %+v", main)
	}
	if alt.Label != "alt" || alt.Suffix != "_ALT" || alt.Endpoint.String() != "http://127.0.0.1:3010/" || alt.Token != "tok-alt-4567" ||
		alt.EventsURL.String() != "ws://127.0.0.1:3011/" || alt.EventsToken != "tok-alt-4567" || alt.EventsTokenFrom != "inherited" {
		t.Errorf("alt %+v", alt)
	}
	if backup.Token != "" || backup.EventsURL != nil || backup.EventsToken != "ws-backup-890" || backup.EventsTokenFrom != "set" {
		t.Errorf("backup %+v: no token of its own, none borrowed", backup)
	}
	if len(c.Misspelt) != 1 || c.Misspelt[0].Name != "SNOWLUMA_MCP_TOKEN_BAKCUP" || c.Misspelt[0].Closest != "SNOWLUMA_MCP_TOKEN_BACKUP" {
		t.Errorf("misspelt %+v, want only TOKEN_BAKCUP, closest TOKEN_BACKUP", c.Misspelt)
	}
	a := c.ForBot(1)
	if a.Endpoint != alt.Endpoint || a.Token != alt.Token || a.EventsURL != alt.EventsURL || a.TaskDir != "" || a.Mode != ModeWrite {
		t.Errorf("ForBot(1): endpoint %v token %q task dir %q mode %s", a.Endpoint, a.Token, a.TaskDir, a.Mode)
	}
	if a.Streams.DownloadDir != filepath.Join(c.Streams.DownloadDir, "alt") {
		t.Errorf("alt's downloads go to %q, want a subdirectory alt of %q", a.Streams.DownloadDir, c.Streams.DownloadDir)
	}
	if m := c.ForBot(0); m.TaskDir != dir || m.Token != "tok-main-123" || m.Streams.DownloadDir != c.Streams.DownloadDir {
		t.Errorf("ForBot(0): task dir %q", m.TaskDir)
	}
}

// TestBotErrors: a bad label list, and a further bot without its
// endpoint or with a bad token, stop the start naming the variable, in
// both languages, never repeating a token.
func TestBotErrors(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		v    string
		want string
	}{
		{[]string{"SNOWLUMA_MCP_BOTS=main,9lives"}, "BOTS", `"9lives" is not a label`},
		{[]string{"SNOWLUMA_MCP_BOTS=main,alt,main"}, "BOTS", "main is named twice"},
		{[]string{"SNOWLUMA_MCP_BOTS=main,alt"}, "ENDPOINT_ALT", "bot alt has no endpoint"},
		{[]string{"SNOWLUMA_MCP_BOTS=main,alt", "SNOWLUMA_MCP_ENDPOINT_ALT=ftp://h/"}, "ENDPOINT_ALT", "scheme"},
		{[]string{"SNOWLUMA_MCP_BOTS=main,alt", "SNOWLUMA_MCP_ENDPOINT_ALT=http://h/", "SNOWLUMA_MCP_TOKEN_ALT=Bearer s3cret"}, "TOKEN_ALT", "Bearer"},
	} {
		_, err := Load(base(t, tc.env...))
		var ce *Error
		if !errors.As(err, &ce) || ce.Var != tc.v || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v, want an error of %s holding %q", tc.env, err, tc.v, tc.want)
			continue
		}
		if zh := ce.In(lang.Zh); !han(lang.Zh.Text(ce.Accepted)) || strings.Contains(zh, "s3cret") {
			t.Errorf("%q: Chinese %q", tc.env, zh)
		}
	}
}

// TestBotAllowlistsAndAudit: each bot may have its own allowlists, the
// unsuffixed ones being every bot's default; with several bots every
// bot's audit lines name it, in the one file.
func TestBotAllowlistsAndAudit(t *testing.T) {
	audit := t.TempDir() + "/audit.jsonl"
	c, err := Load(base(t, "SNOWLUMA_MCP_BOTS=main,alt,backup", "SNOWLUMA_MCP_ENDPOINT_ALT=http://127.0.0.1:3010/", "SNOWLUMA_MCP_ENDPOINT_BACKUP=http://127.0.0.1:3020/",
		"SNOWLUMA_MCP_ALLOWED_GROUPS=20001,20002", "SNOWLUMA_MCP_ALLOWED_GROUPS_ALT=20003", "SNOWLUMA_MCP_ALLOWED_USERS_MAIN=30001",
		"SNOWLUMA_MCP_AUDIT_FILE="+audit))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Misspelt) != 0 {
		t.Errorf("misspelt %+v", c.Misspelt)
	}
	main, alt, backup := c.ForBot(0), c.ForBot(1), c.ForBot(2)
	if got := main.Safety.Groups.Sorted(); len(got) != 2 || main.Safety.Users.Sorted()[0] != 30001 {
		t.Errorf("main: groups %v users %v", got, main.Safety.Users.Sorted())
	}
	if got := alt.Safety.Groups.Sorted(); len(got) != 1 || got[0] != 20003 || alt.Safety.Users != nil {
		t.Errorf("alt: groups %v users %v", got, alt.Safety.Users.Sorted())
	}
	if got := backup.Safety.Groups.Sorted(); len(got) != 2 {
		t.Errorf("backup takes the shared groups: %v", got)
	}
	if err := alt.Safety.Audit.Append(safety.Record{Tool: "invoke_action", Action: "send_group_msg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(audit)
	if err != nil || !strings.Contains(string(b), `"bot":"alt"`) {
		t.Errorf("audit line %s (%v), want it to name alt", b, err)
	}
	if _, err := Load(base(t, "SNOWLUMA_MCP_BOTS=main,alt", "SNOWLUMA_MCP_ENDPOINT_ALT=http://h/", "SNOWLUMA_MCP_ALLOWED_USERS_ALT=x")); err == nil || !strings.Contains(err.Error(), "SNOWLUMA_MCP_ALLOWED_USERS_ALT") {
		t.Errorf("a bad bot allowlist: %v", err)
	}
}

// TestBotApprovers: a bot's own approvers replace the shared ones for it
// and must be within its allowed users; a bot without an events URL has
// no channel.
func TestBotApprovers(t *testing.T) {
	env := base(t, "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_BOTS=main,alt,backup", "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/",
		"SNOWLUMA_MCP_ENDPOINT_ALT=http://127.0.0.1:3010/", "SNOWLUMA_MCP_EVENTS_URL_ALT=ws://127.0.0.1:3011/", "SNOWLUMA_MCP_ENDPOINT_BACKUP=http://127.0.0.1:3020/",
		"SNOWLUMA_MCP_CHANNEL=all", "SNOWLUMA_MCP_CHANNEL_GROUPS=20001", "SNOWLUMA_MCP_CHANNEL_APPROVERS=30002", "SNOWLUMA_MCP_CHANNEL_APPROVERS_ALT=30003")
	c, err := Load(env)
	if err != nil {
		t.Fatal(err)
	}
	if a := c.ForBot(0).Channel.Approvers.Sorted(); len(a) != 1 || a[0] != 30002 {
		t.Errorf("main's approvers %v", a)
	}
	if a := c.ForBot(1).Channel.Approvers.Sorted(); len(a) != 1 || a[0] != 30003 {
		t.Errorf("alt's approvers %v", a)
	}
	if m := c.ForBot(2).Channel.Mode; m != "off" {
		t.Errorf("backup, without events, has a channel in mode %s", m)
	}
	_, err = Load(append(env, "SNOWLUMA_MCP_ALLOWED_USERS_ALT=30009"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Var != "CHANNEL_APPROVERS_ALT" || !strings.Contains(err.Error(), "SNOWLUMA_MCP_ALLOWED_USERS_ALT") {
		t.Errorf("alt's approver outside alt's users: %v", err)
	}
}
