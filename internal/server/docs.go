package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

// The docs tools describe the bundled catalog. They are listed in every mode
// and contact nothing.

// filterArgs are the catalog filters shared by list_actions and
// search_actions.
type filterArgs struct {
	Category string `json:"category"`
	ReadOnly *bool  `json:"read_only"`
	Stream   *bool  `json:"stream"`
	Limit    *int   `json:"limit"`
	Offset   *int   `json:"offset"`
}

type listArgs struct {
	filterArgs
}

type searchArgs struct {
	Query string `json:"query"`
	Match string `json:"match"`
	filterArgs
}

type getArgs struct {
	Name string `json:"name"`
}

const filterProps = `
    "category": {"type": "string", "minLength": 1, "description": "list_categories name or label."},
    "read_only": {"type": "boolean"},
    "stream": {"type": "boolean"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 200},
    "offset": {"type": "integer", "minimum": 0}`

const (
	listActionsInput = `{
  "type": "object",
  "properties": {` + filterProps + `
  },
  "additionalProperties": false
}`
	searchActionsInput = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "description": "Words, spaced or not: 踢人, 群 禁言."},
    "match": {"type": "string", "enum": ["substring", "keywords"], "default": "substring", "description": "keywords: all words first, then some."},` + filterProps + `
  },
  "required": ["query"],
  "additionalProperties": false
}`
	getActionInput = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1, "description": "Action name or alias."}
  },
  "required": ["name"],
  "additionalProperties": false
}`
	noInput = `{"type": "object", "properties": {}, "additionalProperties": false}`
)

// The result schemas are lean: they name what every answer holds and
// leave the detail to the tool descriptions and docs/, since a client
// loads them into every session.
const (
	// pageSchema is list_actions' and search_actions' answer: light
	// entries (catalog.Action.BriefJSON) whose fields are omitted at their
	// default; total and next_offset (null on the last page) come with
	// paging only.
	pageSchema = `{"type": "object", "properties": {"count": {"type": "integer"}, "actions": {"type": "array", "items": {"type": "object", "required": ["name", "summary"]}}}, "required": ["count", "actions"]}`
	// actionSchema is get_action's answer, an action's whole entry.
	actionSchema = `{"type": "object", "required": ["name", "category", "categoryLabel", "summary", "summaryZh", "aliases", "readOnly", "stream", "params", "constraints", "returns", "returnsSchema", "examples", "inputSchema"]}`
	// categoriesSchema is list_categories' answer.
	categoriesSchema = `{"type": "array", "items": {"type": "object", "required": ["category", "label", "count"]}}`
)

// docsTools declares the docs tools: every mode, read-only, and contacting
// nothing.
func docsTools(src catalogSource) []toolkit.Spec {
	return []toolkit.Spec{{
		Name:        "list_actions",
		Title:       "List actions",
		Description: "Browse the catalog: names, summaries, flags. get_action has the contract.",
		Input:       listActionsInput,
		Output:      pageSchema,
		Needs:       config.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in listArgs) outcome.Reply {
			return matching(src, in.filterArgs, (*catalog.Catalog).List)
		}),
	}, {
		Name:        "search_actions",
		Title:       "Search actions",
		Description: "Find actions for a task by English or Chinese words, best first.",
		Input:       searchActionsInput,
		Output:      pageSchema,
		Needs:       config.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in searchArgs) outcome.Reply {
			if strings.TrimSpace(in.Query) == "" {
				return outcome.Fail(outcome.KindInvalidArguments, "search_actions: argument /query is blank", "pass a name, word or phrase to look for")
			}
			var m catalog.Matches
			r := matching(src, in.filterArgs, func(cat *catalog.Catalog, f catalog.Filter) []*catalog.Action {
				m = cat.Match(in.Query, f, in.Match == "keywords")
				return m.Actions
			})
			switch {
			case r.IsError:
			case len(m.Actions) == 0 && !m.Weak:
				r.Diag.Message, r.Diag.NextStep = nothingFound(in)
			case m.Weak:
				r.Diag.Match = "weak"
				r.Diag.Message = "weak match: the query's distinctive words matched no action, so the first entry is a guess, not an answer"
				if len(m.Actions) == 0 {
					r.Diag.Message = "weak match: only actions that change something matched, and too loosely to offer"
				}
				r.Diag.NextStep = fmt.Sprintf("rephrase with the task's words, or browse list_actions {category: %q}", m.Category)
			}
			return r
		}),
	}, {
		Name:        "get_action",
		Title:       "Describe an action",
		Description: "An action's contract (params, constraints, returns, examples): read it before calling.",
		Input:       getActionInput,
		Output:      actionSchema,
		Needs:       config.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in getArgs) outcome.Reply {
			cat, r, loaded := src.get()
			if !loaded {
				return r
			}
			a, found := cat.Lookup(in.Name)
			if !found {
				return unknownAction(cat, in.Name)
			}
			return encoded(a.JSON())
		}),
	}, {
		Name:        "list_categories",
		Title:       "List action categories",
		Description: "Catalog categories with action counts.",
		Input:       noInput,
		Output:      categoriesSchema,
		Needs:       config.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(context.Context, *toolkit.Call, struct{}) outcome.Reply {
			cat, r, loaded := src.get()
			if !loaded {
				return r
			}
			return encoded(cat.CategoriesJSON())
		}),
	}}
}

