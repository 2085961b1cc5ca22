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
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// TestBundleRuns builds the linux/amd64 release with its bundle, unpacks
// the bundle as a host would, starts its binary with the manifest's
// mcp_config (user config substituted) and asks it for tools/list. On the
// way it checks the one version story: a plain go build of the same
// checkout, the archive's name, the manifest, the bundle's binary and
// server.json all say the same version.
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

	// A plain build, as a person makes one from the checkout.
	plain := filepath.Join(t.TempDir(), "snowluma-mcp")
	build := exec.Command("go", "build", "-o", plain, "./cmd/snowluma-mcp")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	want := versionOut(t, plain)

	// The release runs as its own process, as a maintainer runs it: inside
	// this race-checked test process, gzip alone took 25 CPU-s.
	out := t.TempDir()
	rel := exec.Command("go", "run", "./scripts/release", "-out", out, "-targets", "linux/amd64")
	rel.Dir = root
	if b, err := rel.CombinedOutput(); err != nil {
		t.Fatalf("go run ./scripts/release: %v\n%s", err, b)
	}
	// The archive's name carries the release's version.
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil || strings.Count(string(sums), "\n") != 2 || !strings.Contains(string(sums), "snowluma-mcp_"+want+"_linux_amd64.tar.gz") {
		t.Fatalf("SHA256SUMS (want version %s): %v %q", want, err, sums)
	}
	bundles, _ := filepath.Glob(filepath.Join(out, "*.mcpb"))
	if len(bundles) != 1 || !strings.Contains(string(sums), filepath.Base(bundles[0])) {
		t.Fatalf("bundles %v, SHA256SUMS %q", bundles, sums)
	}
	bundle := bundles[0]
	unpacked := filepath.Join(t.TempDir(), "unpacked")
	unzip(t, bundle, unpacked)

	var m struct {
		ManifestVersion string `json:"manifest_version"`
		Version         string `json:"version"`
		Server          struct {
			Type      string `json:"type"`
			MCPConfig struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"mcp_config"`
		} `json:"server"`
		Tools        []struct{ Name string }    `json:"tools"`
		UserConfig   map[string]json.RawMessage `json:"user_config"`
		Localization struct {
			Resources     string `json:"resources"`
			DefaultLocale string `json:"default_locale"`
		} `json:"localization"`
	}
	b, err := os.ReadFile(filepath.Join(unpacked, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.ManifestVersion != "0.3" || m.Server.Type != "binary" || len(m.Tools) < 10 || m.Version != want {
		t.Fatalf("manifest (want version %s): %s", want, b)
	}
	// The translations travel in the bundle, where the manifest says.
	zhPath := filepath.Join(unpacked, filepath.FromSlash(strings.ReplaceAll(m.Localization.Resources, "${locale}", "zh-Hans")))
	zh, err := os.ReadFile(zhPath)
	if err != nil || !strings.Contains(string(zh), "访问令牌") {
		t.Errorf("the zh-Hans resources at %s: %v %.200s", zhPath, err, zh)
	}

	// What a host does: substitute the bundle's folder and the user's
	// answers (here none: every field left empty), then spawn.
	subst := func(s string) string {
		s = strings.ReplaceAll(s, "${__dirname}", unpacked)
		for k := range m.UserConfig {
			s = strings.ReplaceAll(s, "${user_config."+k+"}", "")
		}
		return s
	}
	cmd := exec.Command(subst(m.Server.MCPConfig.Command), m.Server.MCPConfig.Args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
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

	// The bundle's binary says the same version, and the commit when the
	// toolchain stamped one (only in a checkout whose .git is a directory,
	// not in a git worktree, whose .git is a file).
	if got := versionOut(t, subst(m.Server.MCPConfig.Command)); got != want {
		t.Errorf("the bundle's binary says %q, a plain build %q", got, want)
	}
	if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
		head, _ := (&release{root: root}).git("rev-parse", "HEAD")
		if !strings.Contains(want, head[:12]) && !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+`).MatchString(want) {
			t.Errorf("version %q names neither a tag nor HEAD %s", want, head)
		}
	} else {
		t.Logf("not a plain checkout: the version is %q", want)
	}

	// server.json names the same version and the bundle with its SHA-256.
	var entry struct {
		Version  string `json:"version"`
		Packages []struct {
			Identifier string `json:"identifier"`
			FileSha256 string `json:"fileSha256"`
		} `json:"packages"`
	}
	sj, err := os.ReadFile(filepath.Join(out, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sj, &entry); err != nil {
		t.Fatal(err)
	}
	sum, _ := fileSHA256(bundle)
	if entry.Version != want || len(entry.Packages) != 1 || entry.Packages[0].FileSha256 != sum ||
		!strings.HasSuffix(entry.Packages[0].Identifier, "/releases/download/v"+want+"/"+filepath.Base(bundle)) {
		t.Errorf("server.json (want version %s, sha256 %s): %s", want, sum, sj)
	}
	if schema := schemaOrSkip(t); schema != nil {
		if err := validateServerJSON(sj, schema); err != nil {
			t.Error(err)
		}
	}
}

