package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/version"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// doctor reads the same environment as the server and checks, one line
// each, that it can work: the configuration, SnowLuma's endpoint, the
// token, the account, the catalog's version, and every configured
// directory. It runs read-only actions only and sends nothing to any chat.
// Its details and fixes are in the operator's language (SNOWLUMA_MCP_LANG,
// else the locale); the verdicts, and the check names and keys of --json,
// are identifiers for scripts and stay English.

// Verdicts of a check.
const (
	verdictOK   = "ok"
	verdictWarn = "warn"
	verdictFail = "fail"
)

// checkTimeout bounds each network check, so that the whole run ends
// within the sum of its checks' timeouts.
const checkTimeout = 5 * time.Second

// A finding is one line of the report. Check and Verdict are identifiers;
// Detail and Fix are in the report's language.
type finding struct {
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`
	// Bot is the label of the bot the check is about, when several are
	// configured; the detail starts with it too.
	Bot string `json:"bot,omitempty"`
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
//
// environ is the environment to check: the process's own, or the one the
// sandbox made for its simulated SnowLuma (sandboxed true).
func runDoctor(ctx context.Context, args, environ []string, sandboxed bool, stdout, stderr io.Writer) int {
	asJSON := false
	for _, a := range args {
		switch a {
		case "--json", "-json":
			asJSON = true
		default:
			fmt.Fprintln(stderr, config.PersonLang(environ).Sprintf(lang.UnknownArgument, server.Name+" doctor", a, "--json"))
			return ExitUsage
		}
	}
	l := config.PersonLang(environ)
	r := diagnose(ctx, environ, l, sandboxed)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(r)
	} else {
		printReport(stdout, l, r)
	}
	if r.Failed > 0 {
		return ExitFailed
	}
	return ExitOK
}

// printReport writes the report for a person, in l: one line a check,
// verdict first (ok, warn or fail, in any language, for grep), then the
// check's name, the detail and the fix.
func printReport(w io.Writer, l lang.Lang, r *report) {
	fmt.Fprintf(w, "%s\n\n", l.Sprintf(lang.DoctorHeader, server.Name, r.Version, r.CatalogVersion))
	// tabwriter counts runes, and a Chinese name is twice as wide on a
	// terminal as it has runes: the name column is padded by hand.
	names, width := make([]string, len(r.Findings)), 0
	for i, f := range r.Findings {
		names[i] = checkName(l, f.Check)
		width = max(width, displayWidth(names[i]))
	}
	tw := tabwriter.NewWriter(w, 1, 0, 2, ' ', 0)
	for i, f := range r.Findings {
		fmt.Fprintf(tw, "%s\t%s%s  %s\n", f.Verdict, names[i], strings.Repeat(" ", width-displayWidth(names[i])), f.Detail)
		if f.Fix != "" {
			fmt.Fprintf(tw, "\t%s  %s\n", strings.Repeat(" ", width), l.Sprintf(lang.DoctorFix, f.Fix))
		}
	}
	tw.Flush()
	if r.Warnings == 1 {
		fmt.Fprintf(w, "\n%s\n", l.Sprintf(lang.DoctorSummaryOne, r.Failed))
	} else {
		fmt.Fprintf(w, "\n%s\n", l.Sprintf(lang.DoctorSummary, r.Failed, r.Warnings))
	}
}

// displayWidth is how many terminal columns s takes: two for a Chinese
// character, one for anything else a check name holds.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n++
		if unicode.Is(unicode.Han, r) {
			n++
		}
	}
	return n
}

// checkName is a check's name as a person reads it in l.
func checkName(l lang.Lang, check string) string {
	m := map[string]lang.Message{
		"configuration":      lang.DoctorCheckConfig,
		"endpoint":           lang.DoctorCheckEndpoint,
		"token":              lang.DoctorCheckToken,
		"account":            lang.DoctorCheckAccount,
		"version":            lang.DoctorCheckVersion,
		"events":             lang.DoctorCheckEvents,
		"download directory": lang.DoctorCheckDownload,
		"upload root":        lang.DoctorCheckUpload,
		"audit file":         lang.DoctorCheckAudit,
		"task directory":     lang.DoctorCheckTasks,
		"untrusted record":   lang.DoctorCheckRecord,
		"sandbox":            lang.DoctorCheckSandbox,
		"dry run":            lang.DoctorCheckDryRun,
		"archive":            lang.DoctorCheckArchive,
		"channel":            lang.DoctorCheckChannel,
	}[check]
	if m == "" {
		return check
	}
	return l.Sprintf(m)
}

// diagnose runs every check that applies to the environment environ,
// reporting in l (when the configuration loads, its own language, which is
// l). sandboxed says the endpoint is the sandbox's simulated SnowLuma.
func diagnose(ctx context.Context, environ []string, l lang.Lang, sandboxed bool) *report {
	r := &report{Version: version.Current(), CatalogVersion: catalog.Version}
	cfg, err := config.Load(environ)
	if err != nil {
		f := finding{Check: "configuration", Verdict: verdictFail, Detail: err.Error()}
		var ce *config.Error
		if errors.As(err, &ce) {
			name := config.Prefix + "_" + ce.Var
			f.Detail = l.Sprintf(lang.DoctorVarProblem, name, l.Text(ce.Problem))
			f.Fix = l.Sprintf(lang.DoctorSetVar, name, l.Text(ce.Accepted))
		}
		r.add(f)
		return r
	}
	l = cfg.Lang
	cfg.Sandbox = sandboxed
	token := l.Sprintf(lang.DoctorUnset)
	if cfg.Token != "" {
		token = l.Sprintf(lang.DoctorSet)
	}
	endpoint := l.Sprintf(lang.DoctorEndpointNone)
	if cfg.Endpoint != nil {
		endpoint = cfg.Endpoint.String()
	}
	r.add(finding{Check: "configuration", Verdict: verdictOK,
		Detail: l.Sprintf(lang.DoctorConfigOK, cfg.Mode, endpoint, token, eventsTokenState(l, cfg), cfg.TimeoutMS, cfg.ValidateParams)})
	misspelt := map[string]config.Misspelling{}
	for _, m := range cfg.Misspelt {
		misspelt[m.Note] = m
	}
	for _, n := range cfg.Notes {
		fix := cfg.Fixes[n]
		if fix == "" {
			fix = l.Sprintf(lang.DoctorNoteFix)
		}
		if m, ok := misspelt[n]; ok {
			// The rename that makes the variable count.
			fix = l.Sprintf(lang.DoctorMisspeltFix, m.Name, m.Closest)
		}
		r.add(finding{Check: "configuration", Verdict: verdictWarn, Detail: n, Fix: fix})
	}
	if cfg.Sandbox {
		r.add(finding{Check: "sandbox", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorSandboxOn, cfg.SandboxSeed)})
	}
	if cfg.DryRun {
		r.add(finding{Check: "dry run", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorDryRunOn)})
	}
	for i, b := range cfg.Bots {
		if len(cfg.Bots) == 1 {
			checkBot(ctx, l, r, cfg)
			break
		}
		// Each bot's verdicts, labelled, and their fixes naming its own
		// variables.
		sub := &report{}
		checkBot(ctx, l, sub, cfg.ForBot(i))
		for _, f := range sub.Findings {
			f.Bot = b.Label
			f.Detail = "[" + b.Label + "] " + f.Detail
			f.Fix = botVars.ReplaceAllString(f.Fix, "${0}"+b.Suffix)
			r.add(f)
		}
	}
	if f, ok := checkChannel(l, cfg); ok {
		r.add(f)
	}
	if cfg.Mode != config.ModeDocs && cfg.Streams.DownloadDir != "" {
		r.add(checkDownloadDir(l, cfg.Streams))
	}
	if cfg.Streams.UploadRoot != "" {
		r.add(checkUploadRoot(l, cfg.Streams.UploadRoot))
	}
	if a := cfg.Safety.Audit; a != nil {
		// Loading the configuration opened it for appending already.
		r.add(finding{Check: "audit file", Verdict: verdictOK, Detail: l.Sprintf(posixOr(runtime.GOOS, lang.DoctorAuditOK, lang.DoctorAuditOKWindows), a.Path())})
	}
	if cfg.Archive != nil {
		r.add(checkArchive(ctx, l, cfg))
	}
	if f, ok := checkRecord(l, cfg); ok {
		r.add(f)
	}
	return r
}

// botVars finds the names of the variables each bot has its own of, so
// that a further bot's fix names its suffixed ones.
var botVars = regexp.MustCompile(`\bSNOWLUMA_MCP_(ENDPOINT|TOKEN|EVENTS_URL|EVENTS_TOKEN)\b`)

// checkBot checks one bot, as cfg (config.Config.ForBot) sees it: its
// endpoint, token and account, its events and its task directory.
func checkBot(ctx context.Context, l lang.Lang, r *report, cfg *config.Config) {
	if cfg.Endpoint == nil {
		r.add(finding{Check: "endpoint", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorNoEndpoint), Fix: l.Sprintf(lang.DoctorNoEndpointFix)})
	} else {
		checkSnowLuma(ctx, l, r, cfg)
	}
	if cfg.EventsURL != nil {
		r.add(checkEvents(ctx, l, cfg))
	}
	if cfg.TaskDir != "" {
		exists, err := tasks.Probe(cfg.TaskDir, backend.TaskScope(cfg))
		switch {
		case err != nil:
			detail := err.Error()
			var inUse *tasks.InUseError
			if errors.As(err, &inUse) {
				detail = tasksInUse(l, inUse)
			}
			r.add(finding{Check: "task directory", Verdict: verdictFail, Detail: detail, Fix: l.Sprintf(lang.DoctorTasksFix)})
		case !exists:
			r.add(finding{Check: "task directory", Verdict: verdictOK, Detail: l.Sprintf(posixOr(runtime.GOOS, lang.DoctorDirWillCreate, lang.DoctorDirWillCreateWindows), cfg.TaskDir)})
		default:
			r.add(finding{Check: "task directory", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorTasksOK, cfg.TaskDir, privateMeans(l, runtime.GOOS))})
		}
	}
}

// posixOr is the message that names a POSIX permission (0600, 0700) on
// systems that have them, and its Windows form, which names none: there
// the access list is neither set nor checked.
func posixOr(goos string, posix, windows lang.Message) lang.Message {
	if goos == "windows" {
		return windows
	}
	return posix
}

// eventsTokenState says, in l, whether SNOWLUMA_MCP_EVENTS_TOKEN is set,
// or inherits SNOWLUMA_MCP_TOKEN, or there is no token at all; never its
// value.
func eventsTokenState(l lang.Lang, cfg *config.Config) string {
	switch cfg.EventsTokenFrom {
	case "inherited":
		return l.Sprintf(lang.DoctorInherited)
	case "set":
		return l.Sprintf(lang.DoctorSet)
	}
	return l.Sprintf(lang.DoctorUnset)
}

// checkSnowLuma asks SnowLuma three read-only questions: who is logged in,
// whether the account is online, and which version it runs.
func checkSnowLuma(ctx context.Context, l lang.Lang, r *report, cfg *config.Config) {
	timeout := min(time.Duration(cfg.TimeoutMS)*time.Millisecond, checkTimeout)
	client, err := transfer.New(transfer.Options{Endpoint: cfg.Endpoint.String(), Token: cfg.Token, Timeout: timeout, MaxBodyBytes: cfg.MaxBodyBytes, UserAgent: version.UserAgent()})
	if err != nil {
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: err.Error(), Fix: l.Sprintf(lang.DoctorCheckEndpointVar)})
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
	case errors.As(err, &te) && te.Kind == outcome.KindUnauthorized:
		r.add(finding{Check: "endpoint", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorAnswers, cfg.Endpoint.String())})
		fix := l.Sprintf(lang.DoctorTokenUnsetFix)
		if cfg.Token != "" {
			fix = l.Sprintf(lang.DoctorTokenWrongFix)
		}
		r.add(finding{Check: "token", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorTokenRefused, te.HTTPStatus), Fix: fix})
		return
	case errors.As(err, &te) && te.Kind == outcome.KindProtocol:
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorNotOneBot, cfg.Endpoint.String(), te.Error()), Fix: l.Sprintf(lang.DoctorNotOneBotFix)})
		return
	case err != nil:
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorNoAnswer, cfg.Endpoint.String(), err.Error()), Fix: l.Sprintf(lang.DoctorNoAnswerFix)})
		return
	}
	if unknownEverywhere(login, call) {
		r.add(finding{Check: "endpoint", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorBadPath, cfg.Endpoint.String()), Fix: l.Sprintf(lang.DoctorBadPathFix)})
		return
	}
	r.add(finding{Check: "endpoint", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorAnswers, cfg.Endpoint.String())})
	var who struct {
		UserID   json.Number `json:"user_id"`
		Nickname string      `json:"nickname"`
	}
	if login.Status != "ok" || json.Unmarshal(login.Data, &who) != nil || who.UserID == "" {
		r.add(finding{Check: "token", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorLoginFailed, login.Status, login.Retcode), Fix: l.Sprintf(lang.DoctorLoginFix)})
		return
	}
	detail := l.Sprintf(lang.DoctorLoggedIn, who.Nickname, who.UserID)
	if cfg.Token == "" {
		r.add(finding{Check: "token", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorNoToken, detail), Fix: l.Sprintf(lang.DoctorNoTokenFix)})
	} else {
		r.add(finding{Check: "token", Verdict: verdictOK, Detail: detail})
	}

	status, err := call("get_status")
	var st struct {
		Online *bool `json:"online"`
	}
	switch {
	case err != nil:
		r.add(finding{Check: "account", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorActionFailed, "get_status", err.Error()), Fix: l.Sprintf(lang.DoctorLogsFix)})
	case json.Unmarshal(status.Data, &st) != nil || st.Online == nil:
		r.add(finding{Check: "account", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorOnlineUnknown), Fix: l.Sprintf(lang.DoctorOnlineFix)})
	case !*st.Online:
		r.add(finding{Check: "account", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorOffline), Fix: l.Sprintf(lang.DoctorOfflineFix)})
	default:
		r.add(finding{Check: "account", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorOnline)})
	}

	info, err := call("get_version_info")
	var v struct {
		AppVersion string `json:"app_version"`
	}
	switch {
	case err != nil:
		r.add(finding{Check: "version", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorActionFailed, "get_version_info", err.Error()), Fix: l.Sprintf(lang.DoctorLogsFix)})
	case json.Unmarshal(info.Data, &v) != nil || v.AppVersion == "":
		r.add(finding{Check: "version", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorNoVersion), Fix: l.Sprintf(lang.DoctorNoVersionFix)})
	case sameVersion(v.AppVersion, catalog.Version):
		r.add(finding{Check: "version", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorVersionOK, v.AppVersion)})
	default:
		fix := l.Sprintf(lang.DoctorVersionFix)
		if c, ok := compareVersions(v.AppVersion, catalog.Version); ok && c < 0 {
			fix = l.Sprintf(lang.DoctorVersionOlderFix, catalog.Version)
		}
		r.add(finding{Check: "version", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorVersionOther, v.AppVersion, catalog.Version), Fix: fix})
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

// compareVersions orders SnowLuma's app_version against the catalog's
// version by their dotted numbers (the core sameVersion compares): -1 when
// SnowLuma is older, so that the catalog lists actions it may lack, 1 when
// it is newer; ok is false when either is not dotted numbers.
func compareVersions(app, catalogVersion string) (c int, ok bool) {
	nums := func(v string) ([]int, bool) {
		v = strings.TrimPrefix(strings.TrimSpace(v), "v")
		if i := strings.IndexAny(v, "-+"); i >= 0 {
			v = v[:i]
		}
		var out []int
		for _, part := range strings.Split(v, ".") {
			n, err := strconv.Atoi(part)
			if err != nil || n < 0 {
				return nil, false
			}
			out = append(out, n)
		}
		return out, true
	}
	a, okA := nums(app)
	b, okB := nums(catalogVersion)
	if !okA || !okB {
		return 0, false
	}
	for len(a) < len(b) {
		a = append(a, 0)
	}
	for len(b) < len(a) {
		b = append(b, 0)
	}
	return slices.Compare(a, b), true
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
func checkEvents(ctx context.Context, l lang.Lang, cfg *config.Config) finding {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	where := cfg.EventsURL.String()
	g, err := events.Probe(ctx, events.Options{URL: where, Token: cfg.EventsToken, UserAgent: version.UserAgent()})
	var e *events.Error
	switch {
	case errors.As(err, &e) && e.Code == events.CodeUnauthorized:
		fix := l.Sprintf(lang.DoctorEventsTokenUnsetFix)
		if cfg.EventsTokenFrom == "set" {
			fix = l.Sprintf(lang.DoctorEventsTokenWrongFix)
		}
		return finding{Check: "events", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorEventsRefused, where, e.Message), Fix: fix}
	case errors.As(err, &e) && l == lang.En:
		return finding{Check: "events", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorNoEvents, where, e.Message), Fix: l.Sprintf(lang.DoctorNoEventsStep, e.NextStep)}
	case errors.As(err, &e):
		// The event connection's next step is written for a model, in
		// English; another language gets doctor's own fix, which says
		// where SnowLuma's WebSocket server is switched on and its default
		// address. The connection's error is quoted as it came.
		return finding{Check: "events", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorNoEvents, where, e.Message), Fix: l.Sprintf(lang.DoctorNoEventsFix)}
	case err != nil:
		return finding{Check: "events", Verdict: verdictFail, Detail: l.Sprintf(lang.DoctorNoEvents, where, err.Error()), Fix: l.Sprintf(lang.DoctorNoEventsFix)}
	case g.First == "":
		return finding{Check: "events", Verdict: verdictWarn, Detail: l.Sprintf(lang.DoctorEventsSilent, where, checkTimeout), Fix: l.Sprintf(lang.DoctorEventsSilentFix)}
	}
	return finding{Check: "events", Verdict: verdictOK, Detail: l.Sprintf(lang.DoctorEventsOK, where, eventsTokenState(l, cfg), g.First)}
}
