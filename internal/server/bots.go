package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/transfer"
)

// Several bots, one server (docs/configuration.md, Several bots). Each bot
// is a Backend of its own, and New builds every feature once per bot, so
// that what remembers (the send gate's record, pacing, the audit's
// account, the sealer of its forms) is the bot's alone. The tools the
// model sees are one list: each tool that reaches SnowLuma takes an
// optional bot and is routed to that bot's own handler; the catalog and
// docs tools are the first bot's, shared.

// A Bot is one QQ account of a server that drives several.
type Bot struct {
	// Label names it in the bot argument and in every answer about it.
	Label   string
	Backend *backend.Backend
}

// botLabel is the label of the bot o builds a deps for when several bots
// are configured, "" with one (whose records and answers name no bot).
func (o Options) botLabel() string {
	if o.bots == nil {
		return ""
	}
	return o.bots.bots[o.botIndex].Label
}

// botProp is the bot argument added to every tool that reaches SnowLuma
// when several bots are configured.
const botProp = "bot"

// loginTimeout bounds the get_login_info that learns a bot's QQ number.
const loginTimeout = 3 * time.Second

// botSet is the server's bots and the QQ number of each, learnt from
// get_login_info on first need and kept once known.
type botSet struct {
	bots []Bot
	mu   sync.Mutex
	ids  []int64 // 0: not known yet
}

func newBotSet(bots []Bot) *botSet {
	return &botSet{bots: bots, ids: make([]int64, len(bots))}
}

// selfIDs returns each bot's QQ number, asking those not known yet; 0 for
// one that could not be asked.
func (s *botSet) selfIDs(ctx context.Context) []int64 {
	s.mu.Lock()
	ids := append([]int64(nil), s.ids...)
	s.mu.Unlock()
	var wg sync.WaitGroup
	for i, id := range ids {
		if id != 0 || s.bots[i].Backend == nil || s.bots[i].Backend.Client == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i] = loginID(ctx, s.bots[i].Backend.Client)
		}()
	}
	wg.Wait()
	s.mu.Lock()
	for i, id := range ids {
		if id != 0 {
			s.ids[i] = id
		}
	}
	s.mu.Unlock()
	return ids
}

// loginID asks SnowLuma who is logged in; 0 when it cannot say.
func loginID(ctx context.Context, c *transfer.Client) int64 {
	ctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	resp, err := c.Call(ctx, transfer.Request{Action: "get_login_info"})
	if err != nil || resp.Status != "ok" {
		return 0
	}
	var e struct {
		Data struct {
			UserID json.Number `json:"user_id"`
		} `json:"data"`
	}
	if json.Unmarshal(resp.Envelope, &e) != nil {
		return 0
	}
	id, _ := e.Data.UserID.Int64()
	return id
}

