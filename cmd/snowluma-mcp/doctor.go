package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// doctor reads the same environment as the server and checks, one line
// each, that it can work: the configuration, SnowLuma's endpoint, the
// token, the account, the catalog's version, and every configured
// directory. It runs read-only actions only and sends nothing to any chat.

// Verdicts of a check.
const (
	verdictOK   = "ok"
	verdictWarn = "warn"
	verdictFail = "fail"
)

// checkTimeout bounds each network check, so that the whole run ends
// within the sum of its checks' timeouts.
const checkTimeout = 5 * time.Second

// A finding is one line of the report.
type finding struct {
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
}

// report is the whole --json answer.
type report struct {
	Version        string    `json:"version"`
	CatalogVersion string    `json:"catalog_version"`
	Findings       []finding `json:"checks"`
	Failed         int       `json:"failed"`
	Warnings       int       `json:"warnings"`
}

func (r *report) add(f finding) {
	r.Findings = append(r.Findings, f)
	switch f.Verdict {
	case verdictFail:
		r.Failed++
	case verdictWarn:
		r.Warnings++
	}
}

// runDoctor is `snowluma-mcp doctor [--json]`. It exits 0 when no check
// failed and 1 otherwise.
func runDoctor(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	asJSON := false
	for _, a := range args {
		switch a {
		case "--json", "-json":
			asJSON = true
		default:
			fmt.Fprintf(stderr, "%s doctor: unknown argument %q; accepted: --json\n", server.Name, a)
			return exitUsage
		}
	}
	r := diagnose(ctx, environ)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(r)
	} else {
		printReport(stdout, r)
	}
	if r.Failed > 0 {
		return exitFailed
	}
	return exitOK
}

func printReport(w io.Writer, r *report) {
	fmt.Fprintf(w, "%s doctor %s (SnowLuma catalog %s)\n\n", server.Name, r.Version, r.CatalogVersion)
	tw := tabwriter.NewWriter(w, 1, 0, 2, ' ', 0)
	for _, f := range r.Findings {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Verdict, f.Check, f.Detail)
		if f.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", f.Fix)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d failed, %d warnings\n", r.Failed, r.Warnings)
}

// diagnose runs every check that applies to the environment environ.
func diagnose(ctx context.Context, environ []string) *report {
	r := &report{Version: server.Version, CatalogVersion: catalog.Version}
	cfg, err := loadConfig(environ)
	if err != nil {
		f := finding{Check: "configuration", Verdict: verdictFail, Detail: err.Error()}
		var ce *ConfigError
		if errors.As(err, &ce) {
			f.Detail = ce.Var + ": " + ce.Problem
			f.Fix = fmt.Sprintf("set %s_%s to %s", envPrefix, ce.Var, ce.Accepted)
		}
		r.add(f)
		return r
	}
	token := "unset"
	if cfg.Token != "" {
		token = "set"
	}
	endpoint := "none (docs mode)"
	if cfg.Endpoint != nil {
		endpoint = cfg.Endpoint.String()
	}
	r.add(finding{Check: "configuration", Verdict: verdictOK,
		Detail: fmt.Sprintf("mode %s, endpoint %s, token %s, events token %s, timeout %d ms, params check %v", cfg.Mode, endpoint, token, eventsTokenState(cfg), cfg.TimeoutMS, cfg.ValidateParams)})
	for _, n := range cfg.Notes {
		r.add(finding{Check: "configuration", Verdict: verdictWarn, Detail: n, Fix: "remove the ignored variable or change the mode"})
	}
	if cfg.Endpoint == nil {
		r.add(finding{Check: "endpoint", Verdict: verdictWarn, Detail: "no endpoint: docs mode serves the catalog and executes nothing",
			Fix: "set SNOWLUMA_MCP_ENDPOINT to SnowLuma's OneBot HTTP endpoint, e.g. http://127.0.0.1:3000/, to run actions"})
	} else {
		checkSnowLuma(ctx, r, cfg)
	}
	if cfg.EventsURL != nil {
		r.add(checkEvents(ctx, cfg))
	}
	if cfg.Mode != server.ModeDocs && cfg.Streams.DownloadDir != "" {
		r.add(checkDownloadDir(cfg.Streams))
	}
	if cfg.Streams.UploadRoot != "" {
		r.add(checkUploadRoot(cfg.Streams.UploadRoot))
	}
	if a := cfg.Safety.Audit; a != nil {
		// Loading the configuration opened it for appending already.
		r.add(finding{Check: "audit file", Verdict: verdictOK, Detail: a.Path() + " can be appended to (mode 0600)"})
	}
	if cfg.TaskDir != "" {
		detail, err := tasks.Probe(cfg.TaskDir, tasks.Scope{Mode: string(cfg.Mode), Endpoint: cfg.Endpoint.String(), Token: cfg.Token})
		if err != nil {
			r.add(finding{Check: "task directory", Verdict: verdictFail, Detail: err.Error(),
				Fix: "fix SNOWLUMA_MCP_TASK_DIR as the message says, or point it at a new private directory"})
		} else {
			r.add(finding{Check: "task directory", Verdict: verdictOK, Detail: detail})
		}
	}
	return r
}

