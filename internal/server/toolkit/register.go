package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/trace"
)

// ModernRevision is the first protocol revision of the per-request era;
// requests at an earlier revision come from legacy initialize clients.
const ModernRevision = "2026-07-28"

// Register compiles every spec (a bad schema or an inconsistent spec is an
// error, reported before anything is served), adds the tools to s, and
// filters tools/list so that each client sees exactly the tools it may
// call. Every tool is registered in every mode: hiding is a courtesy, the
// refusal in the handler is the gate.
//
// The specs compile concurrently, since compiling schemas is most of a
// server's start-up, and a schema several tools share is compiled once.
// Errors are reported in the order of specs.
func Register(s *mcp.Server, cfg Config, specs ...Spec) error {
	mode, log := cfg.Mode, cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	all := make([]*compiled, len(specs))
	errs := make([]error, len(specs))
	var schemas schemaSet
	var wg sync.WaitGroup
	later := cfg.CheckOutputsLater
	for i := range specs {
		wg.Go(func() {
			all[i], errs[i] = specs[i].compile(&schemas)
			if errs[i] == nil && later == nil {
				errs[i] = specs[i].checkOutput(&schemas)
			}
		})
	}
	wg.Wait()
	byName := make(map[string]*compiled, len(specs))
	for i, c := range all {
		if errs[i] != nil {
			return fmt.Errorf("toolkit: %w", errs[i])
		}
		if byName[c.Name] != nil {
			return fmt.Errorf("toolkit: tool %s declared twice", c.Name)
		}
		byName[c.Name] = c
	}
	d := cfg.Dispatch
	if d == nil {
		d = &mcpseam.Dispatch{}
	}
	for _, c := range byName {
		// The SDK holds stand-in schemas; tools/list answers carry the
		// whole definitions (filterList), and serve checks the arguments.
		s.AddTool(mcpseam.StandIn(c.tool), serve(c, mode, log, d, cfg.Sandbox))
	}
	d.On("tools/list", filterList(mode, byName, d.Pass))
	if cfg.Dispatch == nil {
		d.Install(s)
	}
	if later != nil {
		later(func() error { return checkOutputs(&schemas, specs) })
	}
	return nil
}

// checkOutputs checks every spec's output schema, concurrently, and returns
// the first failure in the order of specs.
func checkOutputs(schemas *schemaSet, specs []Spec) error {
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i := range specs {
		wg.Go(func() { errs[i] = specs[i].checkOutput(schemas) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("toolkit: %w", err)
		}
	}
	return nil
}

// Config is how Register serves its specs.
type Config struct {
	Mode config.Mode
	// Log receives one line per tool call; nil discards.
	Log *slog.Logger
	// CheckOutputsLater, when set, is given the check of the specs' output
	// schemas instead of Register running it, for the caller to run once it
	// has answered its first request and to stop on its error. An output
	// schema is compiled only to be checked, and a bad one is a defect of
	// the program that the tests catch, as with a bad catalog, while the
	// check is most of the compiling (BenchmarkNew/output_check in
	// internal/server). Nil: Register checks them and fails on a bad one.
	CheckOutputsLater func(check func() error)
	// Sandbox marks every tool result's diagnostics with sandbox: true, for
	// a server whose SnowLuma is the simulated one of `snowluma-mcp
	// sandbox`.
	Sandbox bool
	// Dispatch, when set, is the server's one receiving middleware, which
	// the caller installs once every feature has added its wrappers.
	// Register adds the tools/list wrapper, and every tools/call result
	// leaves through it. Nil: Register makes and installs one.
	Dispatch *mcpseam.Dispatch
}

// Serve compiles spec and returns the handler Register installs for it in
// mode: the whole per-call path (trace context, gate, argument check,
// handler, log line, rendering) without the SDK around it. Benchmarks use
// it to tell this server's own cost of a call from the SDK's.
func Serve(spec Spec, mode config.Mode, log *slog.Logger) (mcp.ToolHandler, error) {
	var schemas schemaSet
	c, err := spec.compile(&schemas)
	if err == nil {
		err = spec.checkOutput(&schemas)
	}
	if err != nil {
		return nil, fmt.Errorf("toolkit: %w", err)
	}
	return serve(c, mode, log, &mcpseam.Dispatch{}, false), nil
}

// client is what the gate knows of the caller. Its capabilities are read
// only when a gate needs them: for a 2026-07-28 request the SDK decodes them
// from the request's _meta anew on every read.
type client struct {
	req interface {
		ClientCapabilities() *mcp.ClientCapabilities
		ProtocolVersion() string
	}
	modern bool
	caps   *mcp.ClientCapabilities
	read   bool
}

func clientOf(r interface {
	ClientCapabilities() *mcp.ClientCapabilities
	ProtocolVersion() string
}) *client {
	return &client{req: r, modern: r.ProtocolVersion() >= ModernRevision}
}

// capabilities returns the client's capabilities, reading them once.
func (c *client) capabilities() *mcp.ClientCapabilities {
	if !c.read {
		c.caps, c.read = c.req.ClientCapabilities(), true
	}
	return c.caps
}

// SupportsForms reports whether the client advertised form elicitation. An
// empty elicitation capability means form, as in 2025-06-18.
func SupportsForms(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}

// HasExtension reports whether the client advertised extension id.
func HasExtension(caps *mcp.ClientCapabilities, id string) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[id]
	return ok
}

