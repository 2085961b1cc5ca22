// Package server wires snowluma-mcp's features into a go-sdk MCP server.
// Each feature is one adapter file declaring its tools as toolkit.Specs
// (docs.go, exec.go, elicit.go, runtime.go) and its resources; New composes
// them. The tool framework itself (gate, rendering, kinds) is the toolkit
// package. Nothing here knows HTTP framing: that belongs to transfer.
package server

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// Name and Version identify this server to MCP clients.
const (
	Name    = "snowluma-mcp"
	Version = "0.1.0"
)

// Mode is what the server may do: only describe the catalog, also read from
// SnowLuma, or also write to it.
type Mode = toolkit.Mode

const (
	ModeDocs  = toolkit.ModeDocs
	ModeRead  = toolkit.ModeRead
	ModeWrite = toolkit.ModeWrite
)

// ProtocolVersions returns the MCP revisions served, newest first. A
// request at any other revision, a legacy initialize included, is refused
// with UnsupportedProtocolVersion (-32022) and this list.
func ProtocolVersions() []string {
	return []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}
}

// Options configure New.
type Options struct {
	// Catalog returns the bundled catalog, waiting for it if it is still
	// loading (see catalog.Preload).
	Catalog func() (*catalog.Catalog, error)
	Mode    Mode
	// Client reaches SnowLuma. It is required in read and write modes and
	// ignored in docs mode.
	Client *transfer.Client
	// Downloads is the directory download streams are saved to; without it
	// they are refused. UploadRoot, when set, enables automatic uploads
	// (invoke_action's execution.input_file) from inside it.
	Downloads  *transfer.Store
	UploadRoot *transfer.UploadRoot
	// SkipParamsCheck turns off checking action params against the
	// catalog's inputSchema, for a SnowLuma newer than the catalog.
	SkipParamsCheck bool
	// Log receives one line per tool call; nil discards.
	Log io.Writer
	// Tasks runs background transfers; nil when SNOWLUMA_MCP_TASK_DIR is
	// unset or its store could not be opened, for the reason in
	// TasksProblem.
	Tasks        *tasks.Runner
	TasksProblem string
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
	// Safety is the account-safety policy; nil means the documented
	// defaults (credentials denied, no confirmation, default pacing).
	Safety *safety.Policy
	// Events, when set, serves live event resources in read and write
	// modes. The caller closes it when the session ends.
	Events *events.Hub
	// ContinuationTTL is how long a form's continuation lasts, and so how
	// long a legacy client's answer to elicitation/create is waited for;
	// 0 means seal.DefaultTTL (ten minutes). Tests shorten it.
	ContinuationTTL time.Duration
	// Pass, when set, hands answers the server has encoded (tools/list,
	// tool results) to the transport instead of the SDK's encoder: the
	// binary sets it to its stdio.Transport's Pass. Leave it nil for any
	// other transport.
	Pass func(result []byte) []byte
	// CheckOutputsLater, when set, takes the check of the tools' output
	// schemas instead of New running it (see toolkit.Config): the binary
	// runs it after its first answer and stops on its error.
	CheckOutputsLater func(check func() error)
}

// New builds the MCP server for opts. It contacts nothing: SnowLuma is only
// reached when an execution tool is called.
func New(opts Options) (*mcp.Server, error) {
	if opts.Catalog == nil {
		return nil, errors.New("server: no catalog")
	}
	if opts.Mode != ModeDocs && opts.Client == nil {
		return nil, fmt.Errorf("server: %s mode needs a SnowLuma client", opts.Mode)
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logw, nil))
	ev := newEventService(opts.Events, opts.Mode)
	if ev != nil {
		ev.allow = opts.Safety
	}
	sopts := &mcp.ServerOptions{
		Instructions: instructions(opts.Mode) + ev.instructions(),
		// Declared rather than inferred: no logging (deprecated in
		// 2026-07-28; stderr is the log), and a tool list fixed per mode.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
		},
		SupportedProtocolVersions: ProtocolVersions(),
		SetCacheable:              cacheHints(ev != nil),
	}
	ev.configure(sopts)
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "SnowLuma OneBot", Version: Version}, sopts)
	ev.attach(s)
	s.AddReceivingMiddleware(refuseUnsupportedInitialize)
	cat := catalogSource(opts.Catalog)
	sealer, err := seal.New(seal.Options{Now: opts.Now, TTL: opts.ContinuationTTL})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	policy := opts.Safety
	if policy == nil {
		policy = defaultSafety()
	} else if policy.Pacer == nil {
		p := *policy
		p.Pacer = defaultSafety().Pacer
		policy = &p
	}
	x := &executor{catalog: cat, client: opts.Client, mode: opts.Mode, validate: !opts.SkipParamsCheck, safety: policy, sealer: sealer, log: log,
		downloads: opts.Downloads, uploads: opts.UploadRoot, tasks: opts.Tasks, lang: cmp.Or(opts.Lang, lang.En)}
	specs := docsTools(cat)
	specs = append(specs, execTools(x)...)
	specs = append(specs, inputTools(x, sealer)...)
	specs = append(specs, eventTools(ev)...)
	specs = append(specs, runtimeTool(x, ev))
	specs = append(specs, previewTool(opts.Mode, x.lang))
	ts := newTaskService(x, opts.Tasks, opts.TasksProblem)
	if opts.Tasks != nil && opts.TaskStreams != nil {
		opts.Tasks.OnChange(ts.pushTo(opts.TaskStreams, log))
	}
	specs = append(specs, ts.specs()...)
	if err := ts.addTaskMethods(s); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := toolkit.Register(s, toolkit.Config{Mode: opts.Mode, Log: log, Pass: opts.Pass, CheckOutputsLater: opts.CheckOutputsLater}, specs...); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	addCatalogResource(s, cat, opts.Pass)
	if err := addKindsResource(s); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if err := addPreviewPanel(s); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.AddSendingMiddleware(boundFormWait(cmp.Or(opts.ContinuationTTL, seal.DefaultTTL)))
	return s, nil
}

func instructions(m Mode) string {
	const docs = "Describes SnowLuma's OneBot actions from a bundled catalog: list_categories, list_actions and search_actions find an action; get_action gives its parameters, result schema and examples; get_runtime_info describes this server's configuration; preview_message drafts a literal text message and the invoke_action call that sends it, without sending."
	switch m {
	case ModeRead:
		return docs + " query_action runs read-only actions against the configured SnowLuma; query_action_with_input asks the user for missing required params."
	case ModeWrite:
		return docs + " query_action runs read-only actions and invoke_action runs any catalog action against the configured SnowLuma; their _with_input variants ask the user for missing required params."
	}
	return docs + " No SnowLuma endpoint is configured, so nothing is executed."
}

// A catalogSource yields the catalog once it has loaded.
type catalogSource func() (*catalog.Catalog, error)

// get returns the catalog, or the reply that says it could not be loaded (a
// packaging defect: the embedded catalog is checked by the tests).
func (src catalogSource) get() (*catalog.Catalog, toolkit.Reply, bool) {
	c, err := src()
	if err != nil {
		return nil, toolkit.Fail(toolkit.KindInternal, "the bundled catalog could not be loaded: "+err.Error(), "reinstall snowluma-mcp; report this to its maintainers"), false
	}
	return c, toolkit.Reply{}, true
}