// eventsTokenState says whether SNOWLUMA_MCP_EVENTS_TOKEN is set, or
// inherits SNOWLUMA_MCP_TOKEN, or there is no token at all; never its value.
func eventsTokenState(cfg *Config) string {
	if cfg.EventsTokenFrom == "inherited" {
		return "inherited from SNOWLUMA_MCP_TOKEN"
	}
	return cfg.EventsTokenFrom
}

// checkSnowLuma asks SnowLuma three read-only questions: who is logged in,
// whether the account is online, and which version it runs.
func checkSnowLuma(ctx context.Context, r *report, cfg *Config) {
	timeout := min(time.Duration(cfg.TimeoutMS)*time.Millisecond, checkTimeout)
	client, err := transfer.New(transfer.Options{Endpoint: cfg.Endpoint.String(), Token: cfg.Token, Timeout: timeout, MaxBodyBytes: cfg.MaxBodyBytes})
	if err != nil {
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: err.Error(), Fix: "check SNOWLUMA_MCP_ENDPOINT"})
		return
	}
	call := func(action string) (*answer, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp, err := client.Call(ctx, transfer.Request{Action: action, Params: json.RawMessage(`{}`)})
		if err != nil {
			return nil, err
		}
		a := &answer{Status: resp.Status, Retcode: resp.Retcode}
		var e struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(resp.Envelope, &e)
		a.Data = e.Data
		return a, nil
	}

	login, err := call("get_login_info")
	var te *transfer.Error
	switch {
	case errors.As(err, &te) && te.Kind == transfer.KindUnauthorized:
		r.add(finding{Check: "endpoint", Verdict: verdictOK, Detail: cfg.Endpoint.String() + " answers as OneBot"})
		fix := "set SNOWLUMA_MCP_TOKEN to the access token of SnowLuma's OneBot HTTP server"
		if cfg.Token != "" {
			fix = "SNOWLUMA_MCP_TOKEN does not match SnowLuma's access token: copy it again from SnowLuma's OneBot HTTP configuration"
		}
		r.add(finding{Check: "token", Verdict: verdictFail, Detail: fmt.Sprintf("SnowLuma refused the token (HTTP %d)", te.HTTPStatus), Fix: fix})
		return
	case errors.As(err, &te) && te.Kind == transfer.KindProtocol:
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: cfg.Endpoint.String() + " answers HTTP, but not as OneBot: " + te.Error(),
			Fix: "point SNOWLUMA_MCP_ENDPOINT at SnowLuma's OneBot HTTP server (its host, port and path), not at a web page or another service"})
		return
	case err != nil:
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: "no answer from " + cfg.Endpoint.String() + ": " + err.Error(),
			Fix: "start SnowLuma and enable its OneBot HTTP server, or correct the host and port in SNOWLUMA_MCP_ENDPOINT"})
		return
	}
	if unknownEverywhere(login, call) {
		r.add(finding{Check: "endpoint", Verdict: verdictFail,
			Detail: cfg.Endpoint.String() + " answers as OneBot, but every action is unknown there (retcode 1404): its path is probably not SnowLuma's HTTP path",
			Fix:    "set SNOWLUMA_MCP_ENDPOINT to SnowLuma's HTTP server with the path configured in SnowLuma (default /, e.g. http://127.0.0.1:3000/)"})
		return
	}
	r.add(finding{Check: "endpoint", Verdict: verdictOK, Detail: cfg.Endpoint.String() + " answers as OneBot"})
	var who struct {
		UserID   json.Number `json:"user_id"`
		Nickname string      `json:"nickname"`
	}
	if login.Status != "ok" || json.Unmarshal(login.Data, &who) != nil || who.UserID == "" {
		r.add(finding{Check: "token", Verdict: verdictFail, Detail: fmt.Sprintf("get_login_info did not succeed (status %q, retcode %s)", login.Status, login.Retcode),
			Fix: "check SnowLuma's logs; the account may not be logged in"})
		return
	}
	detail := fmt.Sprintf("accepted; logged in as %s (%s)", who.Nickname, who.UserID)
	if cfg.Token == "" {
		r.add(finding{Check: "token", Verdict: verdictWarn, Detail: "SnowLuma answered without a token; " + detail,
			Fix: "set an access token in SnowLuma and in SNOWLUMA_MCP_TOKEN, so that nothing else on the machine can drive the account"})
	} else {
		r.add(finding{Check: "token", Verdict: verdictOK, Detail: detail})
	}

	status, err := call("get_status")
	var st struct {
		Online *bool `json:"online"`
	}
	switch {
	case err != nil:
		r.add(finding{Check: "account", Verdict: verdictFail, Detail: "get_status failed: " + err.Error(), Fix: "check SnowLuma's logs"})
	case json.Unmarshal(status.Data, &st) != nil || st.Online == nil:
		r.add(finding{Check: "account", Verdict: verdictWarn, Detail: "get_status does not say whether the account is online", Fix: "check the account in SnowLuma"})
	case !*st.Online:
		r.add(finding{Check: "account", Verdict: verdictFail, Detail: "the account is offline", Fix: "log the account in again in SnowLuma"})
	default:
		r.add(finding{Check: "account", Verdict: verdictOK, Detail: "online"})
	}

	version, err := call("get_version_info")
	var v struct {
		AppVersion string `json:"app_version"`
	}
	switch {
	case err != nil:
		r.add(finding{Check: "version", Verdict: verdictWarn, Detail: "get_version_info failed: " + err.Error(), Fix: "check SnowLuma's logs"})
	case json.Unmarshal(version.Data, &v) != nil || v.AppVersion == "":
		r.add(finding{Check: "version", Verdict: verdictWarn, Detail: "get_version_info does not name SnowLuma's version", Fix: "compare SnowLuma's version with the catalog's by hand"})
	case sameVersion(v.AppVersion, catalog.Version):
		r.add(finding{Check: "version", Verdict: verdictOK, Detail: "SnowLuma " + v.AppVersion + " matches the bundled catalog"})
	default:
		r.add(finding{Check: "version", Verdict: verdictWarn, Detail: fmt.Sprintf("SnowLuma %s, but the bundled catalog describes %s", v.AppVersion, catalog.Version),
			Fix: "upgrade snowluma-mcp to a release for this SnowLuma; meanwhile SNOWLUMA_MCP_VALIDATE_PARAMS=false lets newer params through"})
	}
}