// refusal says why c may not call the tool in mode, or nil when it may.
func (c *compiled) refusal(mode config.Mode, cl *client) *outcome.Refusal {
	if !mode.Allows(c.Needs) {
		return &outcome.Refusal{Kind: outcome.KindModeGate, Message: fmt.Sprintf("%s needs %s mode; this server runs in %s mode", c.Name, c.Needs, mode),
			NextStep: "set SNOWLUMA_MCP_ENDPOINT and SNOWLUMA_MCP_MODE=" + string(c.Needs) + " in the server's environment and restart it"}
	}
	if c.Unavailable != nil {
		return c.Unavailable
	}
	if c.ModernOnly && !cl.modern {
		return &outcome.Refusal{Kind: outcome.KindCapability, Message: c.Name + " is served to 2026-07-28 clients only; this client uses the legacy initialize handshake",
			NextStep: "use the synchronous tools, or a client of protocol revision 2026-07-28"}
	}
	if c.NeedsExtension != "" && !HasExtension(cl.capabilities(), c.NeedsExtension) {
		return &outcome.Refusal{Kind: outcome.KindCapability, Message: fmt.Sprintf("%s needs a client that advertises the %s extension", c.Name, c.NeedsExtension),
			NextStep: "use the synchronous tools, or a client that supports " + c.NeedsExtension}
	}
	if c.NeedsForms && !SupportsForms(cl.capabilities()) {
		next := "use a client that can show forms"
		if c.WithoutForms != "" {
			next = "call " + c.WithoutForms + " with complete params"
		}
		return &outcome.Refusal{Kind: outcome.KindElicitationUnsupported, Message: c.Name + " needs a client that advertises form elicitation", NextStep: next}
	}
	return nil
}

// serve is the path of every call: trace context, gate, argument check,
// handler, log line, rendering; sandbox marks every result's diagnostics.
func serve(c *compiled, mode config.Mode, log *slog.Logger, d *mcpseam.Dispatch, sandbox bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		tc, problem := trace.Start(req.Params.Meta)
		if problem != "" {
			log.Warn("trace", slog.String("tool", c.Name), slog.String("problem", string(problem)))
		}
		call := &Call{Req: req, Trace: tc}
		cl := clientOf(req)
		r := func() outcome.Reply {
			if ref := c.refusal(mode, cl); ref != nil {
				return ref.Reply()
			}
			args := bytes.TrimSpace(req.Params.Arguments)
			if len(args) == 0 || bytes.Equal(args, []byte("null")) {
				args = []byte("{}")
			}
			if errs := c.input.Check(args); errs != nil {
				parts := make([]string, len(errs))
				for i, e := range errs {
					parts[i] = "argument " + e.String()
				}
				return outcome.Fail(outcome.KindInvalidArguments, c.Name+": "+strings.Join(parts, "; "),
					"fix the named arguments to match the tool's input schema and call again")
			}
			call.Args = args
			return c.Handler(ctx, call)
		}()
		logCall(log, c.Name, call, r.Diag, time.Since(start))
		if r.Handle != nil {
			if h, ok := r.Handle.(mcp.Result); ok {
				h.SetMeta(mcp.Meta{trace.TraceparentKey: tc.Traceparent()})
				return d.Placeholder(h), nil
			}
			r = outcome.Fail(outcome.KindInternal, c.Name+" answered with a handle that is not an MCP result", "report this to the snowluma-mcp maintainers")
		}
		r.Diag.Sandbox = r.Diag.Sandbox || sandbox
		res := toolResult(r)
		res.Meta = mcp.Meta{trace.TraceparentKey: tc.Traceparent()}
		if c.ResultMeta != nil {
			for k, v := range c.ResultMeta(cl.capabilities()) {
				res.Meta[k] = v
			}
		}
		return res, nil
	}
}

