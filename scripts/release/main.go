// Command release builds snowluma-mcp for every supported platform: static
// binaries (CGO_ENABLED=0, -trimpath), one archive each (tar.gz, or zip for
// Windows), a SHA256SUMS file, and one MCP Bundle (.mcpb) per platform whose
// manifest lists the real tool definitions. Everything lands in -out
// (default dist/, ignored by git). Builds are reproducible: the same commit
// gives the same bytes; archive entries carry the commit's time.
//
//	go run ./scripts/release [-out dist] [-targets linux/amd64,...] [-bundles=false]
//
// Bundles need the npm package @anthropic-ai/mcpb installed in
// scripts/release (npm ci there).
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/server"
)

// allTargets are the platforms released, as GOOS/GOARCH.
const allTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

func main() {
	out := flag.String("out", "dist", "output directory")
	targets := flag.String("targets", allTargets, "comma-separated GOOS/GOARCH list")
	bundles := flag.Bool("bundles", true, "also pack one .mcpb bundle per platform (needs npm ci in scripts/release)")
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	r := &release{root: root, out: *out, bundles: *bundles}
	if err := r.run(strings.Split(*targets, ",")); err != nil {
		log.Fatal(err)
	}
}

type release struct {
	root    string
	out     string
	bundles bool
	version string    // e.g. v1.2.0, or a describe string between tags
	stamp   time.Time // the commit's time: every archive entry's mtime
	files   []string  // what SHA256SUMS covers, relative to out
}

func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

func (r *release) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.root
	b, err := cmd.Output()
	return strings.TrimSpace(string(b)), err
}

func (r *release) run(targets []string) error {
	var err error
	if r.version, err = r.git("describe", "--tags", "--always", "--dirty"); err != nil {
		return fmt.Errorf("git describe: %w", err)
	}
	ct, err := r.git("log", "-1", "--format=%ct")
	if err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	secs, _ := strconv.ParseInt(ct, 10, 64)
	r.stamp = time.Unix(secs, 0).UTC()
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	var manifestTools []map[string]string
	if r.bundles {
		if manifestTools, err = toolList(); err != nil {
			return err
		}
	}
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok {
			return fmt.Errorf("target %q is not GOOS/GOARCH", t)
		}
		bin, err := r.build(goos, goarch)
		if err != nil {
			return err
		}
		if err := r.archive(goos, goarch, bin); err != nil {
			return err
		}
		if r.bundles {
			if err := r.bundle(goos, goarch, bin, manifestTools); err != nil {
				return err
			}
		}
	}
	return r.sums()
}

// name is the base name of a platform's artifacts.
func (r *release) name(goos, goarch string) string {
	return fmt.Sprintf("snowluma-mcp_%s_%s_%s", strings.TrimPrefix(r.version, "v"), goos, goarch)
}

func exe(goos string) string {
	if goos == "windows" {
		return "snowluma-mcp.exe"
	}
	return "snowluma-mcp"
}

// build compiles one static, reproducible binary and returns its path.
func (r *release) build(goos, goarch string) (string, error) {
	dir := filepath.Join(r.out, "build", goos+"_"+goarch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin, err := filepath.Abs(filepath.Join(dir, exe(goos)))
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=true", "-ldflags=-s -w -buildid=", "-o", bin, "./cmd/snowluma-mcp")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS=-mod=readonly")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	log.Printf("building %s/%s", goos, goarch)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s/%s: %w", goos, goarch, err)
	}
	return bin, nil
}

// archive packs the binary with the README and licence-free notes into a
// tar.gz (zip for Windows) whose bytes depend only on the inputs.
func (r *release) archive(goos, goarch, bin string) error {
	name := r.name(goos, goarch)
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(r.root, "README.md"))
	if err != nil {
		return err
	}
	entries := []struct {
		path string
		mode int64
		data []byte
	}{{name + "/" + exe(goos), 0o755, data}, {name + "/README.md", 0o644, readme}}
	var buf bytes.Buffer
	var file string
	if goos == "windows" {
		file = name + ".zip"
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			h := &zip.FileHeader{Name: e.path, Method: zip.Deflate, Modified: r.stamp}
			h.SetMode(os.FileMode(e.mode))
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			w.Write(e.data)
		}
		if err := zw.Close(); err != nil {
			return err
		}
	} else {
		file = name + ".tar.gz"
		gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		gz.ModTime = time.Time{}
		tw := tar.NewWriter(gz)
		for _, e := range entries {
			h := &tar.Header{Name: e.path, Mode: e.mode, Size: int64(len(e.data)), ModTime: r.stamp, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			tw.Write(e.data)
		}
		if err := tw.Close(); err != nil {
			return err
		}
		if err := gz.Close(); err != nil {
			return err
		}
	}
	r.files = append(r.files, file)
	return os.WriteFile(filepath.Join(r.out, file), buf.Bytes(), 0o644)
}

// toolList is the manifest's tools: every tool a write-mode server with
// every service configured lists, from the real definitions.
func toolList() ([]map[string]string, error) {
	scratch, err := os.MkdirTemp("", "snowluma-release")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	tools, err := server.Definitions(server.ModeWrite, scratch)
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, t := range tools {
		out = append(out, map[string]string{"name": t.Name, "description": t.Description})
	}
	return out, nil
}

