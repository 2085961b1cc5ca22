// Package app is the snowluma-mcp process without the operating system:
// its subcommands (serve, doctor, sandbox), configuration from the
// environment, the server on stdio and its shutdown. Command snowluma-mcp
// hands it os.Args, os.Environ and the standard streams; tests hand it
// their own, to run many servers in one test process.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/claudechannel"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/listen"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/stdio"
	"github.com/snowluma/snowluma-mcp/internal/version"
	"github.com/snowluma/snowluma-mcp/tasks"
)

// A Process is what Run takes from the operating system: its arguments,
// environment and standard streams. Nothing else in the server reads them,
// so that tests can run it inside their own process, many at once.
type Process struct {
	Args    []string // without the program name
	Environ []string // as os.Environ: KEY=value; the last of a key wins
	Stdin   io.Reader
	Stdout  io.Writer // the protocol channel
	Stderr  io.Writer // the only log
	// Terminal says whether stdin is a terminal.
	Terminal bool
	// Signals says whether Run handles SIGINT, SIGTERM and SIGPIPE, as
	// the real process does; a test in process ends a server by its
	// context instead (as on SIGTERM) or by closing stdin.
	Signals bool
	// Catalog loads the action catalog; nil decodes the embedded one,
	// once per Run. The catalog is immutable, so a program that runs
	// many servers in one process (the tests) can give them one loader.
	Catalog func() (*catalog.Catalog, error)
}

// catalogLoader is p.Catalog, or a loader of the embedded catalog.
func (p Process) catalogLoader() func() (*catalog.Catalog, error) {
	if p.Catalog != nil {
		return p.Catalog
	}
	return sync.OnceValues(catalog.Load)
}

// Exit statuses of Run.
const (
	ExitOK     = 0
	ExitFailed = 1 // the server could not start or stopped on an error
	ExitUsage  = 2 // bad flags or configuration: nothing was served
)

// Run is the snowluma-mcp command without the process: it returns the
// exit status. The end of ctx stops the server as SIGTERM does.
func Run(ctx context.Context, p Process) int {
	args, stdout, stderr := p.Args, p.Stdout, p.Stderr
	if len(args) > 0 && args[0] == "doctor" {
		return runDoctor(ctx, args[1:], p.Environ, false, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "sandbox" {
		return runSandbox(ctx, p)
	}
	for _, a := range args {
		switch a {
		case "--help", "-help", "-h":
			printHelp(stdout, config.PersonLang(p.Environ))
			return ExitOK
		case "--version", "-version":
			commit := version.CurrentCommit()
			if commit == "" {
				commit = "unknown"
			}
			fmt.Fprintf(stdout, "%s %s (commit %s, SnowLuma catalog %s)\n", server.Name, version.Current(), commit, catalog.Version)
			return ExitOK
		default:
			fmt.Fprintln(stderr, config.PersonLang(p.Environ).Sprintf(lang.UnknownArgument, server.Name, a, "--help, --version, doctor [--json], sandbox [doctor [--json]]"))
			return ExitUsage
		}
	}
	// The catalog decodes in the background once the first answer is out
	// (see catalogload.go), or when a call needs it.
	return serve(ctx, p, false, p.catalogLoader())
}

// serve runs the server on p's stdio with the configuration of
// p.Environ. sandboxed says its endpoint is the simulated SnowLuma that
// runSandbox started in this process.
func serve(ctx context.Context, p Process, sandboxed bool, loadCatalog func() (*catalog.Catalog, error)) int {
	stderr := p.Stderr
	// A write to a closed stdout or stderr would otherwise kill the
	// process with SIGPIPE, with no cleanup; handled, it fails with EPIPE,
	// and a failed stdout write ends the session as SIGTERM does.
	if p.Signals {
		pipe := make(chan os.Signal, 1)
		signal.Notify(pipe, syscall.SIGPIPE)
		defer signal.Stop(pipe)
	}
	cfg, code := startConfig(p, sandboxed)
	if cfg == nil {
		return code
	}
	b, code := openBackend(cfg.ForBot(0), stderr)
	if b == nil {
		return code
	}
	defer b.Close()
	bots, code := openFurtherBots(cfg, b, stderr)
	if bots == nil && len(cfg.Bots) > 1 {
		return code
	}
	for _, fb := range bots[min(1, len(bots)):] {
		defer fb.Backend.Close()
	}

	out := newAnswerWatch(p.Stdout)
	tr := stdio.New(p.Stdin, out, stdio.Options{MaxLineBytes: cfg.MaxRequestBytes, Log: stderr, Name: server.Name, EndGrace: endGrace})
	// The lines of calls: queued, written before serve returns; a call
	// abandoned at shutdown writes its own at once.
	calls := newCallLog(stderr)
	defer calls.Close()
	s, transport, checkOutputs, err := newServer(cfg, b, bots, tr, loadCatalog, stderr, calls)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return ExitFailed
	}

	sigs := make(chan os.Signal, 2)
	if p.Signals {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
	}
	// The start-up line waits for the catalog, but serving does not.
	failed := make(chan error, 1)
	announced := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(announced)
		catalogTime(out.first, stopped, time.After(catalogGrace))
		if err := announce(cfg, p.Terminal, checkOutputs, loadCatalog, stderr); err != nil {
			failed <- err
			tr.Shutdown()
		}
	}()
	served := make(chan error, 1)
	go func() {
		err := s.Run(context.Background(), transport)
		close(stopped)
		served <- err
	}()

	stop := func(why any) int {
		shutdown(tr, why, sigs, served, stderr)
		if b.Events != nil {
			// A WebSocket close handshake may wait seconds for SnowLuma;
			// the deferred Close then finds nothing left to close.
			within(250*time.Millisecond, b.Events.Close)
		}
		return ExitOK
	}
	select {
	case sig := <-sigs:
		return stop(sig)
	case <-ctx.Done():
		return stop(context.Cause(ctx))
	case <-tr.Ending():
		// The client is gone (stdout failed, or stdin ended with calls
		// still running after the grace): stop as on SIGTERM.
		return stop(tr.EndCause())
	case err = <-served:
	}
	<-announced
	calls.Close() // the calls' lines before the last words
	return ended(tr, err, failed, stderr)
}

