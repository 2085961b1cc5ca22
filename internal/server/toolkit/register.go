package toolkit

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
func Register(s *mcp.Server, mode Mode, log *slog.Logger, specs ...Spec) error {
	byName := make(map[string]*compiled, len(specs))
	for i := range specs {
		c, err := specs[i].compile()
		if err != nil {
			return fmt.Errorf("toolkit: %w", err)
		}
		if byName[c.Name] != nil {
			return fmt.Errorf("toolkit: tool %s declared twice", c.Name)
		}
		byName[c.Name] = c
	}
	var handoffs sync.Map // placeholder *mcp.CallToolResult → the mcp.Result to send
	for _, c := range byName {
		s.AddTool(c.tool, serve(c, mode, log, &handoffs))
	}
	// handOff is innermost, so that it sees the placeholder itself.
	s.AddReceivingMiddleware(filterList(mode, byName), plainResults, handOff(&handoffs))
	return nil
}

// client is what the gate knows of the caller.
type client struct {
	caps   *mcp.ClientCapabilities
	modern bool
}

func clientOf(r interface {
	ClientCapabilities() *mcp.ClientCapabilities
	ProtocolVersion() string
}) client {
	return client{caps: r.ClientCapabilities(), modern: r.ProtocolVersion() >= ModernRevision}
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
func (c *compiled) refusal(mode Mode, cl client) *Refusal {
	if !mode.Allows(c.Needs) {
		return &Refusal{KindModeGate, fmt.Sprintf("%s needs %s mode; this server runs in %s mode", c.Name, c.Needs, mode),
			"set SNOWLUMA_MCP_ENDPOINT and SNOWLUMA_MCP_MODE=" + string(c.Needs) + " in the server's environment and restart it"}
	}
	if c.Unavailable != nil {
		return c.Unavailable
	}
	if c.ModernOnly && !cl.modern {
		return &Refusal{KindCapability, c.Name + " is served to 2026-07-28 clients only; this client uses the legacy initialize handshake",
			"use the synchronous tools, or a client of protocol revision 2026-07-28"}
	}
	if c.NeedsExtension != "" && !HasExtension(cl.caps, c.NeedsExtension) {
		return &Refusal{KindCapability, fmt.Sprintf("%s needs a client that advertises the %s extension", c.Name, c.NeedsExtension),
			"use the synchronous tools, or a client that supports " + c.NeedsExtension}
	}
	if c.NeedsForms && !SupportsForms(cl.caps) {
		return &Refusal{KindCapability, c.Name + " needs a client that advertises form elicitation", "use a client that can show forms"}
	}
	return nil
}

// serve is the path of every call: trace context, gate, argument check,
// handler, log line, rendering.
func serve(c *compiled, mode Mode, log *slog.Logger, handoffs *sync.Map) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		tc, problem := trace.Start(req.Params.Meta)
		if problem != "" {
			log.Warn("trace", slog.String("tool", c.Name), slog.String("problem", string(problem)))
		}
		call := &Call{Req: req, Trace: tc}
		r := func() Reply {
			if ref := c.refusal(mode, clientOf(req)); ref != nil {
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
				return Fail(KindInvalidArguments, c.Name+": "+strings.Join(parts, "; "),
					"fix the named arguments to match the tool's input schema and call again")
			}
			call.Args = args
			return c.Handler(ctx, call)
		}()
		logCall(log, c.Name, call, r.Diag, time.Since(start))
		if r.handoff != nil {
			r.handoff.SetMeta(mcp.Meta{trace.TraceparentKey: tc.Traceparent()})
			// Content is set so that the SDK passes this very value on.
			placeholder := &mcp.CallToolResult{Content: []mcp.Content{}}
			handoffs.Store(placeholder, r.handoff)
			return placeholder, nil
		}
		res := r.toolResult()
		res.Meta = mcp.Meta{trace.TraceparentKey: tc.Traceparent()}
		return res, nil
	}
}

// filterList leaves out of tools/list every tool the calling client may not
// call, and gives the others their per-client _meta. The tool list is one
// page (far below the SDK's page size), so filtering the page filters the
// list.
func filterList(mode Mode, byName map[string]*compiled) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			lr, ok := res.(*mcp.ListToolsResult)
			lreq, isList := req.(*mcp.ListToolsRequest)
			if !ok || !isList || err != nil {
				return res, err
			}
			cl := clientOf(lreq)
			tools := make([]*mcp.Tool, 0, len(lr.Tools))
			for _, t := range lr.Tools {
				c := byName[t.Name]
				if c == nil || c.refusal(mode, cl) != nil {
					continue
				}
				if c.ListMeta != nil {
					if m := c.ListMeta(cl.caps); m != nil {
						cp := *t
						cp.Meta = m
						t = &cp
					}
				}
				tools = append(tools, t)
			}
			lr.Tools = slices.Clip(tools)
			return lr, nil
		}
	}
}

// handOff replaces the placeholder result of a call whose handler answered
// with Handoff by the result it handed over. The placeholder never reaches
// the wire.
func handOff(handoffs *sync.Map) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if ctr, ok := res.(*mcp.CallToolResult); ok && err == nil {
				if h, found := handoffs.LoadAndDelete(ctr); found {
					return h.(mcp.Result), nil
				}
			}
			return res, err
		}
	}
}

// logCall writes the one stderr line of a tool call: tool, action, outcome,
// failure kind, duration and traceparent. Never arguments, results, trace
// state, baggage or credentials.
func logCall(log *slog.Logger, tool string, c *Call, diag Diagnostics, d time.Duration) {
	attrs := []any{slog.String("tool", tool)}
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
