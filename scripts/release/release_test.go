package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// TestBundleRuns builds the linux/amd64 release with its bundle, unpacks
// the bundle as a host would, starts its binary with the manifest's
// mcp_config (user config substituted) and asks it for tools/list.
func TestBundleRuns(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the bundle under test is linux/amd64; this machine cannot run it")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "scripts", "release", "node_modules", ".bin", "mcpb")); err != nil {
		if reference.UnderCI() {
			t.Fatal("mcpb is not installed (npm ci in scripts/release); CI must install it")
		}
		t.Skip("mcpb is not installed: run npm ci in scripts/release to run this test")
	}
	out := t.TempDir()
	r := &release{root: root, out: out, bundles: true}
	if err := r.run([]string{"linux/amd64"}); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil || strings.Count(string(sums), "\n") != 2 {
		t.Fatalf("SHA256SUMS: %v %q", err, sums)
	}
	var bundle string
	for _, f := range r.files {
		if strings.HasSuffix(f, ".mcpb") {
			bundle = filepath.Join(out, f)
		}
	}
	unpacked := filepath.Join(t.TempDir(), "unpacked")
	unzip(t, bundle, unpacked)

	var m struct {
		ManifestVersion string `json:"manifest_version"`
		Server          struct {
			Type      string `json:"type"`
			MCPConfig struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
		Tools      []struct{ Name string } `json:"tools"`
		UserConfig map[string]struct {
			Sensitive bool `json:"sensitive"`
		} `json:"user_config"`
	}
	b, err := os.ReadFile(filepath.Join(unpacked, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.ManifestVersion != "0.3" || m.Server.Type != "binary" || !m.UserConfig["token"].Sensitive || !m.UserConfig["events_token"].Sensitive || m.UserConfig["events_url"].Sensitive || len(m.Tools) < 10 {
		t.Fatalf("manifest: %s", b)
	}
	// What a host does: substitute the bundle's folder and the user's
	// answers, then spawn.
	user := map[string]string{"endpoint": "", "token": "", "mode": "read", "events_url": "", "events_token": "", "download_dir": "", "upload_root": "", "task_dir": ""}
	subst := func(s string) string {
		s = strings.ReplaceAll(s, "${__dirname}", unpacked)
		for k, v := range user {
			s = strings.ReplaceAll(s, "${user_config."+k+"}", v)
		}
		return s
	}
	cmd := exec.Command(subst(m.Server.MCPConfig.Command), m.Server.MCPConfig.Args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range m.Server.MCPConfig.Env {
		if strings.Contains(subst(v), "${") {
			t.Fatalf("%s=%s is left unsubstituted", k, v)
		}
		cmd.Env = append(cmd.Env, k+"="+subst(v))
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n")
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		sc.Scan()
		line <- sc.Text()
	}()
	select {
	case l := <-line:
		if !strings.Contains(l, `"get_action"`) || !strings.Contains(l, `"result"`) {
			t.Fatalf("tools/list: %.300s\nstderr: %s", l, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no answer; stderr: %s", stderr.String())
	}
	stdin.Close()
	cmd.Wait()

	// The binary says which commit it was built from. The Go toolchain
	// stamps it only in a checkout whose .git is a directory (not in a git
	// worktree, whose .git is a file).
	v, err := exec.Command(subst(m.Server.MCPConfig.Command), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
		head, _ := r.git("rev-parse", "HEAD")
		if !strings.Contains(string(v), "commit "+head[:12]) {
			t.Errorf("--version: %q (HEAD %s)", v, head)
		}
	} else {
		t.Logf("not a plain checkout: --version says %q", v)
	}
}

func unzip(t *testing.T, file, dir string) {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		path := filepath.Join(dir, f.Name)
		if !strings.HasPrefix(path, dir+string(os.PathSeparator)) {
			t.Fatalf("bundle entry %q escapes", f.Name)
		}
		if f.FileInfo().IsDir() {
			os.MkdirAll(path, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(path), 0o755)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		mode := f.Mode().Perm()
		if strings.HasPrefix(f.Name, "server/") {
			mode |= 0o755
		}
		if err := os.WriteFile(path, b, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestManifestSecrets: both tokens are sensitive fields of the bundle, each
// mapped to its variable, and nothing else is.
func TestManifestSecrets(t *testing.T) {
	m := Manifest("v1.2.3", "linux", nil)
	env := m["server"].(map[string]any)["mcp_config"].(map[string]any)["env"].(map[string]string)
	for key, field := range m["user_config"].(map[string]any) {
		sensitive, _ := field.(map[string]any)["sensitive"].(bool)
		if want := key == "token" || key == "events_token"; sensitive != want {
			t.Errorf("%s: sensitive %v", key, sensitive)
		}
	}
	for v, key := range map[string]string{"SNOWLUMA_MCP_TOKEN": "token", "SNOWLUMA_MCP_EVENTS_TOKEN": "events_token", "SNOWLUMA_MCP_EVENTS_URL": "events_url"} {
		if env[v] != "${user_config."+key+"}" {
			t.Errorf("%s = %q", v, env[v])
		}
	}
}
