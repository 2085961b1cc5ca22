// Package server wires snowluma-mcp's features into a go-sdk MCP server.
// Each feature is one adapter file that declares its tools as
// toolkit.Specs and attaches its resources, methods and hooks (see
// feature); New builds the shared pieces once and loops over the features.
// Every tool that runs an action goes through one pipeline (package pipeline)
// over one backend (package backend). The tool framework itself (gate,
// rendering, kinds) is the toolkit package. Nothing here knows HTTP
// framing: that belongs to transfer.
package server

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/internal/version"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// Name identifies this server to MCP clients, with the build's version
// (package version). Version is the release the source is heading for.
const (
	Name    = "snowluma-mcp"
	Version = version.Base
)

// ProtocolVersions returns the MCP revisions served, newest first. A
// 2026-07-28 request at any other revision is refused with
// UnsupportedProtocolVersion (-32022) and this list; a legacy initialize at
// one is offered the newest legacy revision (see proposeOnInitialize).
func ProtocolVersions() []string {
	return []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}
}

// Options configure New.
type Options struct {
	// Catalog returns the bundled catalog, waiting for it if it is still
	// loading (see catalog.Preload).
	Catalog func() (*catalog.Catalog, error)
	Mode    config.Mode
	// Backend is the SnowLuma bot the execution features drive; its
	// client is required in read and write modes. Nil is a backend with
	// nothing configured, enough for docs mode.
	Backend *backend.Backend
	// Bots, when it holds more than one, are the QQ accounts the server
	// drives (bots.go); Backend is then ignored for Bots[0].Backend. With
	// one bot or none, Backend alone is the bot and nothing changes.
	Bots []Bot
	// Log receives the server's log lines; nil discards.
	Log io.Writer
	// CallLog receives the line of each tool call, and the warnings about
	// its trace context; nil means Log. The binary gives it a queue, so
	// that no answer waits for stderr.
	CallLog io.Writer
	// TaskStreams, when set, pushes each task status change to the
	// subscriptions/listen streams that asked for that task.
	TaskStreams TaskNotifier
	// Now is the clock of input continuations; nil means time.Now. Tests
	// set it to see continuations expire.
	Now func() time.Time
	// Lang is the language of the forms a person reads (the
	// missing-parameter and confirmation forms); empty means English.
	// Tool descriptions and results stay English.
	Lang lang.Lang
	// ContinuationTTL is how long a form's continuation lasts, and so how
	// long a legacy client's answer to elicitation/create is waited for;
	// 0 means seal.DefaultTTL (ten minutes). Tests shorten it.
	ContinuationTTL time.Duration
	// Speed holds the speed tricks the binary turns on (see Speed); leave
	// it zero for any other transport.
	Speed Speed
	// Location is the operator's time zone (config.Location): message
	// listings show their times in it. Nil means the machine's zone.
	Location *time.Location
	// Channel is the wire of the QQ channel (claudechannel.Wire over the
	// transport the server runs on); required when the backend's channel
	// is on.
	Channel ChannelWire

	// Set by New for several bots: the set, which bot a deps is built
	// for, the first bot's archive, which every further bot's keeper
	// feeds (archive.go), and the first bot's task runner, which runs
	// every bot's background tasks (tasks.go).
	bots      *botSet
	botIndex  int
	archiveOf *archiveService
	tasksOf   *tasks.Runner
	tasksOff  string
}

