package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/trace"
)

// A call is what a tool handler learns about one invocation beyond its
// arguments: the request, and the call's trace context, which travels to
// SnowLuma in HTTP headers. Handlers record the action they drove, for the
// log line.
type call struct {
	req    *mcp.CallToolRequest
	trace  trace.Context
	action string
}

// handlerFunc is the shape of every tool implementation: typed, already
// validated arguments in, a reply out. Failures are replies (fail), never Go
// errors, so the model can read and correct them.
type handlerFunc[In any] func(ctx context.Context, c *call, in In) reply

// addTool registers t on s. The tool's closed input schema is compiled on
// first use and checked before the arguments are decoded into In; a
// violation is a tool error naming the argument. Every call gets a W3C trace
// context (the caller's trace continued, or a new one) returned in the
// result's _meta, and is logged as one stderr line without payloads.
func addTool[In any](s *mcp.Server, log *slog.Logger, t *mcp.Tool, h handlerFunc[In]) {
	compile := sync.OnceValues(func() (*catalog.ObjectSchema, error) {
		return catalog.CompileObject(t.InputSchema.(json.RawMessage))
	})
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		tc, problem := trace.Start(req.Params.Meta)
		if problem != "" {
			log.Warn("trace", slog.String("tool", t.Name), slog.String("problem", string(problem)))
		}
		c := &call{req: req, trace: tc}
		r := func() reply {
			schema, err := compile()
			if err != nil {
				return fail(KindInternal, fmt.Sprintf("the %s input schema does not compile", t.Name), "report this to the snowluma-mcp maintainers")
			}
			args := req.Params.Arguments
			if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
				args = json.RawMessage("{}")
			}
			if errs := schema.Check(args); errs != nil {
				return invalidArguments(t.Name, errs)
			}
			var in In
			if err := json.Unmarshal(args, &in); err != nil {
				return fail(KindInvalidArguments, fmt.Sprintf("the %s arguments could not be read: %v", t.Name, err), "check the argument types against the tool's input schema")
			}
			return h(ctx, c, in)
		}()
		logCall(log, t.Name, c, r.diag, time.Since(start))
		res := r.toolResult()
		res.Meta = mcp.Meta{trace.TraceparentKey: tc.Traceparent()}
		return res, nil
	})
}

// invalidArguments reports the argument-schema failures of one call.
func invalidArguments(tool string, errs []catalog.FieldError) reply {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = "argument " + e.String()
	}
	return fail(KindInvalidArguments,
		fmt.Sprintf("%s: %s", tool, strings.Join(parts, "; ")),
		"fix the named arguments to match the tool's input schema and call again")
}

// logCall writes the one stderr line of a tool call: tool, action, outcome,
// failure kind, duration and traceparent. Never arguments, results, trace
// state, baggage or credentials.
func logCall(log *slog.Logger, tool string, c *call, diag Diagnostics, d time.Duration) {
	attrs := []any{slog.String("tool", tool)}
	if c.action != "" {
		attrs = append(attrs, slog.String("action", c.action))
	}
	attrs = append(attrs, slog.String("outcome", string(diag.Outcome)))
	if diag.Kind != "" {
		attrs = append(attrs, slog.String("kind", string(diag.Kind)))
	}
	attrs = append(attrs, slog.Duration("duration", d), slog.String("traceparent", c.trace.Traceparent()))
	log.Info("call", attrs...)
}