// startConfig reads the configuration from p's environment and writes its
// notes; on a bad setting it writes the error in the operator's language
// and returns nil with ExitUsage.
func startConfig(p Process, sandboxed bool) (*config.Config, int) {
	cfg, err := config.Load(p.Environ)
	if err != nil {
		// A person reads this: in their language, known before the rest.
		l := config.PersonLang(p.Environ)
		msg := err.Error()
		var ce *config.Error
		if errors.As(err, &ce) {
			msg = ce.In(l)
		}
		fmt.Fprintf(p.Stderr, "%s: %s\n", server.Name, l.Sprintf(lang.ConfigStartError, msg))
		return nil, ExitUsage
	}
	for _, n := range cfg.Notes {
		fmt.Fprintf(p.Stderr, "%s: %s\n", server.Name, n)
	}
	cfg.Sandbox = sandboxed
	if cfg.DryRun {
		fmt.Fprintf(p.Stderr, "%s: %s\n", server.Name, cfg.Lang.Sprintf(lang.SandboxDryRun))
	}
	return cfg, ExitOK
}

// openBackend builds the one bot this process drives. Nothing connects
// yet: the event socket waits for the first subscribe_events, and the end
// of the session releases every event resource and closes it. On failure
// it says why and returns nil with the exit status.
func openBackend(cfg *config.Config, stderr io.Writer) (*backend.Backend, int) {
	b, err := backend.Open(cfg, version.UserAgent())
	var bad *backend.SettingError
	if errors.As(err, &bad) {
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, cfg.Lang.Sprintf(lang.ConfigStartVarError, config.Prefix+"_"+bad.Var, bad.Err))
		return nil, ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return nil, ExitFailed
	}
	if b.TasksProblem != "" {
		// The server still serves; the task tools say why they are off.
		why := b.TasksProblem
		var inUse *tasks.InUseError
		if errors.As(b.TasksErr, &inUse) {
			why = tasksInUse(cfg.Lang, inUse)
		}
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, cfg.Lang.Sprintf(lang.ConfigTasksOff, why))
	}
	// An archive that cannot be used is told once, in the operator's
	// language, by the server as it declares the archive tools.
	return b, ExitOK
}

// openFurtherBots opens the backend of every bot after the first, whose
// backend is first, and returns them all labelled; nil with one bot.
// The first bot's task runner runs every bot's background tasks (the
// server gives it each bot's; one task directory and lease, each record
// naming its bot), and its archive is every bot's (the server feeds it
// from each). On
// failure it says why, closes what it opened and returns nil with the
// exit status.
func openFurtherBots(cfg *config.Config, first *backend.Backend, stderr io.Writer) ([]server.Bot, int) {
	if len(cfg.Bots) < 2 {
		return nil, ExitOK
	}
	bots := []server.Bot{{Label: cfg.Bots[0].Label, Backend: first}}
	for i := 1; i < len(cfg.Bots); i++ {
		b, code := openBackend(cfg.ForBot(i), stderr)
		if b == nil {
			for _, o := range bots[1:] {
				o.Backend.Close()
			}
			return nil, code
		}
		bots = append(bots, server.Bot{Label: cfg.Bots[i].Label, Backend: b})
	}
	return bots, ExitOK
}

