package backend

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/safety"
)

// TestPolicyDefaults: without a policy the documented defaults apply; a
// policy without a pacer gets the default one, and the backend's own
// policy is left as it was.
func TestPolicyDefaults(t *testing.T) {
	p := (&Backend{}).Policy()
	if p.Sensitive != safety.SensitiveDeny || p.Confirm != safety.ConfirmNone || p.Pacer == nil || p.Audit != nil {
		t.Errorf("default policy: %+v", p)
	}
	own := &safety.Policy{Sensitive: safety.SensitiveAllow}
	p = (&Backend{Safety: own}).Policy()
	if p.Pacer == nil || p.Sensitive != safety.SensitiveAllow {
		t.Errorf("filled policy: %+v", p)
	}
	if own.Pacer != nil {
		t.Error("Policy changed the backend's own policy")
	}
}

func load(t *testing.T, env ...string) *config.Config {
	t.Helper()
	cfg, err := config.Load(append([]string{"HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()}, env...))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestOpenDocs: docs mode has no client and no stores.
func TestOpenDocs(t *testing.T) {
	b, err := Open(load(t), "test/1")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Client != nil || b.Downloads != nil || b.Uploads != nil || b.Events != nil || b.Tasks != nil {
		t.Errorf("docs backend: %+v", b)
	}
}

// TestOpenWrite: write mode with a task directory has a client, a private
// download store and a task runner; Close releases the task directory's
// lease, so that a second backend can open it.
func TestOpenWrite(t *testing.T) {
	tasks := filepath.Join(t.TempDir(), "tasks")
	cfg := load(t, config.Prefix+"_ENDPOINT=http://127.0.0.1:9/", config.Prefix+"_MODE=write",
		config.Prefix+"_DOWNLOAD_DIR="+filepath.Join(t.TempDir(), "dl"), config.Prefix+"_TASK_DIR="+tasks)
	for range 2 {
		b, err := Open(cfg, "test/1")
		if err != nil {
			t.Fatal(err)
		}
		if b.Client == nil || b.Downloads == nil || b.Tasks == nil || b.TasksProblem != "" {
			t.Fatalf("write backend: %+v", b)
		}
		b.Close()
	}
}

// TestOpenSharedDownloadDir: a download directory other users can write
// to is a SettingError naming the variable.
func TestOpenSharedDownloadDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX permissions")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cfg := load(t, config.Prefix+"_ENDPOINT=http://127.0.0.1:9/", config.Prefix+"_DOWNLOAD_DIR="+dir)
	_, err := Open(cfg, "test/1")
	var se *SettingError
	if !errors.As(err, &se) || se.Var != "DOWNLOAD_DIR" || !strings.Contains(err.Error(), config.Prefix+"_DOWNLOAD_DIR: ") {
		t.Fatalf("Open = %v", err)
	}
}

// TestOpenSandbox: a sandbox backend says so and carries the dry run; its
// task directory is bound to the seed, not to the port and tokens that
// change on every start, while another seed is refused.
func TestOpenSandbox(t *testing.T) {
	tasks := filepath.Join(t.TempDir(), "tasks")
	dl := filepath.Join(t.TempDir(), "dl")
	open := func(port, token, seed string) *Backend {
		t.Helper()
		cfg := load(t, config.Prefix+"_ENDPOINT=http://127.0.0.1:"+port+"/", config.Prefix+"_TOKEN="+token, config.Prefix+"_MODE=write",
			config.Prefix+"_DOWNLOAD_DIR="+dl, config.Prefix+"_TASK_DIR="+tasks, config.Prefix+"_DRY_RUN=true", config.Prefix+"_SANDBOX_SEED="+seed)
		cfg.Sandbox = true
		b, err := Open(cfg, "test/1")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		return b
	}
	b := open("9", "sandbox-token-a", "3")
	if !b.Sandbox || !b.DryRun || b.Tasks == nil {
		t.Fatalf("sandbox backend: %+v", b)
	}
	b.Close()
	if b := open("10", "sandbox-token-b", "3"); b.Tasks == nil {
		t.Errorf("the same seed on another port was refused its task directory: %s", b.TasksProblem)
	} else {
		b.Close()
	}
	if b := open("10", "sandbox-token-b", "4"); b.Tasks != nil {
		t.Error("another seed was given the task directory")
	}
}

// TestRecordPath: the send gate's record is on disk in the default
// configuration: in the user's cache directory, one file per endpoint,
// whose name holds neither the token nor anything made from it; beside
// the task store when there is one; nowhere in docs mode.
func TestRecordPath(t *testing.T) {
	home := t.TempDir()
	get := func(endpoint, token string, extra ...string) string {
		cfg, err := config.Load(append([]string{"HOME=" + home, config.Prefix + "_ENDPOINT=" + endpoint, config.Prefix + "_TOKEN=" + token}, extra...))
		if err != nil {
			t.Fatal(err)
		}
		return RecordPath(cfg)
	}
	a := get("http://127.0.0.1:3000/", "token-one-long")
	if dir := filepath.Join(home, ".cache", "snowluma-mcp"); filepath.Dir(a) != dir || !strings.HasPrefix(filepath.Base(a), "untrusted-record-") {
		t.Errorf("default record %q, want one in %s", a, dir)
	}
	if b := get("http://127.0.0.1:3000/", "token-two-longer"); b != a {
		t.Errorf("another token moved the record: %q, %q", a, b)
	}
	if b := get("http://127.0.0.1:3001/", "token-one-long"); b == a || filepath.Dir(b) != filepath.Dir(a) {
		t.Errorf("another bot shares the record: %q, %q", a, b)
	}
	tasks := filepath.Join(t.TempDir(), "tasks")
	if p := get("http://127.0.0.1:3000/", "token-one-long", config.Prefix+"_MODE=write", config.Prefix+"_TASK_DIR="+tasks); p != filepath.Join(tasks, "untrusted-record.json") {
		t.Errorf("with a task directory: %q", p)
	}
	if cfg, err := config.Load([]string{"HOME=" + home}); err != nil || RecordPath(cfg) != "" {
		t.Errorf("docs mode: %q %v", RecordPath(cfg), err)
	}
}
