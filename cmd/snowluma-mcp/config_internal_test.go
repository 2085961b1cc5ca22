package main

import (
	"bytes"
	"regexp"
	"testing"
	"text/template"

	"github.com/kelseyhightower/envconfig"
)

// TestKnownVariablesFollowEnv checks that the unknown-variable warning knows
// exactly the variables envconfig reads from env (the same list --help
// prints), so a field added to env is never warned about.
func TestKnownVariablesFollowEnv(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	tmpl := template.Must(template.New("keys").Parse("{{range .}}{{.Key}}\n{{end}}"))
	if err := envconfig.Usaget(envPrefix, &env{}, &b, tmpl); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`(?m)^\S+$`).FindAllString(b.String(), -1)
	known := knownVariables()
	if len(read) == 0 || len(read) != len(known) {
		t.Fatalf("envconfig reads %q, the warning knows %q", read, known)
	}
	for _, name := range read {
		if w := unknownVariables([]string{name + "=x"}); len(w) != 0 {
			t.Errorf("%s is read by envconfig but warned about: %q", name, w)
		}
	}
	if w := unknownVariables([]string{"SNOWLUMA_MCP_NOPE=x", "PATH=/bin", "SNOWLUMA_MCPX=1"}); len(w) != 1 {
		t.Errorf("warnings %q, want one for SNOWLUMA_MCP_NOPE", w)
	}
}

// TestEventsToken: SNOWLUMA_MCP_EVENTS_TOKEN, trimmed, is the events
// token when set; else SNOWLUMA_MCP_TOKEN is, and doctor is told which.
func TestEventsToken(t *testing.T) {
	t.Parallel()
	base := env{Timeout: "30000", MaxRequest: "4194304", MaxBody: "2097152", Validate: "true", Sensitive: "deny", Confirm: "none", SendInterval: "0", SendPerMinute: "0",
		MaxFileBytes: "1", DownloadQuota: "1", MaxStreams: "1", StreamConnect: "1", StreamIdle: "1", DownloadDir: t.TempDir(),
		Endpoint: "http://127.0.0.1:9/", Events: "ws://127.0.0.1:9/"}
	for _, tc := range []struct {
		token, events, want, from string
	}{
		{"http-tok", " ws-tok\r\n", "ws-tok", "set"},
		{"http-tok", "", "http-tok", "inherited"},
		{"http-tok", "  ", "http-tok", "inherited"},
		{"", "ws-tok", "ws-tok", "set"},
		{"", "", "", "unset"},
	} {
		e := base
		e.Token, e.EventsTok = tc.token, tc.events
		c, err := parseConfig(e, noEnv)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.EventsToken != tc.want || c.EventsTokenFrom != tc.from || c.Token != tc.token {
			t.Errorf("TOKEN %q EVENTS_TOKEN %q: events token %q (%s), token %q", tc.token, tc.events, c.EventsToken, c.EventsTokenFrom, c.Token)
		}
	}
	e := base
	e.Events, e.EventsTok = "", "ws-tok"
	if c, err := parseConfig(e, noEnv); err != nil || len(c.Notes) != 1 || !bytes.Contains([]byte(c.Notes[0]), []byte("SNOWLUMA_MCP_EVENTS_TOKEN ignored")) {
		t.Errorf("events token without an events URL: %v %q", err, c.Notes)
	}
}

// noEnv is an empty environment.
func noEnv(string) string { return "" }