// tasksInUse says, in l, that another server holds the task directory.
func tasksInUse(l lang.Lang, e *tasks.InUseError) string {
	holder := l.Sprintf(lang.HolderUnknown)
	switch {
	case e.PID != "":
		holder = l.Sprintf(lang.HolderProcess, e.PID, e.Since)
	case e.Holder != "":
		holder = e.Holder
	}
	return l.Sprintf(lang.TasksInUse, e.Dir, holder)
}

// newServer builds the MCP server over b and the transport it runs on: tr,
// wrapped for the listen streams of task status and of the QQ channel when
// those are on. checkOutputs, when not nil, checks the output schemas once
// the catalog may be decoded (catalogload.go).
func newServer(cfg *config.Config, b *backend.Backend, bots []server.Bot, tr *stdio.Transport, loadCatalog func() (*catalog.Catalog, error), stderr, calls io.Writer) (s *mcp.Server, transport mcp.Transport, checkOutputs func() error, err error) {
	opts := server.Options{Catalog: loadCatalog, Mode: cfg.Mode, Backend: b, Bots: bots, Log: stderr, CallLog: calls, Lang: cfg.Lang, Location: cfg.Location}
	var taskStreams *listen.Streams
	if b.Tasks != nil {
		store := b.Tasks.Store()
		taskStreams = listen.New(server.TasksExtension, func(id string) bool { _, err := store.Get(id); return err == nil })
		opts.TaskStreams = taskStreams
	}
	// The QQ channel writes to the client through a wire of its own, on
	// the listen streams of 2026-07-28 clients (acknowledging no task
	// when tasks are off).
	var wire *claudechannel.Wire
	if b.Channel != nil {
		if taskStreams == nil {
			taskStreams = listen.New(server.TasksExtension, nil)
		}
		wire = claudechannel.New(taskStreams)
		opts.Channel = wire
	}
	opts.Speed = server.Speed{PassEncoded: tr, CheckOutputsLater: func(check func() error) { checkOutputs = check }, GrowStacks: true}
	if s, err = server.New(opts); err != nil {
		return nil, nil, nil, err
	}
	// One wrapper carries the methods the SDK has no API for: the
	// channel's tap first, so that it sees permission requests first.
	var taps []mcpseam.Tap
	if wire != nil {
		taps = append(taps, wire)
	}
	if taskStreams != nil {
		taps = append(taps, taskStreams)
	}
	return s, mcpseam.Wrap(tr, taps...), checkOutputs, nil
}

// announce checks the output schemas and loads the catalog, then writes
// the start-up line (and, in a terminal, the hint that the server waits
// for a host). A catalog that fails to load, or an output schema that does
// not compile, is a packaging defect: the error stops the server.
func announce(cfg *config.Config, terminal bool, checkOutputs func() error, loadCatalog func() (*catalog.Catalog, error), stderr io.Writer) error {
	if checkOutputs != nil {
		if err := checkOutputs(); err != nil {
			return fmt.Errorf("server: %w", err) // as New reports it
		}
	}
	cat, err := loadCatalog()
	if err != nil {
		return err
	}
	endpoint := "none"
	if cfg.Endpoint != nil {
		endpoint = cfg.Endpoint.String()
	}
	if len(cfg.Bots) > 1 {
		// Each bot by its label, never a token.
		parts := make([]string, len(cfg.Bots))
		for i, b := range cfg.Bots {
			parts[i] = b.Label + " none"
			if b.Endpoint != nil {
				parts[i] = b.Label + " " + b.Endpoint.String()
			}
		}
		endpoint = strings.Join(parts, ", ")
	}
	fmt.Fprintf(stderr, "%s %s: SnowLuma catalog %s, %d actions in %d categories, mode %s, endpoint %s\n",
		server.Name, version.Current(), cat.Version(), cat.Len(), len(cat.Categories()), cfg.Mode, endpoint)
	if terminal {
		// It follows the start-up line when a person starts the server
		// in a terminal, where it would otherwise seem to hang.
		fmt.Fprintf(stderr, "%s: %s\n", server.Name, cfg.Lang.Sprintf(lang.TerminalHint))
	}
	return nil
}

