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
	// own endpoints, events URLs and write mode in place (placeholders
	// until it runs): a channel or approvers need them, and the operator
	// sets none of them here.
	check := sandboxVars("", "http://127.0.0.1/", sandboxCheckToken, "ws://127.0.0.1/", sandboxCheckToken)
	for _, label := range sandboxLabels(environ) {
		check = append(check, sandboxVars(label, "http://127.0.0.1/", sandboxCheckToken, "ws://127.0.0.1/", sandboxCheckToken)[:4]...)
	}
	cfg, err := config.Load(withSandboxVars(environ, check))
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
	if len(cfg.Bots) > 2 {
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, l.Sprintf(lang.SandboxTooManyBots, len(cfg.Bots)))
		return ExitUsage
	}
	sb, err := simulator.NewSandbox(simulator.SandboxOptions{Seed: cfg.SandboxSeed, Actions: names, Trickle: trickle,
		ReportSelf: cfg.SandboxReportSelf})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return ExitFailed
	}
	defer sb.Close()
	// With two bots, the second is a second account of a world of its
	// own (the next seed), sharing one group with the first.
	var second *simulator.Sandbox
	var shared int64
	if len(cfg.Bots) == 2 {
		second, err = simulator.NewSandbox(simulator.SandboxOptions{Seed: cfg.SandboxSeed + 1, Actions: names, Trickle: trickle,
			ReportSelf: cfg.SandboxReportSelf, Account: sandboxSecondAccount, Nickname: "沙箱小号"})
		if err == nil {
			defer second.Close()
			shared, err = simulator.Share(sb.Server, second.Server)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
			return ExitFailed
		}
	}

	env, notes, cleanup, err := sandboxEnviron(environ, sb, cfg.Bots[len(cfg.Bots)-1].Label, second)
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
	if second != nil {
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, l.Sprintf(lang.SandboxSecond, cfg.Bots[1].Label, sandboxSecondAccount, second.URL, second.EventsURL(), shared))
	}
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
func sandboxEnviron(environ []string, sb *simulator.Sandbox, label string, second *simulator.Sandbox) (env, notes []string, cleanup func(), err error) {
	cleanup = func() {}
	operator := config.Lookup(environ)
	forced := sandboxVars("", sb.URL, sb.Token, sb.EventsURL(), sb.EventsToken)
	if second != nil {
		forced = append(forced, sandboxVars(label, second.URL, second.Token, second.EventsURL(), second.EventsToken)[:4]...)
	}
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

// sandboxSecondAccount is the QQ number of the sandbox's second account.
const sandboxSecondAccount = 20002

// sandboxVars are a simulated account's endpoint, tokens and events URL,
// then the mode: the first bot's with label "", a further bot's with
// _<LABEL> added to each name.
func sandboxVars(label, endpoint, token, eventsURL, eventsToken string) []sandboxVar {
	suffix := ""
	if label != "" {
		suffix = "_" + strings.ToUpper(label)
	}
	return []sandboxVar{
		{"ENDPOINT" + suffix, endpoint},
		{"TOKEN" + suffix, token},
		{"EVENTS_URL" + suffix, eventsURL},
		{"EVENTS_TOKEN" + suffix, eventsToken},
		{"MODE", "write"},
	}
}

// sandboxLabels are the labels SNOWLUMA_MCP_BOTS names after the first,
// as written (config.Load checks them).
func sandboxLabels(environ []string) []string {
	var labels []string
	for i, f := range strings.Split(config.Lookup(environ)(config.Prefix+"_BOTS"), ",") {
		if f = strings.TrimSpace(f); i > 0 && f != "" {
			labels = append(labels, strings.ToLower(f))
		}
	}
	return labels
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