// Handle adapts a handler of typed arguments: Args are decoded into In. It
// is the last step of serve's per-call path before the tool's own code.
func Handle[In any](h func(ctx context.Context, c *Call, in In) outcome.Reply) Handler {
	return func(ctx context.Context, c *Call) outcome.Reply {
		var in In
		if err := json.Unmarshal(c.Args, &in); err != nil {
			return outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("the arguments could not be read: %v", err), "check the argument types against the tool's input schema")
		}
		return h(ctx, c, in)
	}
}

// filterList leaves out of tools/list every tool the calling client may not
// call, and gives the others their whole definitions and per-client _meta.
// The tool list is one page (far below the SDK's page size), so filtering
// the page filters the list.
//
// What a client sees depends only on its era and capabilities, which a
// client sends alike on every request, and on the page, so the tools array
// is encoded once for each (mcpseam.EncodedList) and, with pass set, handed
// to the transport past the SDK's encoder.
func filterList(mode config.Mode, byName map[string]*compiled, pass mcpseam.Passer) mcp.Middleware {
	var lists encodedLists
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			lr, ok := res.(*mcp.ListToolsResult)
			lreq, isList := req.(*mcp.ListToolsRequest)
			if !ok || !isList || err != nil {
				return res, err
			}
			cl := clientOf(lreq)
			key, err := listKey(cl, lr.Tools)
			if err != nil {
				return nil, err
			}
			tools := lists.get(key)
			if tools == nil {
				if tools, err = mcpseam.PlainJSON(filter(mode, byName, lr.Tools, cl)); err != nil {
					return nil, err
				}
				lists.put(key, tools)
			}
			lr.Tools = nil
			return &mcpseam.EncodedList{ListToolsResult: lr, Tools: tools, Pass: pass}, nil
		}
	}
}

// listKey is what the tool list a client sees depends on: its era, its
// capabilities, and the tools of the SDK's page.
func listKey(cl *client, page []*mcp.Tool) (string, error) {
	caps, err := mcpseam.PlainJSON(cl.capabilities())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if cl.modern {
		b.WriteString("modern ")
	} else {
		b.WriteString("legacy ")
	}
	b.Write(caps)
	for _, t := range page {
		b.WriteByte(' ')
		b.WriteString(t.Name)
	}
	return b.String(), nil
}

// maxEncodedLists bounds the encoded tool lists kept: one per set of
// capabilities seen, and a server has one client, which sends one set.
const maxEncodedLists = 32

// encodedLists keeps the encoded tools array of each list key.
type encodedLists struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (l *encodedLists) get(key string) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[key]
}

func (l *encodedLists) put(key string, tools []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string][]byte{}
	}
	if len(l.m) < maxEncodedLists {
		l.m[key] = tools
	}
}

// filter returns the tools of all that cl may call in mode, with their
// per-client _meta.
func filter(mode config.Mode, byName map[string]*compiled, all []*mcp.Tool, cl *client) []*mcp.Tool {
	tools := make([]*mcp.Tool, 0, len(all))
	for _, t := range all {
		c := byName[t.Name]
		if c == nil || c.refusal(mode, cl) != nil {
			continue
		}
		t = c.tool // the whole definition; the SDK holds its stand-in
		if c.ListMeta != nil {
			if m := c.ListMeta(cl.capabilities()); m != nil {
				cp := *t
				cp.Meta = m
				t = &cp
			}
		}
		tools = append(tools, t)
	}
	return slices.Clip(tools)
}

// logCall writes the one stderr line of a tool call: tool, bot, action, outcome,
// failure kind, duration and traceparent. Never arguments, results, trace
// state, baggage or credentials.
func logCall(log *slog.Logger, tool string, c *Call, diag outcome.Diagnostics, d time.Duration) {
	attrs := []any{slog.String("tool", tool)}
	if c.Bot != "" {
		attrs = append(attrs, slog.String("bot", c.Bot))
	}
	if c.Action != "" {
		attrs = append(attrs, slog.String("action", c.Action))
	}
	attrs = append(attrs, slog.String("outcome", string(diag.Outcome)))
	if diag.Kind != "" {
		attrs = append(attrs, slog.String("kind", string(diag.Kind)))
	}
	attrs = append(attrs, slog.Duration("duration", d), slog.String("traceparent", c.Trace.Traceparent()))
	log.Info("call", attrs...)
}
