package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// The execution tools drive a live SnowLuma: query_action and
// invoke_action. A call takes one path: the toolkit's mode gate, call
// (catalog lookup, read/write gate, the plan), then the pipeline
// (pipeline.go).

// MaxCollectedStream caps the frames a generic stream call collects into its
// result. Past it the call stops reading and fails with kind too_large.
const MaxCollectedStream = 8 << 20

type actionArgs struct {
	Action string          `json:"action"`
	Params json.RawMessage `json:"params"`
	// Execution is invoke_action's only (see streams.go).
	Execution *executionArgs `json:"execution"`
}

// actionProp and paramsHelp are the parts of the execution tools' input
// schemas that invoke_action's wider one (streams.go) repeats.
const (
	actionProp = `"action": {"type": "string", "minLength": 1, "description": "Action name or alias, e.g. get_status."}`
	paramsHelp = `The action's params, per get_action's inputSchema; ids are sent as given.`
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
		Description: "Run a read-only catalog action on SnowLuma and return its envelope. Refuses write actions (use invoke_action). retcode ≠ 0 is data with outcome failed.",
		Input:       actionInput,
		Output:      envelopeResult,
		Needs:       toolkit.ModeRead,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) toolkit.Reply {
			return x.call(ctx, c, in, false, false)
		}),
	}, {
		Name:        "invoke_action",
		Title:       "Invoke an action",
		Description: "Run any catalog action: it can send messages, change groups and friends. Downloads go to disk. After a timeout a write may have happened: check first. The safety policy may refuse or ask a person.",
		Input:       invokeInput,
		Output:      invokeResult,
		Needs:       toolkit.ModeWrite,
		Writes:      true,
		Destructive: true,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, c *toolkit.Call, in actionArgs) toolkit.Reply {
			return x.call(ctx, c, in, true, false)
		}),
	}}
}

// call is the entry of query_action (write false), invoke_action (write
// true) and, with background, invoke_action_background: it reads the call
// into a plan and runs it. A call that answers a confirmation round
// carries the person's answer, which must open for this very call.
func (x *executor) call(ctx context.Context, c *toolkit.Call, in actionArgs, write, background bool) toolkit.Reply {
	tool := toolName(write)
	if background {
		tool = backgroundTool
	}
	a, r, allowed := x.admit(c, tool, in.Action, write)
	if !allowed {
		return r
	}
	if background && !a.Stream {
		return toolkit.Fail(toolkit.KindInvalidArguments,
			fmt.Sprintf("%s is not a stream action; %s runs stream actions only", a.Name, backgroundTool),
			"call invoke_action for ordinary actions")
	}
	q := c.Req.Params
	p := plan{action: a, params: in.Params, execution: in.Execution, background: background,
		answers: q.RequestState != "" || len(q.InputResponses) > 0}
	if len(p.params) == 0 || bytes.Equal(p.params, []byte("null")) {
		p.params = json.RawMessage("{}")
	}
	return x.run(ctx, c, p)
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
func (x *executor) admit(c *toolkit.Call, tool, name string, write bool) (*catalog.Action, toolkit.Reply, bool) {
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
		if x.mode == ModeWrite {
			next = "call " + writer + " with the same arguments"
		}
		return nil, toolkit.Fail(toolkit.KindWriteAction, fmt.Sprintf("%s is a write action; %s only runs read-only actions", a.Name, tool), next), false
	}
	return a, toolkit.Reply{}, true
}