// ended is the exit status of a session that ended on its own (not by a
// signal or the context): failed holds the start-up line's error, if any;
// err is what the session returned.
func ended(tr *stdio.Transport, err error, failed <-chan error, stderr io.Writer) int {
	select {
	case cerr := <-failed:
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, cerr)
		return ExitFailed
	default:
	}
	if cause := tr.EndCause(); cause != nil {
		// The session ended on its own after the client went: not a
		// failure of the server (its error is the failed write).
		fmt.Fprintf(stderr, "%s: %v: exiting\n", server.Name, cause)
		return ExitOK
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintf(stderr, "%s: %v\n", server.Name, err)
		return ExitFailed
	}
	return ExitOK
}

// endGrace is how long the requests already read get to be answered once
// stdin has ended; the rest are then cancelled as on SIGTERM.
const endGrace = time.Second

// shutdownGrace is how long calls in flight get to return once a signal
// has cancelled them; the process exits within it and a little more.
const shutdownGrace = 1500 * time.Millisecond

// shutdown ends the process on SIGTERM or SIGINT, or when the client is
// gone (why says which): stdout stops after the last complete message,
// every call in flight is cancelled (with its HTTP request or stream), and
// the calls get shutdownGrace to return (time for them to remove partial
// files) unless a second signal comes first.
func shutdown(tr *stdio.Transport, why any, sigs <-chan os.Signal, served <-chan error, stderr io.Writer) {
	n := tr.Shutdown()
	fmt.Fprintf(stderr, "%s: %v: cancelling %d request(s) in flight and exiting\n", server.Name, why, n)
	grace := time.NewTimer(shutdownGrace)
	defer grace.Stop()
	select {
	case <-served:
	case <-grace.C:
		fmt.Fprintf(stderr, "%s: calls still running after %v are abandoned\n", server.Name, shutdownGrace)
	case <-sigs:
	}
	// A message being written when the signal came is finished, unless
	// the host stopped reading stdout.
	select {
	case <-tr.Quiet():
	case <-time.After(250 * time.Millisecond):
	}
}

// within runs f, waiting for it at most d.
func within(d time.Duration, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// helpWidth is the most columns a line of --help takes, a Chinese
// character counting two: it reads in an 80- to 100-column terminal.
const helpWidth = 96

// printHelp writes --help in l: what the server is, its usage, and each
// variable on lines of its own (name, default, meaning wrapped to
// helpWidth), all in l: the variables' defaults and meanings are
// declared in internal/config, their Chinese in internal/lang.
func printHelp(w io.Writer, l lang.Lang) {
	intro := l.Sprintf(lang.HelpIntro, server.Name, version.Current(), catalog.Version, server.Name)
	for _, para := range strings.Split(intro, "\n\n") {
		fmt.Fprintln(w, wrap(para, helpWidth, ""))
		fmt.Fprintln(w)
	}
	for _, v := range config.Variables() {
		v = v.In(l)
		fmt.Fprintln(w, v.Name)
		fmt.Fprintln(w, wrap(l.Sprintf(lang.HelpDefault, v.Shown), helpWidth, "    "))
		fmt.Fprintln(w, wrap(v.Meaning, helpWidth, "    "))
	}
}

// wrap breaks s into lines of at most width columns (a wide character
// counts two), each starting with indent: at spaces, or between two wide
// characters, which Chinese text allows anywhere.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line, cols := indent, len(indent)
	flush := func() {
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
		line, cols = indent, len(indent)
	}
	for _, word := range splitWords(s) {
		n := columns(word)
		if cols+n > width && cols > len(indent) {
			flush()
			word = strings.TrimLeft(word, " ")
			n = columns(word)
		}
		line += word
		cols += n
	}
	b.WriteString(strings.TrimRight(line, " "))
	return b.String()
}

// splitWords cuts s before each space and around each wide character, so
// that wrap may break there; the pieces joined give s.
func splitWords(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		prev := lastRune(s[:i])
		if i > start && (r == ' ' || wide(r) || wide(prev)) && !strings.ContainsRune(noLineStart, r) && !strings.ContainsRune(noLineEnd, prev) {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

// Chinese punctuation that may not start a line, and that may not end one.
const (
	noLineStart = "，。、；：？！）」』》〉】”’"
	noLineEnd   = "（「『《〈【“‘"
)

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// wide reports whether r takes two terminal columns: the CJK characters
// and the full-width punctuation Chinese text uses.
func wide(r rune) bool {
	return unicode.Is(unicode.Han, r) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF60)
}

// columns is how many terminal columns s takes.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n++
		if wide(r) {
			n++
		}
	}
	return n
}
