package main_test

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// rootDir is the repository's root, two levels above this package.
func rootDir() (string, error) { return filepath.Abs(filepath.Join("..", "..")) }

// repoRoot is rootDir, failing t if it cannot be found.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := rootDir()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeBuild runs the README's build command, as written but for the
// output path out, from the repository's root.
func readmeBuild(out string) (string, error) {
	root, err := rootDir()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^CGO_ENABLED=0 go build ((?:\S+ )*)-o \S+ \./cmd/snowluma-mcp$`).FindSubmatch(b)
	if m == nil {
		return "", errors.New("the README has no line `CGO_ENABLED=0 go build ... -o <path> ./cmd/snowluma-mcp`")
	}
	args := append(append([]string{"build"}, strings.Fields(string(m[1]))...), "-o", out, "./cmd/snowluma-mcp")
	build := exec.Command("go", args...)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out, nil
}

// TestStaticBuild checks that the README's build command (readmeBuild,
// which builds plainBinary) gives a binary that needs no C library: built
// without cgo (go version -m) and, on Linux, an ELF file with no program
// interpreter and no shared libraries.
func TestStaticBuild(t *testing.T) {
	t.Parallel()
	out := plainBinary(t)

	info, err := exec.Command("go", "version", "-m", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*build\s+CGO_ENABLED=0$`).Match(info) {
		t.Errorf("go version -m does not show CGO_ENABLED=0:\n%s", info)
	}

	if runtime.GOOS != "linux" {
		return
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has a program interpreter: it is dynamically linked")
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v (%v)", libs, err)
	}
}

// TestGoRunFromCheckout runs the host configuration that starts the
// server from a checkout (command go, args -C <repo> run ...; docs/hosts.md,
// which the README points at), from another directory, and checks that it
// is this server.
func TestGoRunFromCheckout(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "hosts.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	for _, block := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(text, -1) {
		if strings.Contains(block[1], `"command": "go"`) {
			if err := json.Unmarshal([]byte(block[1]), &cfg); err != nil {
				t.Fatalf("docs/hosts.md's go run configuration is not JSON: %v", err)
			}
			break
		}
	}
	srv, ok := cfg.MCPServers["snowluma"]
	if !ok || srv.Command != "go" || len(srv.Args) < 2 || srv.Args[0] != "-C" {
		t.Fatalf("docs/hosts.md has no host configuration running `go -C <repo> run`: %+v", cfg)
	}
	args := append([]string{"-C", repoRoot(t)}, srv.Args[2:]...)
	args = append(args, "--version")
	cmd := exec.Command(srv.Command, args...)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "snowluma-mcp ") {
		t.Errorf("--version through go run: %q", stdout.String())
	}
}
