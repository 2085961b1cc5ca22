package main_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// hintWords are words of the one stderr hint shown when stdin is a terminal.
const hintWords = "meant to be started by an MCP host"

// TestTerminalHint starts the binary on a pseudo-terminal, through the
// system's script(1), and checks that the start-up line is followed by the
// hint; with stdin from /dev/null or a pipe (as a host starts it) there is
// no hint.
func TestTerminalHint(t *testing.T) {
	t.Parallel()
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		msg := "script(1) is not installed (Debian: bsdutils), so the binary cannot be given a terminal"
		if reference.UnderCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bin := plainBinary(t)
	args := []string{"-q", "-e", "-c", bin, os.DevNull} // util-linux
	if runtime.GOOS != "linux" {
		args = []string{"-q", os.DevNull, bin} // BSD and macOS
	}
	cmd := exec.CommandContext(ctx, scriptPath, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	// script reads this empty stdin, reaches its end and passes the end of
	// input on to the server, which then stops.
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("script: %v\n%s", err, out)
	}
	text := strings.ReplaceAll(string(out), "\r\n", "\n")
	start := strings.Index(text, "SnowLuma catalog")
	hint := strings.Index(text, hintWords)
	if start < 0 || hint < start {
		t.Fatalf("on a terminal, want the start-up line then the hint; got %q", text)
	}
	if n := strings.Count(text, hintWords); n != 1 {
		t.Errorf("hint shown %d times: %q", n, text)
	}

	_, _, stderr := e2e.RunMain(t, run, nil)
	if !strings.Contains(stderr, "SnowLuma catalog") || strings.Contains(stderr, hintWords) {
		t.Errorf("stdin from /dev/null: %q", stderr)
	}
}
