package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// base is a minimal read-mode environment with a private download
// directory, so that nothing of the test process's own HOME is used.
func base(t *testing.T, extra ...string) []string {
	return append([]string{
		"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/",
		"SNOWLUMA_MCP_DOWNLOAD_DIR=" + t.TempDir(),
	}, extra...)
}

// TestKnownVariablesFollowTheStruct checks that the unknown-variable
// warning knows exactly the variables Load reads, so a field added to the
// struct is never warned about, and that every variable is documented.
func TestKnownVariablesFollowTheStruct(t *testing.T) {
	vars := Variables()
	if len(vars) < 20 {
		t.Fatalf("only %d variables", len(vars))
	}
	seen := map[string]bool{}
	for _, v := range vars {
		if !strings.HasPrefix(v.Name, Prefix+"_") || v.Meaning == "" || v.Shown == "" || seen[v.Name] {
			t.Errorf("variable %+v: a prefixed name, a default and a meaning, once each", v)
		}
		seen[v.Name] = true
		if w := Unknown([]string{v.Name + "=x"}); len(w) != 0 {
			t.Errorf("%s is read but warned about: %q", v.Name, w)
		}
	}
	w := Unknown([]string{"SNOWLUMA_MCP_TIMEOUT=5", "PATH=/bin", "SNOWLUMA_MCPX=1"})
	if len(w) != 1 || !strings.Contains(w[0], "did you mean SNOWLUMA_MCP_TIMEOUT_MS?") || strings.Contains(w[0], "=5") {
		t.Errorf("warnings %q, want one naming SNOWLUMA_MCP_TIMEOUT_MS without the value", w)
	}
}

// TestOnlyFullNames: a bare TOKEN, MODE, ENDPOINT or LANG in the host's
// environment is not ours and is never read as one of our variables.
func TestOnlyFullNames(t *testing.T) {
	c, err := Load([]string{"TOKEN=stolen", "MODE=write", "ENDPOINT=http://127.0.0.1:1/", "TIMEOUT_MS=5", "LANG=zh_CN.UTF-8",
		"SNOWLUMA_MCP_LANG=", "HOME=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Token != "" || c.Mode != ModeDocs || c.Endpoint != nil || c.TimeoutMS != 30000 {
		t.Errorf("bare names were read: token %q, mode %s, endpoint %v, timeout %d", c.Token, c.Mode, c.Endpoint, c.TimeoutMS)
	}
	if c.Lang != "zh" {
		t.Errorf("language %q, want zh from the locale in LANG", c.Lang)
	}
}

// TestDefaults: an unset variable and an empty one both take the default.
func TestDefaults(t *testing.T) {
	for _, env := range [][]string{base(t), base(t, "SNOWLUMA_MCP_TIMEOUT_MS=", "SNOWLUMA_MCP_MAX_STREAMS=")} {
		c, err := Load(env)
		if err != nil {
			t.Fatal(err)
		}
		if c.Mode != ModeRead || c.TimeoutMS != 30000 || c.MaxBodyBytes != 2<<20 || c.Streams.MaxStreams != 4 || !c.ValidateParams {
			t.Errorf("%q: %+v", env, c)
		}
	}
}

// TestLoadErrors: a bad value is an *Error naming the variable, and never
// holds the value of a secret.
func TestLoadErrors(t *testing.T) {
	_, err := Load(base(t, "SNOWLUMA_MCP_TOKEN=Bearer s3cret"))
	var e *Error
	if !errors.As(err, &e) || e.Var != "TOKEN" || strings.Contains(err.Error(), "s3cret") || !strings.HasPrefix(err.Error(), "SNOWLUMA_MCP_TOKEN: ") {
		t.Errorf("%v", err)
	}
	if _, err := Load(base(t, "SNOWLUMA_MCP_MAX_STREAMS=65")); !errors.As(err, &e) || e.Var != "MAX_STREAMS" {
		t.Errorf("%v", err)
	}
}

// TestEventsToken: SNOWLUMA_MCP_EVENTS_TOKEN, trimmed, is the events
// token when set; else SNOWLUMA_MCP_TOKEN is, and doctor is told which.
func TestEventsToken(t *testing.T) {
	for _, tc := range []struct {
		token, events, want, from string
	}{
		{"http-tok", " ws-tok\r\n", "ws-tok", "set"},
		{"http-tok", "", "http-tok", "inherited"},
		{"http-tok", "  ", "http-tok", "inherited"},
		{"", "ws-tok", "ws-tok", "set"},
		{"", "", "", "unset"},
	} {
		c, err := Load(base(t, "SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/", "SNOWLUMA_MCP_TOKEN="+tc.token, "SNOWLUMA_MCP_EVENTS_TOKEN="+tc.events))
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.EventsToken != tc.want || c.EventsTokenFrom != tc.from || c.Token != tc.token {
			t.Errorf("TOKEN %q EVENTS_TOKEN %q: events token %q (%s), token %q", tc.token, tc.events, c.EventsToken, c.EventsTokenFrom, c.Token)
		}
	}
	c, err := Load(base(t, "SNOWLUMA_MCP_EVENTS_TOKEN=ws-tok"))
	if err != nil || !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "SNOWLUMA_MCP_EVENTS_TOKEN ignored") }) {
		t.Errorf("events token without an events URL: %v %q", err, c.Notes)
	}
}

// TestUserCacheDir: the default download directory comes from the given
// environment, as os.UserCacheDir would find it on each system.
func TestUserCacheDir(t *testing.T) {
	env := map[string]string{"HOME": "/home/op", "XDG_CACHE_HOME": "/xdg", "LocalAppData": `C:\Users\op\AppData\Local`}
	get := func(k string) string { return env[k] }
	for goos, want := range map[string]string{"linux": "/xdg", "darwin": filepath.Join("/home/op", "Library", "Caches"), "windows": `C:\Users\op\AppData\Local`} {
		if got, err := userCacheDir(goos, get); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", goos, got, err, want)
		}
	}
	env["XDG_CACHE_HOME"] = "relative"
	if got, _ := userCacheDir("linux", get); got != filepath.Join("/home/op", ".cache") {
		t.Errorf("a relative XDG_CACHE_HOME: %q", got)
	}
	if _, err := userCacheDir("linux", func(string) string { return "" }); err == nil {
		t.Error("no HOME: want an error")
	}
	c, err := Load([]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "HOME=/home/op", "XDG_CACHE_HOME="})
	if err != nil || c.Streams.DownloadDir != filepath.Join("/home/op", ".cache", "snowluma-mcp", "downloads") {
		t.Errorf("default download directory: %v %v", c, err)
	}
}
