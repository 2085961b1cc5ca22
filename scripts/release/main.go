// Command release builds snowluma-mcp for every supported platform: static
// binaries (CGO_ENABLED=0, -trimpath), one archive each (tar.gz, or zip for
// Windows), a SHA256SUMS file, one MCP Bundle (.mcpb) per platform whose
// manifest lists the real tool definitions and asks for the settings an
// operator needs (bundle.go), and server.json, the release's entry for the
// official MCP Registry (registry.go). Everything lands in -out (default
// dist/, ignored by git). Builds are reproducible: the same commit gives
// the same bytes; archive entries carry the commit's time.
//
// The version in the file names, the manifest and server.json is read out
// of the binaries built, through internal/version, so it is the one that
// --version of a plain go build of the same commit prints.
//
//	go run ./scripts/release [-out dist] [-targets linux/amd64,...] [-bundles=false]
//	go run ./scripts/release -validate dist/server.json
//
// Bundles need the npm package @anthropic-ai/mcpb installed in
// scripts/release (npm ci there). -validate checks a server.json against
// the registry's published schema, which the go command fetches as part of
// the registry's Go module.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
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

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/version"
)

// allTargets are the platforms released, as GOOS/GOARCH.
const allTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

func main() {
	out := flag.String("out", "dist", "output directory")
	targets := flag.String("targets", allTargets, "comma-separated GOOS/GOARCH list")
	bundles := flag.Bool("bundles", true, "also pack one .mcpb bundle per platform and write server.json (needs npm ci in scripts/release)")
	validate := flag.String("validate", "", "only check this server.json against the MCP Registry's published schema")
	flag.Parse()
	if *validate != "" {
		data, err := os.ReadFile(*validate)
		if err != nil {
			log.Fatal(err)
		}
		schema, err := publishedSchema()
		if err != nil {
			log.Fatal(err)
		}
		if err := validateServerJSON(data, schema); err != nil {
			log.Fatalf("%s: %v", *validate, err)
		}
		log.Printf("%s matches the MCP Registry's schema %s", *validate, schemaVersion)
		return
	}
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
	module  string       // the module path go.mod declares
	version string       // from the binaries' build information, e.g. 1.2.0 or 0.1.0-dev+0123456789ab
	stamp   time.Time    // the commit's time: every archive entry's mtime
	files   []string     // what SHA256SUMS covers, relative to out
	mcpbs   []bundleFile // the bundles, for server.json
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
	if r.module, err = modulePath(r.root); err != nil {
		return err
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
		if err := r.versionOf(bin); err != nil {
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
	if err := r.sums(); err != nil {
		return err
	}
	if r.bundles {
		return r.serverJSON()
	}
	return nil
}

// versionOf reads the version of a binary just built, as its --version
// would print it; every platform's must agree.
func (r *release) versionOf(bin string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("reading the build information of %s: %w", bin, err)
	}
	v := version.Of(bi)
	if r.version != "" && v != r.version {
		return fmt.Errorf("%s says version %s, an earlier platform %s", bin, v, r.version)
	}
	r.version = v
	return nil
}

// modulePath is the module path go.mod declares.
func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("go.mod declares no module")
}

// serverJSON writes server.json, the release's MCP Registry entry.
func (r *release) serverJSON() error {
	entry, err := serverJSON(r.module, r.version, r.mcpbs)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(entry, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.out, "server.json"), append(b, '\n'), 0o644)
}

// name is the base name of a platform's artifacts.
func (r *release) name(goos, goarch string) string {
	return fmt.Sprintf("snowluma-mcp_%s_%s_%s", r.version, goos, goarch)
}

func exe(goos string) string {
	if goos == "windows" {
		return "snowluma-mcp.exe"
	}
	return "snowluma-mcp"
}

// build compiles one static, reproducible binary and returns its path. It
// builds as the README's build command does (the toolchain stamps the
// commit as it would there), so the version is the same.
func (r *release) build(goos, goarch string) (string, error) {
	dir := filepath.Join(r.out, "build", goos+"_"+goarch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin, err := filepath.Abs(filepath.Join(dir, exe(goos)))
	if err != nil {
		return "", err
	}
	flags, err := goFlags(r.root)
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -buildid=", "-o", bin, "./cmd/snowluma-mcp")
	cmd.Dir = r.root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOFLAGS="+flags)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	log.Printf("building %s/%s", goos, goarch)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s/%s: %w", goos, goarch, err)
	}
	return bin, nil
}

// goFlags is the GOFLAGS the release builds with: the toolchain's own
// (from the environment or go env -w, as a plain go build sees them) plus
// -mod=readonly. Keeping the operator's flags keeps the version the same by
// construction: with -buildvcs=false set by go env -w, a plain build says
// Base-dev, and a release that replaced GOFLAGS would stamp the commit.
func goFlags(root string) (string, error) {
	cmd := exec.Command("go", "env", "GOFLAGS")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOFLAGS: %w", err)
	}
	return strings.TrimSpace(strings.TrimSpace(string(out)) + " -mod=readonly"), nil
}

// archive packs the binary with the READMEs and the docs/ pages into a
// tar.gz (zip for Windows) whose bytes depend only on the inputs.
func (r *release) archive(goos, goarch, bin string) error {
	name := r.name(goos, goarch)
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	type entry struct {
		path string
		mode int64
		data []byte
	}
	entries := []entry{{name + "/" + exe(goos), 0o755, data}}
	// The READMEs and the docs/ pages they link to, in a fixed order.
	docs, err := filepath.Glob(filepath.Join(r.root, "docs", "*"))
	if err != nil {
		return err
	}
	slices.Sort(docs)
	for _, f := range append([]string{filepath.Join(r.root, "README.md"), filepath.Join(r.root, "README.zh-CN.md")}, docs...) {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.root, f)
		entries = append(entries, entry{name + "/" + filepath.ToSlash(rel), 0o644, b})
	}
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
	tools, err := server.Definitions(config.ModeWrite, scratch)
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, t := range tools {
		out = append(out, map[string]string{"name": t.Name, "description": t.Description})
	}
	return out, nil
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
	manifest, err := Manifest(r.version, goos, "https://"+r.module, tools)
	if err != nil {
		return err
	}
	zh, err := Chinese()
	if err != nil {
		return err
	}
	for file, v := range map[string]any{"manifest.json": manifest, strings.ReplaceAll(resources, "${locale}", "zh-Hans"): zh} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return err
		}
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
	sum, err := fileSHA256(filepath.Join(r.out, file))
	if err != nil {
		return err
	}
	r.mcpbs = append(r.mcpbs, bundleFile{name: file, sha256: sum})
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sums writes SHA256SUMS over every archive and bundle.
func (r *release) sums() error {
	slices.Sort(r.files)
	var b strings.Builder
	for _, f := range r.files {
		sum, err := fileSHA256(filepath.Join(r.out, f))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, f)
	}
	log.Printf("wrote %d artifacts and SHA256SUMS to %s", len(r.files), r.out)
	return os.WriteFile(filepath.Join(r.out, "SHA256SUMS"), []byte(b.String()), 0o644)
}