// nothingFound says why a search found nothing and what to try instead.
func nothingFound(in searchArgs) (message, next string) {
	filtered := in.Category != "" || in.ReadOnly != nil || in.Stream != nil
	next = "use other or more general words, or list_actions to browse"
	if filtered {
		next = "drop the category, read_only and stream filters, or " + next
	}
	return fmt.Sprintf("no action matches any word of %s", catalog.Quote(in.Query)), next
}

// unknownAction refuses a name that is neither an action nor an alias and
// suggests up to three close names: what search_actions finds for it, then
// names spelt alike.
func unknownAction(cat *catalog.Catalog, name string) outcome.Reply {
	next := "use search_actions or list_actions to find the action's name"
	if s := cat.Closest(name, 3); len(s) > 0 {
		next = "did you mean " + strings.Join(s, ", ") + "? Otherwise " + next
	}
	return outcome.Fail(outcome.KindUnknownAction, fmt.Sprintf("no action or alias named %s in the SnowLuma %s catalog", catalog.Quote(name), cat.Version()), next)
}

// matching answers list_actions and search_actions: it resolves the
// filters, finds the matches and pages them.
func matching(src catalogSource, in filterArgs, find func(*catalog.Catalog, catalog.Filter) []*catalog.Action) outcome.Reply {
	cat, r, loaded := src.get()
	if !loaded {
		return r
	}
	f, r, bad := resolveFilter(cat, in)
	if bad {
		return r
	}
	page, err := paginate(find(cat, f), in)
	if err != nil {
		return encoded(nil, err)
	}
	return outcome.OK(page)
}

// encoded answers with the catalog's precomputed JSON.
func encoded(js []byte, err error) outcome.Reply {
	if err != nil {
		return outcome.Fail(outcome.KindInternal, "the bundled catalog could not be encoded: "+err.Error(), "report this to the snowluma-mcp maintainers")
	}
	return outcome.OK(toolkit.Encoded(js))
}

// resolveFilter turns filter arguments into a catalog.Filter. An unknown
// category is refused with the list of valid ones.
func resolveFilter(cat *catalog.Catalog, in filterArgs) (catalog.Filter, outcome.Reply, bool) {
	f := catalog.Filter{ReadOnly: in.ReadOnly, Stream: in.Stream}
	if in.Category != "" {
		c, found := cat.Category(in.Category)
		if !found {
			var names []string
			for _, c := range cat.Categories() {
				names = append(names, c.Name+" ("+c.Label+")")
			}
			return f, outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("argument /category: no category %q", in.Category),
				"use one of: "+strings.Join(names, ", ")), true
		}
		f.Category = c.Name
	}
	return f, outcome.Reply{}, false
}

// paginate makes a match list the answer of list_actions and
// search_actions, appended straight into the result from each action's
// precomputed brief. Without limit or offset it is {count, actions}; with
// either, count is the page size and total and next_offset (null on the
// last page) say what is left.
func paginate(found []*catalog.Action, in filterArgs) (toolkit.Appended, error) {
	start, end, paged := 0, len(found), in.Limit != nil || in.Offset != nil
	if paged {
		start = min(end, deref(in.Offset, 0))
		if in.Limit != nil {
			end = min(end, start+*in.Limit)
		}
	}
	page := found[start:end]
	briefs := make([][]byte, len(page))
	size := 64
	for i, a := range page {
		brief, err := a.BriefJSON()
		if err != nil {
			return toolkit.Appended{}, err
		}
		briefs[i] = brief
		size += len(brief) + 1
	}
	return toolkit.Appended{Size: size, Append: func(b []byte) []byte {
		b = append(b, `{"count":`...)
		b = strconv.AppendInt(b, int64(len(page)), 10)
		if paged {
			b = append(b, `,"total":`...)
			b = strconv.AppendInt(b, int64(len(found)), 10)
			b = append(b, `,"next_offset":`...)
			if end < len(found) {
				b = strconv.AppendInt(b, int64(end), 10)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, `,"actions":[`...)
		for i, brief := range briefs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, brief...)
		}
		return append(b, "]}"...)
	}}, nil
}

func deref(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// docsFeature is the catalog's face: the docs tools, and the catalog and
// failure-kinds resources. (The server's instructions, which route between
// all the tools, are prompts.go's.)
func docsFeature(d *deps) (feature, error) {
	return feature{
		tools: docsTools(d.catalog),
		attach: func(s *mcp.Server) error {
			addCatalogResource(s, d.dispatch, d.catalog, d.opts.Speed.PassEncoded)
			return addKindsResource(s)
		},
	}, nil
}
