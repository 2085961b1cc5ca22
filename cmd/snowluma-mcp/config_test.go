package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
)

// runBinary runs the binary with exactly env and no input, returning its
// exit status, stdout and stderr: doctor as a process.
func runBinary(t *testing.T, args []string, env ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(plainBinary(t), args...)
	// A private HOME: the default download directory lives in its cache.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		env     []string
		want    []string // in the one stderr line
		secrets []string // never in it
	}{
		{"unknown mode", []string{"SNOWLUMA_MCP_MODE=admin"}, []string{"SNOWLUMA_MCP_MODE", `"admin"`, "docs, read or write"}, nil},
		{"zero timeout", []string{"SNOWLUMA_MCP_TIMEOUT_MS=0"}, []string{"SNOWLUMA_MCP_TIMEOUT_MS", "positive integer"}, nil},
		{"negative timeout", []string{"SNOWLUMA_MCP_TIMEOUT_MS=-5"}, []string{"SNOWLUMA_MCP_TIMEOUT_MS", "positive integer"}, nil},
		{"word timeout", []string{"SNOWLUMA_MCP_TIMEOUT_MS=soon"}, []string{"SNOWLUMA_MCP_TIMEOUT_MS", `"soon"`}, nil},
		{"huge timeout", []string{"SNOWLUMA_MCP_TIMEOUT_MS=99999999999999"}, []string{"SNOWLUMA_MCP_TIMEOUT_MS", "86400000"}, nil},
		{"small request limit", []string{"SNOWLUMA_MCP_MAX_REQUEST_BYTES=1000"}, []string{"SNOWLUMA_MCP_MAX_REQUEST_BYTES", `"1000"`, "65536"}, nil},
		{"huge request limit", []string{"SNOWLUMA_MCP_MAX_REQUEST_BYTES=1000000000"}, []string{"SNOWLUMA_MCP_MAX_REQUEST_BYTES", "268435456"}, nil},
		{"word request limit", []string{"SNOWLUMA_MCP_MAX_REQUEST_BYTES=4MiB"}, []string{"SNOWLUMA_MCP_MAX_REQUEST_BYTES", `"4MiB"`}, nil},
		{"bad validate", []string{"SNOWLUMA_MCP_VALIDATE_PARAMS=maybe"}, []string{"SNOWLUMA_MCP_VALIDATE_PARAMS", "true or false"}, nil},
		{"relative endpoint", []string{"SNOWLUMA_MCP_ENDPOINT=127.0.0.1:3000"}, []string{"SNOWLUMA_MCP_ENDPOINT", "http"}, nil},
		{"ftp endpoint", []string{"SNOWLUMA_MCP_ENDPOINT=ftp://127.0.0.1/"}, []string{"SNOWLUMA_MCP_ENDPOINT", "scheme"}, nil},
		{"no host", []string{"SNOWLUMA_MCP_ENDPOINT=http:///onebot"}, []string{"SNOWLUMA_MCP_ENDPOINT", "no host"}, nil},
		{"credentials", []string{"SNOWLUMA_MCP_ENDPOINT=http://admin:hunter2@127.0.0.1:3000/"}, []string{"SNOWLUMA_MCP_ENDPOINT", "credentials"}, []string{"hunter2", "admin:"}},
		{"token in query", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:3000/?access_token=s3cret"}, []string{"SNOWLUMA_MCP_ENDPOINT", "query"}, []string{"s3cret"}},
		{"fragment", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:3000/#x"}, []string{"SNOWLUMA_MCP_ENDPOINT", "fragment"}, nil},
		{"control character in token", []string{"SNOWLUMA_MCP_TOKEN=tok-a\x01b-5ecret"}, []string{"SNOWLUMA_MCP_TOKEN", "control character", "U+0001"}, []string{"tok-a", "5ecret"}},
		{"line break inside token", []string{"SNOWLUMA_MCP_TOKEN=tok-ab\r\n5ecret"}, []string{"SNOWLUMA_MCP_TOKEN", "control character", "U+000D"}, []string{"tok-ab", "5ecret"}},
		{"bearer prefix", []string{"SNOWLUMA_MCP_TOKEN=Bearer tok-5ecret"}, []string{"SNOWLUMA_MCP_TOKEN", "'Bearer ' prefix"}, []string{"tok-5ecret"}},
		{"bearer prefix any case", []string{"SNOWLUMA_MCP_TOKEN=  bearer tok-5ecret\n"}, []string{"SNOWLUMA_MCP_TOKEN", "'Bearer ' prefix"}, []string{"tok-5ecret"}},
		{"control character in events token", []string{"SNOWLUMA_MCP_EVENTS_TOKEN=ev-a\x01b-5ecret"}, []string{"SNOWLUMA_MCP_EVENTS_TOKEN", "control character", "U+0001"}, []string{"ev-a", "5ecret"}},
		{"line break in events token", []string{"SNOWLUMA_MCP_EVENTS_TOKEN=ev-ab\r\n5ecret"}, []string{"SNOWLUMA_MCP_EVENTS_TOKEN", "control character", "U+000D"}, []string{"ev-ab", "5ecret"}},
		{"bearer prefix in events token", []string{"SNOWLUMA_MCP_EVENTS_TOKEN=Bearer ev-5ecret"}, []string{"SNOWLUMA_MCP_EVENTS_TOKEN", "'Bearer ' prefix"}, []string{"ev-5ecret"}},
		{"port zero", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:0/"}, []string{"SNOWLUMA_MCP_ENDPOINT", "port", "1 to 65535"}, nil},
		{"port too big", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:65536/"}, []string{"SNOWLUMA_MCP_ENDPOINT", "port", "1 to 65535"}, nil},
		{"port not a number", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:30x0/"}, []string{"SNOWLUMA_MCP_ENDPOINT", "port", "1 to 65535"}, nil},
		{"http events", []string{"SNOWLUMA_MCP_EVENTS_URL=http://127.0.0.1:3001/event"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "scheme is not ws or wss"}, nil},
		{"relative events", []string{"SNOWLUMA_MCP_EVENTS_URL=127.0.0.1:3001"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "ws://"}, nil},
		{"events without host", []string{"SNOWLUMA_MCP_EVENTS_URL=ws:///event"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "no host"}, nil},
		{"events credentials", []string{"SNOWLUMA_MCP_EVENTS_URL=ws://bot:pa55word@127.0.0.1:3001/event"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "credentials"}, []string{"pa55word", "bot:"}},
		{"events token in query", []string{"SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:3001/event?access_token=s3cret"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "query"}, []string{"s3cret"}},
		{"events port", []string{"SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:70000/event"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "port", "1 to 65535"}, nil},
		{"events fragment", []string{"SNOWLUMA_MCP_EVENTS_URL=wss://127.0.0.1:3001/event#x"}, []string{"SNOWLUMA_MCP_EVENTS_URL", "fragment"}, nil},
		{"relative download dir", []string{"SNOWLUMA_MCP_DOWNLOAD_DIR=downloads"}, []string{"SNOWLUMA_MCP_DOWNLOAD_DIR", "absolute"}, nil},
		{"relative upload root", []string{"SNOWLUMA_MCP_UPLOAD_ROOT=uploads"}, []string{"SNOWLUMA_MCP_UPLOAD_ROOT", "absolute"}, nil},
		{"missing upload root", []string{"SNOWLUMA_MCP_UPLOAD_ROOT=/nonexistent/snowluma-uploads"}, []string{"SNOWLUMA_MCP_UPLOAD_ROOT", "existing directory"}, nil},
		{"file as upload root", []string{"SNOWLUMA_MCP_UPLOAD_ROOT=/etc/hostname"}, []string{"SNOWLUMA_MCP_UPLOAD_ROOT", "not a directory"}, nil},
		{"zero max file", []string{"SNOWLUMA_MCP_MAX_FILE_BYTES=0"}, []string{"SNOWLUMA_MCP_MAX_FILE_BYTES", "positive integer"}, nil},
		{"word quota", []string{"SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES=lots"}, []string{"SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES", `"lots"`}, nil},
		{"too many streams", []string{"SNOWLUMA_MCP_MAX_STREAMS=65"}, []string{"SNOWLUMA_MCP_MAX_STREAMS", "1 to 64"}, nil},
		{"negative connect timeout", []string{"SNOWLUMA_MCP_STREAM_CONNECT_TIMEOUT_MS=-1"}, []string{"SNOWLUMA_MCP_STREAM_CONNECT_TIMEOUT_MS", "positive integer"}, nil},
		{"huge idle timeout", []string{"SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS=86400001"}, []string{"SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS", "86400000"}, nil},
		{"download dir under a file", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_DOWNLOAD_DIR=/etc/hostname/downloads"}, []string{"SNOWLUMA_MCP_DOWNLOAD_DIR"}, nil},
		{"bad mode with endpoint", []string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:3000/", "SNOWLUMA_MCP_MODE=READONLY", "SNOWLUMA_MCP_TOKEN=tok-1234"}, []string{"SNOWLUMA_MCP_MODE"}, []string{"tok-1234"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := e2e.RunMain(t, run, nil, tc.env...)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			if n := strings.Count(stderr, "\n"); n != 1 {
				t.Errorf("%d stderr lines: %q", n, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for _, s := range tc.secrets {
				if strings.Contains(stderr, s) {
					t.Errorf("stderr %q leaks %q", stderr, s)
				}
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := e2e.RunMain(t, run, []string{"--help"})
	if code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, v := range []string{"SNOWLUMA_MCP_ENDPOINT", "SNOWLUMA_MCP_TOKEN", "SNOWLUMA_MCP_TIMEOUT_MS", "SNOWLUMA_MCP_MODE", "SNOWLUMA_MCP_EVENTS_URL", "30000", "true, 1 or yes", "false, 0 or no", "SNOWLUMA_MCP_MAX_REQUEST_BYTES", "4194304",
		"SNOWLUMA_MCP_DOWNLOAD_DIR", "SNOWLUMA_MCP_UPLOAD_ROOT", "SNOWLUMA_MCP_MAX_FILE_BYTES", "SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES",
		"SNOWLUMA_MCP_MAX_STREAMS", "SNOWLUMA_MCP_STREAM_CONNECT_TIMEOUT_MS", "SNOWLUMA_MCP_STREAM_IDLE_TIMEOUT_MS", "user cache dir"} {
		// The meanings are wrapped: compare with the lines joined.
		if !strings.Contains(strings.Join(strings.Fields(stdout), " "), v) {
			t.Errorf("--help lacks %s", v)
		}
	}
	code, stdout, _ = e2e.RunMain(t, run, []string{"--version"})
	if code != 0 || !strings.Contains(stdout, "snowluma-mcp") || !strings.Contains(stdout, "1.11.1") {
		t.Errorf("--version: %d %q", code, stdout)
	}
	code, stdout, stderr := e2e.RunMain(t, run, []string{"--bogus"})
	// It lists everything accepted, doctor too.
	if code != 2 || stdout != "" || !strings.Contains(stderr, "--bogus") || !strings.Contains(stderr, "--help, --version, doctor [--json], sandbox [doctor [--json]]") {
		t.Errorf("--bogus: %d %q %q", code, stdout, stderr)
	}
}

func TestModeRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env      []string
		mode     string
		ignored  bool
		endpoint string
	}{
		{nil, "docs", false, "none"},
		{[]string{"SNOWLUMA_MCP_MODE=write"}, "docs", true, "none"},
		{[]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/"}, "read", false, "http://127.0.0.1:9/"},
		{[]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_MODE=docs"}, "docs", false, "http://127.0.0.1:9/"},
		{[]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_MODE=write", "SNOWLUMA_MCP_TOKEN=tok-xyzw"}, "write", false, "http://127.0.0.1:9/"},
		{[]string{"SNOWLUMA_MCP_EVENTS_URL=ws://127.0.0.1:9/event"}, "docs", true, "none"},
		{[]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_EVENTS_URL=wss://127.0.0.1:9/event", "SNOWLUMA_MCP_TOKEN=tok-xyzw"}, "read", false, "http://127.0.0.1:9/"},
	} {
		// With stdin closed at once the server starts, logs and exits.
		code, stdout, stderr := e2e.RunMain(t, run, nil, tc.env...)
		if code != 0 || stdout != "" {
			t.Errorf("%v: exit %d stdout %q", tc.env, code, stdout)
		}
		if !strings.Contains(stderr, "mode "+tc.mode+",") || !strings.Contains(stderr, "endpoint "+tc.endpoint) {
			t.Errorf("%v: start-up line %q", tc.env, stderr)
		}
		if got := strings.Contains(stderr, "ignored"); got != tc.ignored {
			t.Errorf("%v: ignored note %v: %q", tc.env, got, stderr)
		}
		if strings.Contains(stderr, "tok-xyz") {
			t.Errorf("token on stderr: %q", stderr)
		}
	}
}

// TestSafetyConfigErrors covers the account-safety variables (README,
// Safety): each bad value stops the start with one line naming it.
func TestSafetyConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A missing folder of the audit file is created; one under a file
	// cannot be.
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  string
		want []string
	}{
		{"SNOWLUMA_MCP_SENSITIVE=maybe", []string{"SNOWLUMA_MCP_SENSITIVE", "deny, redact or allow"}},
		{"SNOWLUMA_MCP_CONFIRM=always", []string{"SNOWLUMA_MCP_CONFIRM", "none, destructive or writes"}},
		{"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS=-1", []string{"SNOWLUMA_MCP_SEND_MIN_INTERVAL_MS", "0 (off)"}},
		{"SNOWLUMA_MCP_SEND_PER_MINUTE=lots", []string{"SNOWLUMA_MCP_SEND_PER_MINUTE", `"lots"`}},
		{"SNOWLUMA_MCP_ALLOWED_GROUPS=20001,abc", []string{"SNOWLUMA_MCP_ALLOWED_GROUPS", "item 2"}},
		{"SNOWLUMA_MCP_ALLOWED_USERS=,", []string{"SNOWLUMA_MCP_ALLOWED_USERS", "no id"}},
		{"SNOWLUMA_MCP_AUDIT_FILE=audit.jsonl", []string{"SNOWLUMA_MCP_AUDIT_FILE", "not absolute"}},
		{"SNOWLUMA_MCP_AUDIT_FILE=" + filepath.Join(plain, "sub", "audit.jsonl"), []string{"SNOWLUMA_MCP_AUDIT_FILE", "its directory cannot be created"}},
		{"SNOWLUMA_MCP_AUDIT_FILE=" + dir, []string{"SNOWLUMA_MCP_AUDIT_FILE", "directory"}},
	} {
		code, stdout, stderr := e2e.RunMain(t, run, nil, tc.env)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.env, code, stdout, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.env, stderr, w)
			}
		}
	}
}

// TestTokenAndPortAccepted checks the values next to the refused ones: a
// token with surrounding white space (a CRLF .env line) and the highest
// port start the server.
func TestTokenAndPortAccepted(t *testing.T) {
	t.Parallel()
	for _, env := range [][]string{
		{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_TOKEN= tok-5ecret\r\n"},
		{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:65535/"},
		{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:1/", "SNOWLUMA_MCP_TOKEN=Bearertok"},
	} {
		code, stdout, stderr := e2e.RunMain(t, run, nil, env...)
		if code != 0 || stdout != "" || !strings.Contains(stderr, "mode read,") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", env, code, stdout, stderr)
		}
		if strings.Contains(stderr, "tok-5ecret") {
			t.Errorf("token on stderr: %q", stderr)
		}
	}
}

// TestUnknownVariableWarning checks that a misspelt variable gets one
// warning naming the closest real one, the server still starts, and the
// value is never repeated.
func TestUnknownVariableWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, closest string
	}{
		{"SNOWLUMA_MCP_TIMEOUT", "SNOWLUMA_MCP_TIMEOUT_MS"},
		{"SNOWLUMA_MCP_TOKN", "SNOWLUMA_MCP_TOKEN"},
		{"SNOWLUMA_MCP_ENDPIONT", "SNOWLUMA_MCP_ENDPOINT"},
		{"SNOWLUMA_MCP_VALIDATE", "SNOWLUMA_MCP_VALIDATE_PARAMS"},
	} {
		code, stdout, stderr := e2e.RunMain(t, run, nil, tc.name+"=v-5ecret-value")
		if code != 0 || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", tc.name, code, stdout)
		}
		var warnings []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "warning") {
				warnings = append(warnings, l)
			}
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], tc.name+" is not a variable") || !strings.Contains(warnings[0], "did you mean "+tc.closest+"?") {
			t.Errorf("%s: warnings %q", tc.name, warnings)
		}
		if strings.Contains(stderr, "5ecret") {
			t.Errorf("%s: value on stderr: %q", tc.name, stderr)
		}
	}
	// Every declared variable set at once: no warning.
	_, _, stderr := e2e.RunMain(t, run, nil, "SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_TOKEN=tok-tttt", "SNOWLUMA_MCP_TIMEOUT_MS=5", "SNOWLUMA_MCP_MODE=read", "SNOWLUMA_MCP_VALIDATE_PARAMS=no")
	if strings.Contains(stderr, "warning") {
		t.Errorf("a declared variable was warned about: %q", stderr)
	}
}
