package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// sampleUpload is the file the sandbox's temporary upload root holds, so
// that an automatic upload can be tried at once.
const (
	sampleUploadName = "示例-sample.txt"
	sampleUpload     = "这是 snowluma-mcp 沙箱里的示例文件。\nThis is the sample file of the snowluma-mcp sandbox.\n"
)

// sandboxCheckToken stands for the sandbox's tokens while the
// configuration is checked, before the sandbox makes them.
const sandboxCheckToken = "sandbox-token-not-made-yet"

// runSandbox is `snowluma-mcp sandbox [doctor [--json]]`: the simulated
// SnowLuma of package simulator, with the living world of
// SNOWLUMA_MCP_SANDBOX_SEED, started on loopback inside this process, and
// the same server in write mode against it (or doctor). The endpoint, the
// tokens, the events URL and the mode are the sandbox's; every other
// variable (safety, language, limits, SNOWLUMA_MCP_DRY_RUN) is the
// operator's. Without a task directory, download directory or upload root
// of the operator's, private temporary ones are made and removed at exit,
// the upload root holding one sample file.
func runSandbox(ctx context.Context, p Process) int {
	args, stdout, stderr := p.Args[1:], p.Stdout, p.Stderr
	doctor := len(args) > 0 && args[0] == "doctor"
	if !doctor && len(args) > 0 {
		fmt.Fprintln(stderr, config.PersonLang(p.Environ).Sprintf(lang.UnknownArgument, server.Name+" sandbox", args[0], "doctor [--json]"))
		return ExitUsage
	}
	environ := p.Environ
	// The configuration is checked as the sandbox will serve it, with its
	// own endpoint, events URL and write mode in place (placeholders until
	// it runs): a channel or approvers need them, and the operator sets
	// none of them here.
	cfg, err := config.Load(withSandboxVars(environ, sandboxVars("http://127.0.0.1/", sandboxCheckToken, "ws://127.0.0.1/", sandboxCheckToken)))
	if err != nil {
		l := config.PersonLang(environ)
		msg := err.Error()
		var ce *config.Error
		if errors.As(err, &ce) {
			msg = ce.In(l)
		}
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, l.Sprintf(lang.ConfigStartError, msg))
		return ExitUsage
	}
	l := cfg.Lang
	loadCatalog := p.catalogLoader()
	cat, err := loadCatalog()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return ExitFailed
	}
	var names []string
	for _, a := range cat.Actions() {
		names = append(names, a.Name)
	}
	trickle := cfg.SandboxTrickle
	if trickle == 0 {
		trickle = -1 // silence, in NewSandbox's terms
	}
	sb, err := simulator.NewSandbox(simulator.SandboxOptions{Seed: cfg.SandboxSeed, Actions: names, Trickle: trickle,
		ReportSelf: cfg.SandboxReportSelf})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return ExitFailed
	}
	defer sb.Close()

	env, notes, cleanup, err := sandboxEnviron(environ, sb)
	defer cleanup()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return ExitFailed
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, l.Sprintf(lang.NoteSandboxIgnored, n))
	}
	if doctor {
		return runDoctor(ctx, args[1:], env, true, stdout, stderr)
	}
	fmt.Fprintf(stderr, "%s: %s\n", server.Name, l.Sprintf(lang.SandboxStarted, sb.Seed, sb.URL, sb.EventsURL()))
	get := config.Lookup(env)
	fmt.Fprintf(stderr, "%s: %s\n", server.Name, l.Sprintf(lang.SandboxDirs, get(config.Prefix+"_TASK_DIR"), get(config.Prefix+"_DOWNLOAD_DIR"), get(config.Prefix+"_UPLOAD_ROOT")))
	p.Environ = env
	return serve(ctx, p, true, loadCatalog)
}

// sandboxEnviron returns environ with the sandbox's endpoint, tokens,
// events URL and write mode in place of the operator's (notes names each
// variable of the operator's that this replaces, never its value), and
// private temporary directories for the task directory, downloads and
// the upload root where the operator set none. cleanup removes them; it
// is safe to call whatever the error.
func sandboxEnviron(environ []string, sb *simulator.Sandbox) (env, notes []string, cleanup func(), err error) {
	cleanup = func() {}
	operator := config.Lookup(environ)
	forced := sandboxVars(sb.URL, sb.Token, sb.EventsURL(), sb.EventsToken)
	set := map[string]string{}
	for _, f := range forced {
		name := config.Prefix + "_" + f.name
		if v := operator(name); v != "" && (f.name != "MODE" || !strings.EqualFold(strings.TrimSpace(v), "write")) {
			notes = append(notes, name)
		}
		set[name] = f.value
	}
	var temp string
	tempDir := func(sub string) (string, error) {
		if temp == "" {
			// MkdirTemp makes the directory 0700: private, as the task
			// and download directories must be.
			if temp, err = os.MkdirTemp("", "snowluma-mcp-sandbox-"); err != nil {
				return "", fmt.Errorf("sandbox: making its temporary directory: %w", err)
			}
			dir := temp
			cleanup = func() { os.RemoveAll(dir) }
		}
		d := filepath.Join(temp, sub)
		return d, os.Mkdir(d, 0o700)
	}
	for _, sub := range []struct{ name, dir string }{{"TASK_DIR", "tasks"}, {"DOWNLOAD_DIR", "downloads"}, {"UPLOAD_ROOT", "uploads"}} {
		name := config.Prefix + "_" + sub.name
		if operator(name) != "" {
			continue
		}
		d, err := tempDir(sub.dir)
		if err != nil {
			return nil, notes, cleanup, fmt.Errorf("sandbox: %w", err)
		}
		if sub.name == "UPLOAD_ROOT" {
			if err := os.WriteFile(filepath.Join(d, sampleUploadName), []byte(sampleUpload), 0o600); err != nil {
				return nil, notes, cleanup, fmt.Errorf("sandbox: writing the sample upload: %w", err)
			}
		}
		set[name] = d
	}
	return replaceVars(environ, set), notes, cleanup, nil
}

// A sandboxVar is a variable the sandbox sets in place of the operator's
// (its name without config.Prefix).
type sandboxVar struct{ name, value string }

// sandboxVars are the sandbox's endpoint, tokens, events URL and mode.
func sandboxVars(endpoint, token, eventsURL, eventsToken string) []sandboxVar {
	return []sandboxVar{
		{"ENDPOINT", endpoint},
		{"TOKEN", token},
		{"EVENTS_URL", eventsURL},
		{"EVENTS_TOKEN", eventsToken},
		{"MODE", "write"},
	}
}

// withSandboxVars returns environ with vars in place of the operator's.
func withSandboxVars(environ []string, vars []sandboxVar) []string {
	set := map[string]string{}
	for _, v := range vars {
		set[config.Prefix+"_"+v.name] = v.value
	}
	return replaceVars(environ, set)
}

// replaceVars returns environ with each variable of set (a full name) in
// place of environ's own.
func replaceVars(environ []string, set map[string]string) []string {
	var env []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if _, replaced := set[name]; !replaced {
			env = append(env, kv)
		}
	}
	for name, v := range set {
		env = append(env, name+"="+v)
	}
	return env
}