// New builds the MCP server for opts: the shared pieces once, then each
// feature (see feature) in turn. It contacts nothing: SnowLuma is only
// reached when an execution tool is called.
func New(opts Options) (*mcp.Server, error) {
	if len(opts.Bots) > 1 {
		opts.Backend = opts.Bots[0].Backend
		opts.bots = newBotSet(opts.Bots)
	}
	d, err := newDeps(opts)
	if err != nil {
		return nil, err
	}
	fs, err := features(d)
	if err != nil {
		return nil, err
	}

	sopts := &mcp.ServerOptions{
		// Declared rather than inferred: no logging (deprecated in
		// 2026-07-28; stderr is the log), and a tool list fixed per mode.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
		},
		SupportedProtocolVersions: ProtocolVersions(),
		SetCacheable:              cacheHints(d.events != nil),
		Instructions:              instructions(fs),
	}
	var specs []toolkit.Spec
	for _, f := range fs {
		if f.configure != nil {
			f.configure(sopts)
		}
		specs = append(specs, f.tools...)
	}
	var further []*deps
	if len(opts.Bots) > 1 {
		if specs, further, err = botSpecs(opts, specs, d.catalog, d.archive); err != nil {
			return nil, err
		}
		if d.channel != nil {
			// Set before attach starts the channel: its pushes name the bot.
			d.channel.label = opts.Bots[0].Label
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "SnowLuma OneBot", Version: version.Current()}, sopts)
	d.dispatch.On("initialize", proposeOnInitialize(cmp.Or[io.Writer](opts.Log, io.Discard)))
	callLog := d.log
	if opts.CallLog != nil {
		callLog = slog.New(slog.NewTextHandler(opts.CallLog, nil))
	}
	cfg := toolkit.Config{Mode: opts.Mode, Log: callLog, CheckOutputsLater: opts.Speed.CheckOutputsLater, Sandbox: d.backend.Sandbox, Dispatch: d.dispatch}
	if err := toolkit.Register(s, cfg, specs...); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	for _, f := range fs {
		if f.attach == nil {
			continue
		}
		if err := f.attach(s); err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
	}
	if further != nil {
		// Every bot's event resources are served through the first bot's
		// template and subscription handlers, each found in its own hub.
		peers := []*eventService{d.events}
		for _, fd := range further {
			fd.archive.startFurther()
			fd.events.attachPeer(s)
			peers = append(peers, fd.events)
			fd.channel.attachPeer(s)
		}
		for _, ev := range peers {
			if ev != nil {
				ev.peers = peers
			}
		}
	}
	// One receiving middleware: each request meets the wrapper of its
	// method, if any, and nothing else.
	d.dispatch.Install(s)
	return s, nil
}

// botSpecs builds every further bot's features, for their tools alone
// (resources, methods and hooks are the first bot's, but for the event
// services New joins to them), and merges them with first, the first
// bot's tools, into the one list (routeBots). It returns the further
// bots' deps.
func botSpecs(opts Options, first []toolkit.Spec, cat catalogSource, arch *archiveService) ([]toolkit.Spec, []*deps, error) {
	per := [][]toolkit.Spec{first}
	var further []*deps
	for i, b := range opts.Bots[1:] {
		o := opts
		// The channel's wire is the server's one; task streams are the
		// first bot's; the archive is the first bot's, fed by each.
		o.Backend, o.TaskStreams = b.Backend, nil
		o.botIndex, o.archiveOf = i+1, arch
		o.tasksOf, o.tasksOff = opts.Backend.Tasks, opts.Backend.TasksProblem
		d, err := newDeps(o)
		if err != nil {
			return nil, nil, fmt.Errorf("bot %s: %w", b.Label, err)
		}
		fs, err := features(d)
		if err != nil {
			return nil, nil, fmt.Errorf("bot %s: %w", b.Label, err)
		}
		if d.channel != nil {
			d.channel.label = b.Label
		}
		further = append(further, d)
		var specs []toolkit.Spec
		for _, f := range fs {
			specs = append(specs, f.tools...)
		}
		per = append(per, specs)
	}
	specs, err := routeBots(opts.bots, per, cat)
	if err != nil {
		return nil, nil, fmt.Errorf("server: %w", err)
	}
	return specs, further, nil
}

