package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// TestCheckRecord: doctor names the send gate's record and what a new
// connection starts from; a record that cannot be read is a warning with
// its fix, and so is an environment with no cache directory, where a
// restart forgets the chats read. With the gate off there is nothing to
// report.
func TestCheckRecord(t *testing.T) {
	t.Parallel()
	load := func(env ...string) *config.Config {
		t.Helper()
		cfg, err := config.Load(append([]string{"SNOWLUMA_MCP_ENDPOINT=http://127.0.0.1:9/", "SNOWLUMA_MCP_MODE=write"}, env...))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := load("HOME=" + t.TempDir())
	path := backend.RecordPath(cfg)
	if f, ok := checkRecord(lang.En, cfg); !ok || f.Verdict != verdictOK || !strings.Contains(f.Detail, path+" does not exist yet") {
		t.Errorf("no record yet: %+v", f)
	}
	(&untrusted.Registry{Path: path}).Note("c", untrusted.GroupChat(20001))
	if f, _ := checkRecord(lang.En, cfg); f.Verdict != verdictOK || !strings.Contains(f.Detail, path+": 1 chats read within the last 24 h") {
		t.Errorf("a record: %+v", f)
	}
	if err := os.WriteFile(path, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, _ := checkRecord(lang.Zh, cfg); f.Verdict != verdictWarn || !strings.Contains(f.Detail, "每个连接") || f.Fix == "" {
		t.Errorf("an unreadable record: %+v", f)
	}
	noCache := load("SNOWLUMA_MCP_DOWNLOAD_DIR=" + filepath.Join(t.TempDir(), "dl"))
	if f, ok := checkRecord(lang.En, noCache); !ok || f.Verdict != verdictWarn || !strings.Contains(f.Detail, "in memory only") {
		t.Errorf("no cache directory: %+v", f)
	}
	if _, ok := checkRecord(lang.En, load("HOME="+t.TempDir(), "SNOWLUMA_MCP_UNTRUSTED_SENDS=off")); ok {
		t.Error("a finding with the gate off")
	}
}
