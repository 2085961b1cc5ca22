package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// The execution tools drive a live SnowLuma: query_action and
// invoke_action. A call takes one path: the toolkit's mode gate, call
// (catalog lookup, read/write gate, the plan), then the pipeline
// (internal/pipeline).

// executor is the tool adapters' handle on the pipeline: the pipeline
// itself (Run, Read, the shared steps) and what the adapters read besides.
type executor struct {
	*pipeline.Executor
	catalog catalogSource
	backend *backend.Backend
	safety  *safety.Policy // the pipeline's policy
	mode    config.Mode
	lang    lang.Lang // of the forms a person reads
	// location is the operator's zone, of the history's lines; archive
	// says whether the local archive is on (the history's note names it).
	location *time.Location
	archive  bool
	// tasks runs this bot's background tasks (the first bot's runner
	// with several bots); nil when they are off.
	tasks *tasks.Runner
}

// newExecutor returns the executor of b, with the pipeline's hooks (Sent,
// Remote, Launch) taken from hooks.
func newExecutor(cat catalogSource, b *backend.Backend, mode config.Mode, sealer *seal.Sealer, l lang.Lang, log *slog.Logger, hooks pipeline.Options) *executor {
	hooks.Backend, hooks.Catalog, hooks.Sealer, hooks.Lang, hooks.Log = b, cat, sealer, l, log
	p := pipeline.New(hooks)
	return &executor{Executor: p, catalog: cat, backend: b, safety: p.Policy(), mode: mode, lang: l}
}

// enabled reports whether SnowLuma can be reached at all.
func (x *executor) enabled() bool { return x.mode != config.ModeDocs }

type actionArgs struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params"`
	// Execution is invoke_action's only (streams.go).
	Execution *executionArgs `json:"execution"`
}

// actionProp and paramsHelp are the parts of the execution tools' input
// schemas that invoke_action's wider one (streams.go) repeats.
const (
	actionProp = `"action": {"type": "string", "minLength": 1, "description": "Action name or alias."}`
	paramsHelp = `Per get_action's inputSchema.`
)

const actionInput = `{
  "type": "object",
  "properties": {
    ` + actionProp + `,
    "params": {"type": "object", "description": "` + paramsHelp + `"}
  },
  "required": ["action"],
  "additionalProperties": false
}`

// twinInput is actionInput without the descriptions, for a tool whose
// description sends the model to its plain twin's: the same contract in
// fewer bytes.
const twinInput = `{"type": "object", "properties": {"action": {"type": "string", "minLength": 1}, "params": {"type": "object"}}, "required": ["action"], "additionalProperties": false}`

// envelopeResult is the outputSchema of a call's payload: SnowLuma's OneBot
// envelope as received, or for a generic stream the collected frames.
const envelopeResult = `{"type": "object", "description": "SnowLuma's OneBot envelope as sent; a stream's {frames, count, terminal}."}`

// execFeature serves query_action and invoke_action.
func execFeature(d *deps) (feature, error) {
	return feature{tools: execTools(d.exec)}, nil
}

// execTools declares query_action and invoke_action.
func execTools(x *executor) []toolkit.Spec {
	return []toolkit.Spec{{
		Name:        "query_action",
		Title:       "Query SnowLuma (read-only)",
		Description: "Run a read-only catalog action; returns SnowLuma's envelope (retcode ≠ 0: outcome failed).",
		Input:       actionInput,
		Output:      envelopeResult,
		Needs:       config.ModeRead,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) outcome.Reply {
			return x.call(ctx, c, in, false, false)
		}),
	}, {
		Name:        "invoke_action",
		Title:       "Invoke an action",
		Description: "Run any catalog action, writes included. After a timeout a write may have happened: check first. Safety may refuse or ask a person.",
		Input:       invokeInput,
		Output:      invokeResult,
		Needs:       config.ModeWrite,
		Writes:      true,
		Destructive: true,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) outcome.Reply {
			return x.call(ctx, c, in, true, false)
		}),
	}}
}