// features builds every feature of d, in the order New attaches them.
func features(d *deps) ([]feature, error) {
	var fs []feature
	for _, build := range []func(*deps) (feature, error){
		docsFeature,    // docs.go: the catalog tools, the catalog and failure-kinds resources
		execFeature,    // exec.go: query_action, invoke_action
		inputFeature,   // elicit.go: the *_with_input tools and the legacy form wait
		eventsFeature,  // events.go: live event tools and resources
		runtimeFeature, // runtime.go: get_runtime_info
		previewFeature, // preview.go: preview_message and its panel
		tasksFeature,   // tasks.go: background transfers and the task methods
		promptsFeature, // prompts.go: instructions, prompts, completion, one action as a resource
		targetsFeature, // targets.go: find_targets, names to ids
		channelFeature, // channel.go: the QQ channel for Claude Code
		trialFeature,   // trial.go: the sandbox and the dry run
		archiveFeature, // archive.go: the local message archive, its tools and the channel's catch-up
		mediaFeature,   // media.go: view_media
	} {
		f, err := build(d)
		if err != nil {
			return nil, fmt.Errorf("server: %w", err)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// instructions joins the features' sentences into the server's
// instructions, which prompts.MaxInstructions bounds in every
// configuration (TestInstructionsEveryConfiguration).
func instructions(fs []feature) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.instructions)
	}
	return b.String()
}

// newDeps makes the pieces every feature shares.
func newDeps(opts Options) (*deps, error) {
	if opts.Catalog == nil {
		return nil, errors.New("server: no catalog")
	}
	b := opts.Backend
	if b == nil {
		b = &backend.Backend{}
	}
	if b.Provenance == nil {
		b.Provenance = &untrusted.Registry{}
	}
	if opts.Mode != config.ModeDocs && b.Client == nil {
		return nil, fmt.Errorf("server: %s mode needs a SnowLuma client", opts.Mode)
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logw, nil))
	sealer, err := seal.New(seal.Options{Now: opts.Now, TTL: opts.ContinuationTTL})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	cat := catalogSource(opts.Catalog)
	ch, err := newChannelService(b, opts.Mode, opts.Channel, cmp.Or(opts.Lang, lang.En), logw)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	// The pipeline's hooks, given once: the channel's, the archive's, and
	// the task runner's launch of background plans.
	runner, off := b.Tasks, b.TasksProblem
	if opts.botIndex > 0 {
		runner, off = opts.tasksOf, opts.tasksOff
	}
	hooks := pipeline.Options{Launch: launchTask(runner, b.Sandbox, opts.botLabel())}
	ch.hooks(&hooks)
	arch := newArchiveService(b, opts, logw)
	arch.hooks(&hooks)
	x := newExecutor(cat, b, opts.Mode, sealer, cmp.Or(opts.Lang, lang.En), log, hooks)
	if ch != nil {
		ch.x = x
		ch.archive = arch
	}
	if arch != nil {
		arch.x = x
	}
	x.location, x.archive, x.tasks = cmp.Or(opts.Location, time.Local), arch != nil, runner
	return &deps{opts: opts, mode: opts.Mode, dispatch: &mcpseam.Dispatch{Pass: opts.Speed.PassEncoded, GrowStack: opts.Speed.GrowStacks}, catalog: cat, backend: b, exec: x, events: newEventService(b.Events, opts.Mode, x.safety, b.Provenance, x.location), channel: ch, archive: arch, tasks: runner, tasksOff: off, sealer: sealer, log: log}, nil
}

// A catalogSource yields the catalog once it has loaded.
type catalogSource func() (*catalog.Catalog, error)

// get returns the catalog, or the reply that says it could not be loaded (a
// packaging defect: the embedded catalog is checked by the tests).
func (src catalogSource) get() (*catalog.Catalog, outcome.Reply, bool) {
	c, err := src()
	if err != nil {
		return nil, outcome.Fail(outcome.KindInternal, "the bundled catalog could not be loaded: "+err.Error(), "reinstall snowluma-mcp; report this to its maintainers"), false
	}
	return c, outcome.Reply{}, true
}
