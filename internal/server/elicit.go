package server

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// query_action_with_input and invoke_action_with_input take the same
// arguments and gates as their plain twins. When a field of the action's
// top-level required list is absent they ask the user for it through a form
// and run the action only with a valid answer: the pipeline's params round
// (internal/pipeline/input.go). The continuation travels in requestState,
// sealed (see internal/seal): bound to the tool and the arguments,
// single-use, ten minutes long, at most 256 pending, void after a restart.

// inputFeature serves the *_with_input tools, and bounds a legacy client's
// wait for a form by the continuation's lifetime (see boundFormWait).
func inputFeature(d *deps) (feature, error) {
	ttl := cmp.Or(d.opts.ContinuationTTL, seal.DefaultTTL)
	return feature{
		tools: inputTools(d.exec),
		attach: func(s *mcp.Server) error {
			s.AddSendingMiddleware(boundFormWait(ttl))
			return nil
		},
	}, nil
}

// inputTools declares query_action_with_input and
// invoke_action_with_input.
func inputTools(x *executor) []toolkit.Spec {
	specs := make([]toolkit.Spec, 0, 2)
	for _, write := range []bool{false, true} {
		spec := toolkit.Spec{
			Name:      toolName(write) + "_with_input",
			Input:     twinInput,
			Output:    envelopeResult,
			OpenWorld: true,
			// Without forms it could only refuse, so such a client neither
			// sees it nor may call it: the plain twin is its tool.
			NeedsForms:   true,
			WithoutForms: toolName(write),
			Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) outcome.Reply {
				return x.runWithInput(ctx, c, in, write)
			}),
		}
		if write {
			spec.Title = "Invoke an action, asking for params"
			spec.Description = "invoke_action, asking the user by a form for missing required params."
			spec.Needs, spec.Writes, spec.Destructive = config.ModeWrite, true, true
		} else {
			spec.Title = "Query SnowLuma, asking for params"
			spec.Description = "query_action, asking the user by a form for missing required params."
			spec.Needs = config.ModeRead
		}
		specs = append(specs, spec)
	}
	return specs
}

// runWithInput is the path of one *_with_input call: the read/write gate,
// then the pipeline's params round (pipeline.Executor.RunWithInput): the
// first round asks for what is missing, the second (with requestState)
// checks the answer and runs the action.
func (x *executor) runWithInput(ctx context.Context, c *toolkit.Call, in actionArgs, write bool) outcome.Reply {
	a, r, allowed := x.admit(c, toolName(write)+"_with_input", in.Action, write)
	if !allowed {
		return r
	}
	q := c.Req.Params
	r = x.RunWithInput(ctx, x.callOf(c), pipeline.Plan{Action: a, Params: in.Params,
		Answers: q.RequestState != "" || len(q.InputResponses) > 0})
	if !write && historyActions[a.Name] {
		r = historyLines(r, in.Params, x.location, x.archive)
	}
	return r
}

// unansweredKey marks, in the _meta of the answer handed back to the tool,
// a form a legacy client did not answer: its value (pipeline.Expired or
// pipeline.Cancelled) says why. It is set only by boundFormWait, inside
// this process, and never travels on the wire; mcpClient.Answer reads it.
const unansweredKey = "snowluma-mcp/unanswered"

// errUnanswered is the cause of a form wait that ran out.
var errUnanswered = errors.New("the form was not answered in time")

// boundFormWait is a sending middleware that bounds the wait for a legacy
// client's answer to elicitation/create, which the SDK sends on the tool's
// behalf when a handler asks for input, by the continuation's lifetime.
// When the wait runs out, or the client cancels the call meanwhile, the SDK
// withdraws the request (notifications/cancelled) and the tool is handed
// an unanswered form, which it reports (and logs) as an expired
// continuation or a cancelled call; nothing is run. A 2026-07-28 client
// holds the continuation itself and is unaffected.
func boundFormWait(ttl time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "elicitation/create" {
				return next(ctx, method, req)
			}
			wait, cancel := context.WithTimeoutCause(ctx, ttl, errUnanswered)
			defer cancel()
			res, err := next(wait, method, req)
			switch {
			case err == nil:
				return res, nil
			case ctx.Err() != nil:
				return &mcp.ElicitResult{Action: "cancel", Meta: mcp.Meta{unansweredKey: pipeline.Cancelled}}, nil
			case errors.Is(context.Cause(wait), errUnanswered):
				return &mcp.ElicitResult{Action: "cancel", Meta: mcp.Meta{unansweredKey: pipeline.Expired}}, nil
			}
			return res, err
		}
	}
}
