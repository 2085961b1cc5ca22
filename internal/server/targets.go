package server

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/completion"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

const (
	findTargetsInput = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 256, "description": "A name as said: 工作群, 张三."},
    "group_id": {"type": "integer", "minimum": 1, "description": "Only this group's members."}
  },
  "required": ["query"],
  "additionalProperties": false
}`
	// findTargetsOutput names what every answer holds; docs/tools.md
	// describes the candidates.
	findTargetsOutput = `{"type": "object", "required": ["count", "total", "targets", "candidates", "trust"]}`
)

type findTargetsArgs struct {
	Query   string `json:"query"`
	GroupID int64  `json:"group_id"`
}

// targetsAnswer is find_targets' result.
type targetsAnswer struct {
	Count int `json:"count"`
	Total int `json:"total"`
	// Targets counts the distinct groups and people; above 1 the name is
	// ambiguous.
	Targets       int                    `json:"targets"`
	Candidates    []completion.Candidate `json:"candidates"`
	SkippedGroups int                    `json:"skipped_groups,omitempty"`
	// Trust marks the names as QQ users' text.
	Trust string `json:"trust"`
}

// targetsFeature serves find_targets: a group or person named as an
// operator says it, resolved to ids by completion's matcher over the lists
// completion reads (completion.Completer.FindTargets), each read with
// pipeline.Executor.Read (the fence, the params check, the allowlists) and
// cached for completion.CacheTTL in a completer of its own. It never picks
// among candidates.
func targetsFeature(d *deps) (feature, error) {
	comp := sync.OnceValues(func() (*completion.Completer, error) {
		cat, err := d.catalog()
		if err != nil {
			return nil, err
		}
		return completion.New(completion.Options{Catalog: cat, Fetcher: pipelineFetcher{x: d.exec, tool: "find_targets"},
			Groups: d.exec.safety.Groups, Users: d.exec.safety.Users}), nil
	})
	return feature{tools: []toolkit.Spec{{
		Name:        "find_targets",
		Title:       "Find targets by name",
		Description: "Names to ids: groups; members by card or nickname; friends by remark or nickname. targets > 1: ambiguous, ask.",
		Input:       findTargetsInput,
		Output:      findTargetsOutput,
		Needs:       config.ModeRead,
		Idempotent:  true,
		OpenWorld:   true,
		Handler: toolkit.Handle(func(ctx context.Context, call *toolkit.Call, in findTargetsArgs) outcome.Reply {
			c, err := comp()
			if err != nil {
				return outcome.Fail(outcome.KindInternal, "the bundled catalog could not be loaded: "+err.Error(), "report this to the snowluma-mcp maintainers")
			}
			found, err := c.FindTargets(ctx, in.Query, in.GroupID)
			switch {
			case errors.Is(err, completion.ErrGroupNotAllowed):
				return outcome.Fail(outcome.KindTargetNotAllowed, fmt.Sprintf("find_targets: group %d is not in SNOWLUMA_MCP_ALLOWED_GROUPS", in.GroupID),
					"search without group_id, or ask the operator to allow the group")
			case err != nil:
				kind, next := outcome.KindTransport, "check the connection with get_runtime_info {check_connection: true}, then retry"
				var fe *fetchError
				if errors.As(err, &fe) {
					kind, next = fe.diag.Kind, fe.diag.NextStep
				} else if ctx.Err() != nil {
					kind, next = outcome.KindCancelled, "retry if still wanted"
				}
				return outcome.Fail(kind, "find_targets: "+err.Error(), next)
			}
			noteNames(d, call, found.Candidates)
			r := outcome.OK(targetsAnswer{Count: len(found.Candidates), Total: found.Total, Targets: found.Targets,
				Candidates: found.Candidates, SkippedGroups: found.SkippedGroups, Trust: channel.TrustUntrusted})
			switch {
			case found.Targets == 0:
				r.Diag.Message = "no group or person matches " + catalog.Quote(in.Query)
				r.Diag.NextStep = "try part of the name, or list them with query_action get_group_list, get_friend_list or get_group_member_list"
			case found.Targets > 1:
				r.Diag.Message = fmt.Sprintf("ambiguous: %d groups or people match", found.Targets)
				r.Diag.NextStep = "ask the operator which one is meant; never pick one yourself"
			}
			return r
		}),
	}}}, nil
}

// noteNames records that the candidates' names, which other people chose
// (a group's name, a member's card, a friend's nickname), were handed to
// the model: each arms the send gate with its chat (a member's group), as
// the list reads they come from do; and it neutralizes them as every
// other QQ text is.
func noteNames(d *deps, call *toolkit.Call, cands []completion.Candidate) {
	var chats []untrusted.Chat
	for i := range cands {
		c := &cands[i]
		c.Name = untrusted.Neutralize(c.Name)
		switch {
		case c.GroupID > 0:
			chats = append(chats, untrusted.GroupChat(c.GroupID))
		case c.Kind == completion.KindGroup:
			chats = append(chats, untrusted.GroupChat(c.ID))
		default:
			chats = append(chats, untrusted.PrivateChat(c.ID))
		}
	}
	if call != nil && call.Req != nil && call.Req.Session != nil && d.backend.Provenance != nil {
		d.backend.Provenance.Note(call.Req.Session, chats...)
	}
}

// fetchError is a list read that the pipeline refused or SnowLuma failed,
// with the pipeline's diagnostics, so that find_targets reports its kind.
type fetchError struct {
	action string
	diag   outcome.Diagnostics
}

func (e *fetchError) Error() string {
	return e.action + ": " + string(e.diag.Kind) + ": " + e.diag.Message
}