// labelOf names the bot whose archive chats are keyed bot (archive.Chat's
// Bot): the first bot for 0, else the bot of that QQ number as far as it
// is known (the number itself otherwise). It asks nothing.
func (s *botSet) labelOf(bot int64) string {
	if bot == 0 {
		return s.bots[0].Label
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, id := range s.ids {
		if id == bot {
			return s.bots[i].Label
		}
	}
	return strconv.FormatInt(bot, 10)
}

// keyOf is the archive's Chat.Bot of bot i: 0 for the first, else its QQ
// number (0 and false while it cannot be learnt).
func (s *botSet) keyOf(ctx context.Context, i int) (int64, bool) {
	if i == 0 {
		return 0, true
	}
	id := s.selfIDs(ctx)[i]
	return id, id != 0
}

// names lists the bots as the model reads them: main (10001), alt (20002).
func (s *botSet) names(ctx context.Context) string {
	ids := s.selfIDs(ctx)
	parts := make([]string, len(s.bots))
	for i, b := range s.bots {
		parts[i] = b.Label
		if ids[i] != 0 {
			parts[i] += fmt.Sprintf(" (%d)", ids[i])
		}
	}
	return strings.Join(parts, ", ")
}

// find returns the index of the bot v names, by label (in any case) or by
// QQ number.
func (s *botSet) find(ctx context.Context, v string) (int, bool) {
	v = strings.TrimSpace(v)
	for i, b := range s.bots {
		if strings.EqualFold(b.Label, v) {
			return i, true
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	for i, id := range s.selfIDs(ctx) {
		if id == n {
			return i, true
		}
	}
	return 0, false
}

// bySelfID finds the bot whose QQ number args' self_id is.
func (s *botSet) bySelfID(ctx context.Context, args json.RawMessage) (int, bool) {
	var in struct {
		SelfID int64 `json:"self_id"`
	}
	if json.Unmarshal(args, &in) != nil || in.SelfID <= 0 {
		return 0, false
	}
	for i, id := range s.selfIDs(ctx) {
		if id == in.SelfID {
			return i, true
		}
	}
	return 0, false
}

// routeBots merges the bots' tool lists, per[i] being bot i's, into one:
// a tool that never reaches SnowLuma is the first bot's; every other one
// takes an optional bot and runs as that bot's. Without bot, a write is
// refused naming the bots, get_runtime_info, find_targets and query_action
// of a list or info read ask every bot and label each answer, subscribe_events goes to
// the bot its self_id names, unsubscribe_events to the bot holding its
// uri, and any other tool is refused naming the bots.
func routeBots(set *botSet, per [][]toolkit.Spec, cat catalogSource) ([]toolkit.Spec, error) {
	out := make([]toolkit.Spec, 0, len(per[0]))
	for j, s := range per[0] {
		if !s.OpenWorld {
			out = append(out, s)
			continue
		}
		specs := make([]toolkit.Spec, len(per))
		for i := range per {
			if j >= len(per[i]) || per[i][j].Name != s.Name {
				return nil, fmt.Errorf("bot %s has no tool %s at %d", set.bots[i].Label, s.Name, j)
			}
			specs[i] = per[i][j]
		}
		in, err := withBotProp(s.Input, set)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", s.Name, err)
		}
		r := s
		r.Input = in
		fans := s.Name == "query_action" || s.Name == "get_runtime_info" || s.Name == "find_targets"
		if fans {
			r.Output = `{"type": "object", "description": "As with one bot; asked of every bot (no bot given): {bots: [{bot, self_id, result, diagnostics}]}."}`
		}
		r.Handler = func(ctx context.Context, c *toolkit.Call) outcome.Reply {
			args, bot, err := takeBot(c.Args)
			if err != nil {
				return outcome.Fail(outcome.KindInvalidArguments, err.Error(), "give bot as a string: "+set.names(ctx))
			}
			if bot != "" {
				i, ok := set.find(ctx, bot)
				if !ok {
					return outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("no bot %q on this server: %s", bot, set.names(ctx)), "call again with bot set to one of them (a label or its QQ number)")
				}
				c.Bot = set.bots[i].Label
				return runAs(ctx, c, specs[i], args)
			}
			if fans && (s.Name != "query_action" || listOrInfoRead(cat, args)) {
				return fanOut(ctx, c, set, specs, args)
			}
			switch s.Name {
			case "subscribe_events":
				// Its self_id names the account already.
				if i, ok := set.bySelfID(ctx, args); ok {
					c.Bot = set.bots[i].Label
					return runAs(ctx, c, specs[i], args)
				}
			case "unsubscribe_events":
				// The uri names the resource, which the first bot's event
				// service finds in whichever bot's hub holds it.
				return runAs(ctx, c, specs[0], args)
			}
			return outcome.Fail(outcome.KindInvalidArguments, "'bot' is required: "+set.names(ctx),
				"call again with bot set to the label or QQ number of the account that should act")
		}
		out = append(out, r)
	}
	return out, nil
}

// runAs runs spec's handler, one bot's, on args (the call's without bot).
func runAs(ctx context.Context, c *toolkit.Call, spec toolkit.Spec, args json.RawMessage) outcome.Reply {
	if spec.Unavailable != nil {
		return spec.Unavailable.Reply()
	}
	saved := c.Args
	c.Args = args
	defer func() { c.Args = saved }()
	return spec.Handler(ctx, c)
}

// botAnswer is one bot's part of an answer asked of every bot.
type botAnswer struct {
	Bot         string              `json:"bot"`
	SelfID      int64               `json:"self_id,omitempty"`
	Result      any                 `json:"result"`
	Diagnostics outcome.Diagnostics `json:"diagnostics"`
}

// fanOut asks every bot in turn and labels each answer. It fails only
// when every bot failed; a form or a task handle is not something several
// bots can answer with, so such a bot's answer says to name it.
func fanOut(ctx context.Context, c *toolkit.Call, set *botSet, specs []toolkit.Spec, args json.RawMessage) outcome.Reply {
	ids := set.selfIDs(ctx)
	labels := make([]string, len(specs))
	for i, b := range set.bots {
		labels[i] = b.Label
	}
	c.Bot = strings.Join(labels, ",")
	answers := make([]botAnswer, len(specs))
	failed := 0
	for i, spec := range specs {
		r := runAs(ctx, c, spec, args)
		if r.Input != nil || r.Handle != nil {
			r = outcome.Fail(outcome.KindInvalidArguments, "this call needs one bot", "call again with bot set")
		}
		answers[i] = botAnswer{Bot: set.bots[i].Label, SelfID: ids[i], Result: r.Result, Diagnostics: r.Diag}
		if r.IsError {
			failed++
		}
	}
	if failed == len(specs) {
		d := answers[0].Diagnostics
		return outcome.Fail(d.Kind, "every bot failed: "+set.bots[0].Label+": "+d.Message, d.NextStep)
	}
	reply := outcome.OK(map[string]any{"bots": answers})
	if failed > 0 {
		reply.Diag.Message = fmt.Sprintf("%d of %d bots failed; see each one's diagnostics", failed, len(specs))
	}
	return reply
}

// listOrInfoRead reports whether query_action's args name an action every
// bot can answer on its own: a read-only, non-stream, non-credential
// action that lists or describes (…_list, …_info, get_status) and carries
// no chat's text to the model beyond ids (catalog/effects.json).
func listOrInfoRead(cat catalogSource, args json.RawMessage) bool {
	var in actionArgs
	if json.Unmarshal(args, &in) != nil {
		return false
	}
	c, _, ok := cat.get()
	if !ok {
		return false
	}
	a, found := c.Lookup(in.Action)
	if !found || !a.ReadOnly || a.Stream || a.Sensitive {
		return false
	}
	if !strings.HasSuffix(a.Name, "_list") && !strings.HasSuffix(a.Name, "_info") && a.Name != "get_status" {
		return false
	}
	e, known := catalog.EffectOf(a.Name)
	return known && !e.Write()
}

// takeBot removes bot from args, returning the rest and its value ("" when
// absent).
func takeBot(args json.RawMessage) (json.RawMessage, string, error) {
	var m map[string]json.RawMessage
	if len(args) == 0 || json.Unmarshal(args, &m) != nil || m[botProp] == nil {
		return args, "", nil
	}
	raw := m[botProp]
	delete(m, botProp)
	var bot string
	if err := json.Unmarshal(raw, &bot); err != nil {
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return nil, "", fmt.Errorf("bot must be a label or a QQ number, got %s", raw)
		}
		bot = n.String()
	}
	rest, err := json.Marshal(m)
	if err != nil {
		return nil, "", err
	}
	return rest, bot, nil
}

// withBotProp adds the optional bot argument to an input schema.
func withBotProp(input string, set *botSet) (string, error) {
	var schema map[string]json.RawMessage
	if err := json.Unmarshal([]byte(input), &schema); err != nil {
		return "", err
	}
	props := map[string]json.RawMessage{}
	if p := schema["properties"]; p != nil {
		if err := json.Unmarshal(p, &props); err != nil {
			return "", err
		}
	}
	labels := make([]string, len(set.bots))
	for i, b := range set.bots {
		labels[i] = b.Label
	}
	desc, _ := json.Marshal(strings.Join(labels, ", ") + " or a bot's QQ number; required to write.")
	props[botProp] = json.RawMessage(`{"type": ["string", "integer"], "description": ` + string(desc) + `}`)
	p, err := json.Marshal(props)
	if err != nil {
		return "", err
	}
	schema["properties"] = p
	b, err := json.Marshal(schema)
	return string(b), err
}
