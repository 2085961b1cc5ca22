package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/completion"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/trace"
	"github.com/snowluma/snowluma-mcp/prompts"
	"github.com/snowluma/snowluma-mcp/safety"
)

// ActionTemplate is the resource template of one action's contract.
const ActionTemplate = CatalogURI + "/{name}"

// actionPrefix is what every URI of ActionTemplate starts with.
const actionPrefix = CatalogURI + "/"

// promptsFeature serves the operator workflows as prompts (package
// prompts), the server's instructions, completion of prompt and template
// arguments (package completion), and one action's contract as the
// resource template ActionTemplate. The prompts and the completions are
// always there (diagnose and draft_message in every mode, action names from
// the catalog), so both capabilities are always advertised, without
// listChanged: the prompt list is fixed for a run.
func promptsFeature(d *deps) (feature, error) {
	env := promptEnv(d)
	listed := prompts.For(env)
	comp := sync.OnceValues(func() (*completion.Completer, error) {
		cat, err := d.catalog()
		if err != nil {
			return nil, err
		}
		opts := completion.Options{Catalog: cat, Groups: d.exec.safety.Groups, Users: d.exec.safety.Users}
		if d.exec.enabled() {
			opts.Fetcher = pipelineFetcher{x: d.exec}
		}
		return completion.New(opts), nil
	})
	return feature{
		instructions: prompts.Instructions(env),
		configure: func(o *mcp.ServerOptions) {
			o.Capabilities.Prompts = &mcp.PromptCapabilities{}
			o.Capabilities.Completions = &mcp.CompletionCapabilities{}
			o.CompletionHandler = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
				return complete(ctx, comp, listed, req.Params), nil
			}
			hints := o.SetCacheable
			o.SetCacheable = func(ctx context.Context, req mcp.Request, c *mcp.Cacheable) {
				if hints != nil {
					hints(ctx, req, c)
				}
				if _, ok := req.(*mcp.ListPromptsRequest); ok {
					// Like tools/list: fixed for a run, chosen by mode
					// and language.
					c.TTLMs, c.CacheScope = catalogTTL, "private"
				}
			}
		},
		attach: func(s *mcp.Server) error {
			for _, p := range listed {
				s.AddPrompt(promptDefinition(p, env), getPrompt(p, env))
			}
			s.AddResourceTemplate(&mcp.ResourceTemplate{
				URITemplate: ActionTemplate,
				Name:        "snowluma-action",
				Title:       "One SnowLuma OneBot action",
				Description: "One action's full contract by name or alias, as get_action returns it: attach one action instead of the whole catalog.",
				MIMEType:    "application/json",
			}, readAction(d.catalog))
			return nil
		},
	}, nil
}

// promptEnv is what the prompts depend on in this server.
func promptEnv(d *deps) prompts.Env {
	policy := d.exec.safety
	return prompts.Env{
		Live:     d.mode != config.ModeDocs,
		Write:    d.mode == config.ModeWrite,
		Events:   d.events != nil,
		Archive:  d.archive != nil,
		Confirm:  policy.Confirm != safety.ConfirmNone,
		Lang:     d.exec.lang,
		Groups:   policy.Groups,
		Users:    policy.Users,
		Location: d.exec.location,
	}
}

// promptDefinition is p as prompts/list shows it, in the people's language.
func promptDefinition(p *prompts.Prompt, env prompts.Env) *mcp.Prompt {
	def := &mcp.Prompt{Name: p.Name, Title: p.Title.In(env.Lang), Description: p.Description.In(env.Lang)}
	for _, a := range p.Args {
		def.Arguments = append(def.Arguments, &mcp.PromptArgument{
			Name: a.Name, Title: a.Title.In(env.Lang), Description: a.Description.In(env.Lang), Required: a.Required,
		})
	}
	return def
}

// getPrompt renders p. A refused argument is an invalid-params error that
// names the prompt, the argument and what a good value looks like.
func getPrompt(p *prompts.Prompt, env prompts.Env) mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		at := env
		at.Now = time.Now()
		m, err := p.Render(req.Params.Arguments, at)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return &mcp.GetPromptResult{
			Description: m.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: m.Text}}},
		}, nil
	}
}

// complete answers completion/complete. It never fails: a reference or an
// argument it does not complete, or a SnowLuma that cannot answer, gives
// no values, so the host's input box keeps working.
func complete(ctx context.Context, comp func() (*completion.Completer, error), listed []*prompts.Prompt, q *mcp.CompleteParams) *mcp.CompleteResult {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	c, err := comp()
	if err != nil || q.Ref == nil {
		return res
	}
	kind := completion.None
	switch q.Ref.Type {
	case "ref/prompt":
		for _, p := range listed {
			if p.Name != q.Ref.Name {
				continue
			}
			if a, ok := p.Arg(q.Argument.Name); ok {
				kind = a.Complete
			}
		}
	case "ref/resource":
		if q.Ref.URI == ActionTemplate && q.Argument.Name == "name" {
			kind = completion.Action
		}
	}
	var args map[string]string
	if q.Context != nil {
		args = q.Context.Arguments
	}
	r := c.Complete(ctx, kind, q.Argument.Value, args)
	if len(r.Values) > 0 {
		res.Completion = mcp.CompletionResultDetails{Values: r.Values, Total: r.Total, HasMore: r.HasMore}
	}
	return res
}

// readAction serves ActionTemplate: the entry get_action answers with, for
// a name or an alias.
func readAction(src catalogSource) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		cat, r, loaded := src.get()
		if !loaded {
			return nil, errors.New(r.Diag.Message)
		}
		raw, _ := strings.CutPrefix(uri, actionPrefix)
		name, err := url.PathUnescape(raw)
		if err != nil || name == "" || strings.Contains(name, "/") {
			return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: fmt.Sprintf("%s names no action: use %s with an action name or alias, such as %ssend_group_msg", uri, ActionTemplate, actionPrefix)}
		}
		a, ok := cat.Lookup(name)
		if !ok {
			msg := fmt.Sprintf("%s is not a catalog action or alias", catalog.Quote(name))
			if near := cat.Closest(name, 3); len(near) > 0 {
				msg += "; closest: " + strings.Join(near, ", ")
			}
			return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: msg + "; search_actions finds actions by words"}
		}
		js, err := a.JSON()
		if err != nil {
			return nil, fmt.Errorf("%s: encoding its entry: %w", a.Name, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(js)}}}, nil
	}
}

// pipelineFetcher reads completion's lists from SnowLuma through the
// execution pipeline, as query_action would run them: the same fence,
// params check and allowlist, and a trace context of its own on the
// request. tool names the reader in the pipeline's log ("" for
// completion).
type pipelineFetcher struct {
	x    *executor
	tool string
}

func (f pipelineFetcher) Fetch(ctx context.Context, action string, params json.RawMessage) (json.RawMessage, error) {
	cat, r, loaded := f.x.catalog.get()
	if !loaded {
		return nil, errors.New(r.Diag.Message)
	}
	a, ok := cat.Lookup(action)
	if !ok || !a.ReadOnly {
		return nil, fmt.Errorf("%s is not a read-only catalog action", action)
	}
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	tc, _ := trace.Start(nil)
	r = f.x.Read(ctx, &pipeline.Call{Tool: f.tool, Trace: tc}, a.Name, params)
	if r.Diag.Outcome != outcome.OutcomeSuccess {
		return nil, &fetchError{action, r.Diag}
	}
	env, _ := r.Result.(json.RawMessage)
	var e struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(env, &e); err != nil {
		return nil, fmt.Errorf("%s: reading the envelope: %w", action, err)
	}
	return e.Data, nil
}
