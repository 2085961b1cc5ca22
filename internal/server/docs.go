package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/snowluma/snowluma-mcp/catalog"
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
    "category": {"type": "string", "minLength": 1, "description": "Only actions of this category: its canonical name (e.g. 群管理) or English label (e.g. Group administration); see list_categories."},
    "read_only": {"type": "boolean", "description": "true: only read-only actions (callable through query_action); false: only write actions."},
    "stream": {"type": "boolean", "description": "true: only stream actions; false: only ordinary actions."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Page size, 1 to 200. With limit or offset the answer adds total and next_offset."},
    "offset": {"type": "integer", "minimum": 0, "description": "How many matching actions to skip (0 or more); pass the previous page's next_offset."}`

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
    "query": {"type": "string", "minLength": 1, "description": "What to look for, in English or Chinese. Default mode: a case-insensitive substring of the name, an alias, or the English or Chinese summary (禁言 finds set_group_ban). Keyword mode: space-separated terms, all of which must match; common Chinese and English synonyms count (群 禁言 finds set_group_ban)."},
    "match": {"type": "string", "enum": ["substring", "keywords"], "default": "substring", "description": "substring (default; catalog order) or keywords (AND of terms with synonyms, best match first: exact name or alias, then more terms in the name, then in the summaries, then OneBot v11 standard actions). Either way actions marked supported: false (stubs and no-ops) come last."},` + filterProps + `
  },
  "required": ["query"],
  "additionalProperties": false
}`
	getActionInput = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 1, "description": "Action name or alias, e.g. send_group_msg or get_ptt_text."}
  },
  "required": ["name"],
  "additionalProperties": false
}`
	noInput = `{"type": "object", "properties": {}, "additionalProperties": false}`
)

// briefProps and briefRequired describe a catalog.Brief, on its own and as
// the first part of a catalog.Action.
const (
	briefProps = `
    "name": {"type": "string"},
    "category": {"type": "string", "description": "SnowLuma's canonical (Chinese) category name."},
    "categoryLabel": {"type": "string", "description": "The category's English label."},
    "summary": {"type": "string"},
    "aliases": {"type": "array", "items": {"type": "string"}},
    "readOnly": {"type": "boolean"},
    "stream": {"type": "boolean"},
    "supported": {"const": false, "description": "Present only on stubs, no-ops and actions SnowLuma 1.11.1 does not implement: they answer without doing what the name says, or always fail."},
    "sensitive": {"type": "boolean", "description": "Present and true when the answer is a credential or key of the account; see SNOWLUMA_MCP_SENSITIVE."},
    "destructive": {"type": "boolean", "description": "Present and true for an irreversible effect on people or the account; see SNOWLUMA_MCP_CONFIRM."},
    "send": {"type": "boolean", "description": "Present and true when the action posts something others see; sends are paced."}`
	briefRequired = `"name", "category", "categoryLabel", "summary", "aliases", "readOnly", "stream"`
	briefSchema   = `{"type": "object", "properties": {` + briefProps + `}, "required": [` + briefRequired + `]}`
)

// pageSchema is list_actions' and search_actions' answer: light entries
// (catalog.Action.BriefJSON) whose fields are omitted at their default;
// total and next_offset (null on the last page) come with paging only.
const pageSchema = `{"type": "object", "properties": {"count": {"type": "integer"}, "actions": {"type": "array", "items": {"type": "object", "required": ["name", "summary"]}}}, "required": ["count", "actions"]}`

const actionSchema = `{
  "type": "object",
  "properties": {` + briefProps + `,
    "summaryZh": {"type": "string", "description": "The summary in Simplified Chinese."},
    "params": {"type": "array", "items": {"type": "object"}},
    "constraints": {"type": "array", "items": {"type": "string"}},
    "returns": {"type": "string"},
    "returnsSchema": {"type": ["object", "boolean"]},
    "examples": {"type": "array", "items": {"type": "object"}},
    "inputSchema": {"type": "object"}
  },
  "required": [` + briefRequired + `, "summaryZh", "params", "constraints", "returns", "returnsSchema", "examples", "inputSchema"]
}`

const categoriesSchema = `{
  "type": "array",
  "items": {
    "type": "object",
    "properties": {
      "category": {"type": "string", "description": "SnowLuma's canonical name."},
      "label": {"type": "string", "description": "English label."},
      "count": {"type": "integer", "minimum": 0}
    },
    "required": ["category", "label", "count"]
  }
}`

// docsTools declares the docs tools: every mode, read-only, and contacting
// nothing.
func docsTools(src catalogSource) []toolkit.Spec {
	return []toolkit.Spec{{
		Name:        "list_actions",
		Title:       "List SnowLuma actions",
		Description: "List the bundled catalog's OneBot actions as light entries (name, the first clause of the summary, aliases when there are any, and the flags that are set: readOnly, stream, supported: false on stubs and no-ops, sensitive, destructive, send), optionally filtered by category, read_only and stream, and paged with limit/offset. Contacts nothing; use get_action for an action's full contract, category included.",
		Input:       listActionsInput,
		Output:      pageSchema,
		Needs:       toolkit.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in listArgs) toolkit.Reply {
			return matching(src, in.filterArgs, (*catalog.Catalog).List)
		}),
	}, {
		Name:        "search_actions",
		Title:       "Search SnowLuma actions",
		Description: "Search the bundled catalog in English or Chinese. Default: case-insensitive substring of the name, an alias, or the English or Chinese summary (禁言 finds set_group_ban), in catalog order. match=keywords: space-separated terms combined with AND, with common Chinese/English synonyms (群 禁言), best match first. Either way stubs and no-ops (supported: false) come last. Same filters and paging as list_actions. Contacts nothing.",
		Input:       searchActionsInput,
		Output:      pageSchema,
		Needs:       toolkit.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in searchArgs) toolkit.Reply {
			if strings.TrimSpace(in.Query) == "" {
				return toolkit.Fail(toolkit.KindInvalidArguments, "search_actions: argument /query is blank", "pass a name, word or phrase to look for")
			}
			search := (*catalog.Catalog).Search
			if in.Match == "keywords" {
				search = (*catalog.Catalog).SearchKeywords
			}
			matches := -1
			r := matching(src, in.filterArgs, func(cat *catalog.Catalog, f catalog.Filter) []*catalog.Action {
				found := search(cat, in.Query, f)
				matches = len(found)
				return found
			})
			if matches == 0 && !r.IsError {
				r.Diag.Message, r.Diag.NextStep = nothingFound(in)
			}
			return r
		}),
	}, {
		Name:        "get_action",
		Title:       "Describe a SnowLuma action",
		Description: "Get one action's whole contract by name or alias: summary and Chinese summaryZh, parameters, cross-field constraints, readOnly and stream flags, returnsSchema (the successful data), examples, and an inputSchema ready for building params. Contacts nothing.",
		Input:       getActionInput,
		Output:      actionSchema,
		Needs:       toolkit.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(_ context.Context, _ *toolkit.Call, in getArgs) toolkit.Reply {
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
		Title:       "List SnowLuma action categories",
		Description: "List the catalog's categories (SnowLuma's canonical name and an English label) with their action counts. Contacts nothing.",
		Input:       noInput,
		Output:      categoriesSchema,
		Needs:       toolkit.ModeDocs,
		Idempotent:  true,
		Handler: toolkit.Handle(func(context.Context, *toolkit.Call, struct{}) toolkit.Reply {
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
	if in.Match == "keywords" {
		next = "use fewer or more general terms"
		if filtered {
			next += ", or drop the category, read_only and stream filters"
		}
		return fmt.Sprintf("no action matches every term of %q", in.Query), next
	}
	next = `try match: "keywords", which splits the query into terms and knows Chinese and English synonyms`
	if filtered {
		next += ", or drop the category, read_only and stream filters"
	}
	return fmt.Sprintf("no action's name, alias or summary contains %q", in.Query), next
}

// unknownAction refuses a name that is neither an action nor an alias and
// suggests up to three close names.
func unknownAction(cat *catalog.Catalog, name string) toolkit.Reply {
	next := "use search_actions or list_actions to find the action's name"
	if s := cat.Suggest(name, 3); len(s) > 0 {
		next = "did you mean " + strings.Join(s, ", ") + "? Otherwise " + next
	}
	return toolkit.Fail(toolkit.KindUnknownAction, fmt.Sprintf("no action or alias named %q in the SnowLuma %s catalog", name, cat.Version()), next)
}

// matching answers list_actions and search_actions: it resolves the
// filters, finds the matches and pages them.
func matching(src catalogSource, in filterArgs, find func(*catalog.Catalog, catalog.Filter) []*catalog.Action) toolkit.Reply {
	cat, r, loaded := src.get()
	if !loaded {
		return r
	}
	f, r, bad := resolveFilter(cat, in)
	if bad {
		return r
	}
	return encoded(paginate(find(cat, f), in))
}

// encoded answers with the catalog's precomputed JSON.
func encoded(js []byte, err error) toolkit.Reply {
	if err != nil {
		return toolkit.Fail(toolkit.KindInternal, "the bundled catalog could not be encoded: "+err.Error(), "report this to the snowluma-mcp maintainers")
	}
	return toolkit.OK(toolkit.Encoded(js))
}

// resolveFilter turns filter arguments into a catalog.Filter. An unknown
// category is refused with the list of valid ones.
func resolveFilter(cat *catalog.Catalog, in filterArgs) (catalog.Filter, toolkit.Reply, bool) {
	f := catalog.Filter{ReadOnly: in.ReadOnly, Stream: in.Stream}
	if in.Category != "" {
		c, found := cat.Category(in.Category)
		if !found {
			var names []string
			for _, c := range cat.Categories() {
				names = append(names, c.Name+" ("+c.Label+")")
			}
			return f, toolkit.Fail(toolkit.KindInvalidArguments, fmt.Sprintf("argument /category: no category %q", in.Category),
				"use one of: "+strings.Join(names, ", ")), true
		}
		f.Category = c.Name
	}
	return f, toolkit.Reply{}, false
}

// paginate encodes a match list as the answer of list_actions and
// search_actions, from each action's precomputed brief. Without limit or
// offset it is {count, actions}; with either, count is the page size and
// total and next_offset (null on the last page) say what is left.
func paginate(found []*catalog.Action, in filterArgs) ([]byte, error) {
	start, end, paged := 0, len(found), in.Limit != nil || in.Offset != nil
	if paged {
		start = min(end, deref(in.Offset, 0))
		if in.Limit != nil {
			end = min(end, start+*in.Limit)
		}
	}
	page := found[start:end]
	b := make([]byte, 0, 64+len(page)*256)
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
	for i, a := range page {
		brief, err := a.BriefJSON()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, brief...)
	}
	return append(b, "]}"...), nil
}

func deref(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