// call is the entry of query_action (write false), invoke_action (write
// true) and, with background, invoke_action_background: it reads the call
// into a plan and runs it. A call that answers a confirmation round
// carries the person's answer, which must open for this very call.
func (x *executor) call(ctx context.Context, c *toolkit.Call, in actionArgs, write, background bool) outcome.Reply {
	tool := toolName(write)
	if background {
		tool = backgroundTool
	}
	a, r, allowed := x.admit(c, tool, in.Action, write)
	if !allowed {
		return r
	}
	if background && !a.Stream {
		return outcome.Fail(outcome.KindInvalidArguments,
			fmt.Sprintf("%s is not a stream action; %s runs stream actions only", a.Name, backgroundTool),
			"call invoke_action for ordinary actions")
	}
	q := c.Req.Params
	p := pipeline.Plan{Action: a, Params: in.Params, Background: background,
		Answers: q.RequestState != "" || len(q.InputResponses) > 0}
	if in.Execution != nil {
		p.InputFile = in.Execution.InputFile
	}
	r = x.Run(ctx, x.callOf(c), p)
	if !write && historyActions[a.Name] {
		r = historyLines(r, in.Params, x.location, x.archive)
	}
	return r
}

// toolName is the execution tool for write or read-only calls.
func toolName(write bool) string {
	if write {
		return "invoke_action"
	}
	return "query_action"
}

// admit finds the action and applies the read/write gate (the mode gate
// was applied by the toolkit). It records the action on c for the log line.
func (x *executor) admit(c *toolkit.Call, tool, name string, write bool) (*catalog.Action, outcome.Reply, bool) {
	cat, r, loaded := x.catalog.get()
	if !loaded {
		return nil, r, false
	}
	a, found := cat.Lookup(name)
	if !found {
		return nil, unknownAction(cat, name), false
	}
	c.Action = a.Name
	if !write && !a.ReadOnly {
		writer := strings.Replace(tool, "query_action", "invoke_action", 1)
		next := "set SNOWLUMA_MCP_MODE=write in the server's environment to enable " + writer + ", then call it instead"
		if x.mode == config.ModeWrite {
			next = "call " + writer + " with the same arguments"
		}
		return nil, outcome.Fail(outcome.KindWriteAction, fmt.Sprintf("%s is a write action; %s only runs read-only actions", a.Name, tool), next), false
	}
	return a, outcome.Reply{}, true
}

// callOf is the pipeline's view of a tool call: its tool, its arguments as
// sent, its trace context, and its MCP client.
func (x *executor) callOf(c *toolkit.Call) *pipeline.Call {
	pc := &pipeline.Call{Args: c.Args, Trace: c.Trace}
	if c.Req != nil && c.Req.Params != nil {
		pc.Tool, pc.Args, pc.Client = c.Req.Params.Name, c.Req.Params.Arguments, mcpClient{c.Req, x.backend.Provenance}
	}
	return pc
}

// mcpClient is what the pipeline asks of an MCP client (pipeline.Client):
// forms by elicitation, answers in inputResponses, progress by
// notifications/progress, and the ledger of its session in provenance.
type mcpClient struct {
	req        *mcp.CallToolRequest
	provenance *untrusted.Registry
}

func (m mcpClient) Forms() bool { return toolkit.SupportsForms(m.req.ClientCapabilities()) }

func (m mcpClient) RequestState() string { return m.req.Params.RequestState }

func (m mcpClient) Answer(key string) *pipeline.Answer {
	resp, _ := m.req.Params.InputResponses[key].(*mcp.ElicitResult)
	if resp == nil {
		return nil
	}
	why, _ := resp.Meta[unansweredKey].(string)
	return &pipeline.Answer{Action: resp.Action, Content: resp.Content, Unanswered: why}
}

// Ledger is the send gate's ledger of the MCP session the call came on.
func (m mcpClient) Ledger() *untrusted.Ledger {
	if m.req.Session == nil || m.provenance == nil {
		return nil
	}
	return m.provenance.For(m.req.Session)
}

// Waiting tells the client, by a progress notification with a message,
// what its call waits for (an approver on QQ); nothing without a progress
// token.
func (m mcpClient) Waiting(ctx context.Context, message string) {
	if tok := m.req.Params.GetProgressToken(); tok != nil && m.req.Session != nil {
		m.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: message})
	}
}

// Progress reports through the request's progress token, when it has one.
func (m mcpClient) Progress(ctx context.Context) func(done, total int64) error {
	tok := m.req.Params.GetProgressToken()
	if tok == nil || m.req.Session == nil {
		return nil
	}
	session := m.req.Session
	return func(done, total int64) error {
		n := &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(done)}
		if total > 0 {
			n.Total = float64(total)
		}
		return session.NotifyProgress(ctx, n)
	}
}