// answer is what a doctor's action call got: the envelope's status,
// retcode and data.
type answer struct {
	Status  string
	Retcode json.Number
	Data    json.RawMessage
}

// unknownEverywhere reports whether SnowLuma knows no action at the
// endpoint: get_login_info answered retcode 1404 (unknown action, or a path
// outside SnowLuma's HTTP path), and so did get_version_info, which every
// OneBot server has. SnowLuma runs the action the request path names, so an
// endpoint with a path it does not serve makes every action unknown.
func unknownEverywhere(login *answer, call func(string) (*answer, error)) bool {
	if login.Status == "ok" || login.Retcode.String() != "1404" {
		return false
	}
	v, err := call("get_version_info")
	return err == nil && v.Status != "ok" && v.Retcode.String() == "1404"
}

// sameVersion reports whether SnowLuma's app_version names the catalog's
// version: a leading "v" and any "-suffix" (SnowLuma 1.11.1 answers
// "1.11.1-node") or "+build" are not part of the comparison.
func sameVersion(app, catalogVersion string) bool {
	core := strings.TrimPrefix(strings.TrimSpace(app), "v")
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	return core == catalogVersion
}

// checkEvents opens the event WebSocket with the events token, as the
// first subscribe_events would, and reads until the first frame or a close
// within checkTimeout. SnowLuma upgrades before it checks the token, so
// only its greeting (lifecycle connect) shows that the token is accepted.
func checkEvents(ctx context.Context, cfg *Config) finding {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	where := cfg.EventsURL.String()
	g, err := events.Probe(ctx, events.Options{URL: where, Token: cfg.EventsToken})
	var e *events.Error
	switch {
	case errors.As(err, &e) && e.Code == events.CodeUnauthorized:
		fix := "set SNOWLUMA_MCP_EVENTS_TOKEN to the access token of SnowLuma's WebSocket server (its own, separate from the HTTP server's in SnowLuma's generated configuration)"
		if cfg.EventsTokenFrom == "set" {
			fix = "SNOWLUMA_MCP_EVENTS_TOKEN does not match the access token of SnowLuma's WebSocket server: copy it again from SnowLuma's WebSocket server configuration"
		}
		return finding{Check: "events", Verdict: verdictFail, Detail: where + ": " + e.Message, Fix: fix}
	case errors.As(err, &e):
		return finding{Check: "events", Verdict: verdictFail, Detail: "no event connection at " + where + ": " + e.Message,
			Fix: e.NextStep + ", or unset SNOWLUMA_MCP_EVENTS_URL"}
	case err != nil:
		return finding{Check: "events", Verdict: verdictFail, Detail: "no event connection at " + where + ": " + err.Error(),
			Fix: "enable SnowLuma's WebSocket server and set SNOWLUMA_MCP_EVENTS_URL to it (SnowLuma's default is ws://127.0.0.1:3001/), or unset it"}
	case g.First == "":
		return finding{Check: "events", Verdict: verdictWarn,
			Detail: fmt.Sprintf("%s accepted the WebSocket upgrade but sent nothing within %v; SnowLuma greets an accepted connection at once, so whether the token is accepted is unknown", where, checkTimeout),
			Fix:    "check that SNOWLUMA_MCP_EVENTS_URL is SnowLuma's WebSocket server (SnowLuma's default is ws://127.0.0.1:3001/)"}
	}
	return finding{Check: "events", Verdict: verdictOK, Detail: fmt.Sprintf("%s accepted the token (events token %s) and greeted with %s", where, cfg.EventsTokenFrom, g.First)}
}