// versionOut is the version a binary's --version prints.
func versionOut(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	f := strings.Fields(string(out))
	if err != nil || len(f) < 2 || f[0] != "snowluma-mcp" {
		t.Fatalf("%s --version: %v %q", bin, err, out)
	}
	return f[1]
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

// manifestOf is Manifest's JSON, decoded as a host reads it.
func manifestOf(t *testing.T) (raw []byte, m struct {
	Server struct {
		MCPConfig struct {
			Env map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]struct {
		Type        string `json:"type"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Default     any    `json:"default"`
		Sensitive   bool   `json:"sensitive"`
	} `json:"user_config"`
}) {
	t.Helper()
	mf, err := Manifest("1.2.3", "linux", "https://github.com/snowluma/snowluma-mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = json.Marshal(mf)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return raw, m
}

// TestManifestSettings: the bundle asks for everything an operator needs
// (the list), each field sets its variable, help is the variable's
// own meaning, only the tokens are sensitive, and every variable the server
// reads is either asked for or on the short list of those left out, with a
// reason.
func TestManifestSettings(t *testing.T) {
	raw, m := manifestOf(t)
	env := m.Server.MCPConfig.Env
	byVar := map[string]string{}
	for v, ref := range env {
		key, ok := strings.CutPrefix(ref, "${user_config.")
		key, ok2 := strings.CutSuffix(key, "}")
		if !ok || !ok2 {
			t.Fatalf("%s = %q", v, ref)
		}
		if _, ok := m.UserConfig[key]; !ok {
			t.Errorf("%s refers to a field %q the bundle does not ask for", v, key)
		}
		byVar[v] = key
	}
	if len(byVar) != len(m.UserConfig) {
		t.Errorf("%d fields, %d variables set from them", len(m.UserConfig), len(byVar))
	}
	for _, v := range []string{"ENDPOINT", "TOKEN", "MODE", "EVENTS_URL", "EVENTS_TOKEN", "CONFIRM", "ALLOWED_GROUPS", "ALLOWED_USERS",
		"SEND_MIN_INTERVAL_MS", "SEND_PER_MINUTE", "SENSITIVE", "AUDIT_FILE", "LANG", "DOWNLOAD_DIR", "UPLOAD_ROOT", "TASK_DIR"} {
		if _, ok := byVar["SNOWLUMA_MCP_"+v]; !ok {
			t.Errorf("the bundle does not set SNOWLUMA_MCP_%s", v)
		}
	}
	skipped := leftOut()
	if len(skipped) > 14 {
		t.Errorf("%d variables left out of the bundle: the list is meant to be short", len(skipped))
	}
	for _, v := range config.Variables() {
		key, inBundle := byVar[v.Name]
		why, left := skipped[v.Name]
		switch {
		case inBundle == left:
			t.Errorf("%s: in the bundle %v, left out %v", v.Name, inBundle, left)
		case left && len(why) < 20:
			t.Errorf("%s is left out without a reason", v.Name)
		case inBundle:
			f := m.UserConfig[key]
			if f.Description != v.Meaning || f.Title == "" {
				t.Errorf("%s: title %q, description %q", v.Name, f.Title, f.Description)
			}
			if want := v.Name == "SNOWLUMA_MCP_TOKEN" || v.Name == "SNOWLUMA_MCP_EVENTS_TOKEN"; f.Sensitive != want {
				t.Errorf("%s: sensitive %v", v.Name, f.Sensitive)
			}
			if def, _ := json.Marshal(f.Default); v.Default != "" && strings.Trim(string(def), `"`) != v.Default {
				t.Errorf("%s: default %v, the server's %s", v.Name, f.Default, v.Default)
			}
		}
	}
	// A host lists the fields in the manifest's order: the server's.
	if i, j := bytes.Index(raw, []byte(`"endpoint":`)), bytes.Index(raw, []byte(`"token":`)); i < 0 || j < i {
		t.Errorf("user_config is not in the variables' order: %s", raw)
	}
}

// TestEveryVariablePlaced: a variable that is neither asked for nor left
// out, or a list naming a variable the server does not read, fails the
// release with the names.
func TestEveryVariablePlaced(t *testing.T) {
	vars := append(config.Variables(), config.Variable{Name: "SNOWLUMA_MCP_SANDBOX", Meaning: "new"})
	if _, err := placeVariables(vars, settings(), leftOut()); err == nil || !strings.Contains(err.Error(), "SNOWLUMA_MCP_SANDBOX") {
		t.Errorf("a new variable: %v", err)
	}
	in := settings()
	in["SNOWLUMA_MCP_GONE"] = setting{key: "gone", typ: "string", title: "Gone"}
	if _, err := placeVariables(config.Variables(), in, leftOut()); err == nil || !strings.Contains(err.Error(), "SNOWLUMA_MCP_GONE") {
		t.Errorf("a stale setting: %v", err)
	}
	if _, err := userFields(); err != nil {
		t.Error(err)
	}
}

// TestChinese: the zh-Hans resources translate every field the bundle asks
// for and the localizable texts, and add nothing the manifest lacks.
func TestChinese(t *testing.T) {
	_, m := manifestOf(t)
	zh, err := Chinese()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(zh)
	var got struct {
		Description     string                                         `json:"description"`
		LongDescription string                                         `json:"long_description"`
		UserConfig      map[string]struct{ Title, Description string } `json:"user_config"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	han := regexp.MustCompile(`\p{Han}`)
	for _, s := range []string{got.Description, got.LongDescription} {
		if !han.MatchString(s) {
			t.Errorf("not Chinese: %q", s)
		}
	}
	if len(got.UserConfig) != len(m.UserConfig) {
		t.Errorf("%d fields translated of %d", len(got.UserConfig), len(m.UserConfig))
	}
	for key, f := range got.UserConfig {
		if _, ok := m.UserConfig[key]; !ok {
			t.Errorf("%s is translated but not in the manifest", key)
		}
		if !han.MatchString(f.Title) || !han.MatchString(f.Description) {
			t.Errorf("%s: %+v", key, f)
		}
	}
	for key := range zh {
		if !slices.Contains([]string{"display_name", "description", "long_description", "keywords", "user_config"}, key) {
			t.Errorf("%s in the zh-Hans resources", key)
		}
	}
}

// schemaOrSkip is the registry's published server.json schema; without
// it (no module proxy to fetch it from) the test is skipped, except under
// CI, where it fails.
func schemaOrSkip(t *testing.T) []byte {
	t.Helper()
	schema, err := publishedSchema()
	if err != nil {
		if reference.UnderCI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return schema
}

// TestServerJSON: the registry entry of a release with every platform's
// bundle validates against the registry's published schema and its mcpb
// rules, and the validation refuses what the registry would.
func TestServerJSON(t *testing.T) {
	schema := schemaOrSkip(t)
	var bundles []bundleFile
	for _, p := range []string{"linux_amd64", "windows_arm64"} {
		bundles = append(bundles, bundleFile{name: "snowluma-mcp_1.2.3_" + p + ".mcpb", sha256: strings.Repeat("ab", 32)})
	}
	good, err := serverJSON("github.com/snowluma/snowluma-mcp", "1.2.3", bundles)
	if err != nil {
		t.Fatal(err)
	}
	if good["name"] != "io.github.snowluma/snowluma-mcp" {
		t.Errorf("name %v", good["name"])
	}
	data, _ := json.Marshal(good)
	if err := validateServerJSON(data, schema); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for name, spoil := range map[string]func(m map[string]any){
		"a name that is not reverse-DNS":    func(m map[string]any) { m["name"] = "snowluma mcp" },
		"a description over 100 characters": func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"no version":                        func(m map[string]any) { delete(m, "version") },
		"a short sha256":                    func(m map[string]any) { pkg(m)["fileSha256"] = "abc" },
		"no sha256":                         func(m map[string]any) { delete(pkg(m), "fileSha256") },
		"a download over http": func(m map[string]any) {
			pkg(m)["identifier"] = "http://github.com/snowluma/snowluma-mcp/releases/download/v1.2.3/x.mcpb"
		},
		"a download off GitHub releases": func(m map[string]any) { pkg(m)["identifier"] = "https://example.com/snowluma-mcp.mcpb" },
		"an unknown transport":           func(m map[string]any) { pkg(m)["transport"] = map[string]any{"type": "pigeon"} },
		"no package":                     func(m map[string]any) { delete(m, "packages") },
		"another schema": func(m map[string]any) {
			m["$schema"] = "https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json"
		},
	} {
		var m map[string]any
		json.Unmarshal(data, &m)
		spoil(m)
		bad, _ := json.Marshal(m)
		if err := validateServerJSON(bad, schema); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := registryName("example.com/snowluma-mcp"); err == nil {
		t.Error("a module off GitHub got a registry name")
	}
}

// pkg is the first package of a decoded server.json.
func pkg(m map[string]any) map[string]any {
	return m["packages"].([]any)[0].(map[string]any)
}