// Manifest builds the bundle manifest (MCPB manifest 0.3) for one
// platform. Each user_config field maps to one SNOWLUMA_MCP_* variable;
// both tokens are sensitive, so hosts keep them in the OS keychain.
func Manifest(version, goos string, tools []map[string]string) map[string]any {
	platform := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[goos]
	entry := "server/" + exe(goos)
	type field struct {
		key, env, typ, title, desc string
		def                        any
		sensitive                  bool
	}
	fields := []field{
		{"endpoint", "SNOWLUMA_MCP_ENDPOINT", "string", "SnowLuma OneBot HTTP endpoint", "For example http://127.0.0.1:3000/. Leave empty for docs mode (the catalog only).", "", false},
		{"token", "SNOWLUMA_MCP_TOKEN", "string", "Access token", "SnowLuma's OneBot HTTP access token, sent only in the Authorization header.", "", true},
		{"mode", "SNOWLUMA_MCP_MODE", "string", "Mode", "docs, read (default: read-only actions) or write (any action, sends messages).", "read", false},
		{"events_url", "SNOWLUMA_MCP_EVENTS_URL", "string", "SnowLuma WebSocket server", "Optional: for live events, e.g. ws://127.0.0.1:3001/ (SnowLuma's default). Empty: no event tools.", "", false},
		{"events_token", "SNOWLUMA_MCP_EVENTS_TOKEN", "string", "WebSocket access token", "Optional: the access token of SnowLuma's WebSocket server, which SnowLuma sets apart from the HTTP one. Empty: the access token above is sent.", "", true},
		{"download_dir", "SNOWLUMA_MCP_DOWNLOAD_DIR", "directory", "Download directory", "Optional: where downloads are saved (default: a private folder in your user cache).", "", false},
		{"upload_root", "SNOWLUMA_MCP_UPLOAD_ROOT", "directory", "Upload folder", "Optional: the only folder automatic uploads may read files from. Empty: automatic upload off.", "", false},
		{"task_dir", "SNOWLUMA_MCP_TASK_DIR", "directory", "Background task directory", "Optional, write mode: a private directory for durable background transfers.", "", false},
	}
	userConfig := map[string]any{}
	env := map[string]string{}
	for _, f := range fields {
		c := map[string]any{"type": f.typ, "title": f.title, "description": f.desc, "required": false, "default": f.def}
		if f.sensitive {
			c["sensitive"] = true
		}
		userConfig[f.key] = c
		env[f.env] = "${user_config." + f.key + "}"
	}
	return map[string]any{
		"manifest_version": "0.3",
		"name":             "snowluma-mcp",
		"display_name":     "SnowLuma OneBot",
		"version":          strings.TrimPrefix(version, "v"),
		"description":      "SnowLuma's OneBot action catalog for any MCP client and, when configured, a safe way to drive a running SnowLuma QQ bot.",
		"author":           map[string]any{"name": "snowluma-mcp developers"},
		"server": map[string]any{
			"type":        "binary",
			"entry_point": entry,
			"mcp_config":  map[string]any{"command": "${__dirname}/" + entry, "args": []string{}, "env": env},
		},
		"tools":         tools,
		"compatibility": map[string]any{"platforms": []string{platform}},
		"user_config":   userConfig,
		"keywords":      []string{"snowluma", "onebot", "qq", "bot"},
	}
}

// bundle packs one platform's .mcpb with the mcpb CLI.
func (r *release) bundle(goos, goarch, bin string, tools []map[string]string) error {
	dir := filepath.Join(r.out, "bundle", goos+"_"+goarch)
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "server", exe(goos)), data, 0o755); err != nil {
		return err
	}
	m, _ := json.MarshalIndent(Manifest(r.version, goos, tools), "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(m, '\n'), 0o644); err != nil {
		return err
	}
	mcpb := filepath.Join(r.root, "scripts", "release", "node_modules", ".bin", "mcpb")
	if _, err := os.Stat(mcpb); err != nil {
		return fmt.Errorf("mcpb is not installed: run npm ci in scripts/release (%w)", err)
	}
	file := r.name(goos, goarch) + ".mcpb"
	for _, args := range [][]string{{"validate", filepath.Join(dir, "manifest.json")}, {"pack", dir, filepath.Join(r.out, file)}} {
		cmd := exec.Command(mcpb, args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("mcpb %s: %w", args[0], err)
		}
	}
	r.files = append(r.files, file)
	return nil
}

// sums writes SHA256SUMS over every archive and bundle.
func (r *release) sums() error {
	slices.Sort(r.files)
	var b strings.Builder
	for _, f := range r.files {
		fh, err := os.Open(filepath.Join(r.out, f))
		if err != nil {
			return err
		}
		h := sha256.New()
		io.Copy(h, fh)
		fh.Close()
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), f)
	}
	log.Printf("wrote %d artifacts and SHA256SUMS to %s", len(r.files), r.out)
	return os.WriteFile(filepath.Join(r.out, "SHA256SUMS"), []byte(b.String()), 0o644)
}
