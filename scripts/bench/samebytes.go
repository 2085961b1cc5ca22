package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// The same-bytes mode (-samebytes): snowluma-mcp's docs calls against a
// bare go-sdk server that answers them with the very bytes snowluma-mcp
// answered (scripts/bench/bare with BARE_REPLAY), so that the difference
// is this server's own work: its dispatch, gate, argument check, catalog
// lookup and rendering, against the SDK's listing, encoding and framing,
// which both do. With -typescript the TypeScript SnowLuma MCP server
// answers the call kinds it has in the same turns, so that this server is
// measured against it under the same load rather than against figures
// from another run. The servers run side by side and take turns, call kind
// by call kind and round by round, so that a machine whose load changes
// loads them alike.

// sameCalls are the call kinds of the same-bytes mode.
var sameCalls = []string{"tools/list", `search_actions "group"`, `search_actions "群 禁言" keywords`, "get_action send_group_msg", "list_categories", "resources/read catalog"}

// tsCalls are what the TypeScript server is sent for the call kinds it
// has. SnowLuma MCP 1.11.1 names its docs tools and their arguments as this
// server does; its search has no match modes, so it has no keyword search.
var tsCalls = map[string]callKind{
	"tools/list":                {"tools/list", "tools/list", `{}`},
	`search_actions "group"`:    {"search_actions", "tools/call", `{"name":"search_actions","arguments":{"query":"group"}}`},
	"get_action send_group_msg": {"get_action", "tools/call", `{"name":"get_action","arguments":{"name":"send_group_msg"}}`},
	"list_categories":           {"list_categories", "tools/call", `{"name":"list_categories","arguments":{}}`},
	"resources/read catalog":    {"resources/read", "resources/read", `{"uri":"snowluma://onebot/actions"}`},
}

// sameBytesConfig is what the same-bytes mode runs.
type sameBytesConfig struct {
	n, rounds  int
	warm       int // calls each server answers of each call kind before the timed rounds
	modern     bool
	before     string   // a second snowluma-mcp binary measured alongside, or ""
	typeScript []string // the TypeScript server's command line, or none
}

// A contender is one server of a same-bytes run and what it measured, by
// call kind name.
type contender struct {
	name  string
	p     *proc
	calls map[string]callKind // what it is sent for each call kind it has
	lat   map[string][]time.Duration
	cpu   map[string]time.Duration
	size  map[string]int
}

// p50 is c's median latency for call, and whether c answered call at all.
func (c *contender) p50(call string) (time.Duration, bool) {
	lat := slices.Clone(c.lat[call])
	if len(lat) == 0 {
		return 0, false
	}
	slices.Sort(lat)
	return lat[len(lat)/2], true
}

// sameBytes runs the same-bytes mode for server against bare (and the
// TypeScript server, when cfg names it).
func sameBytes(bare, server string, cfg sameBytesConfig) error {
	fake, err := simulator.New(simulator.WithoutRecording())
	if err != nil {
		return err
	}
	defer fake.Close()
	dir, err := os.MkdirTemp("", "snowluma-bench-same")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := writeMode(fake.URL, dir)

	calls := make([]callKind, 0, len(sameCalls))
	ours := map[string]callKind{}
	for _, name := range sameCalls {
		i := slices.IndexFunc(docsCalls, func(c callKind) bool { return c.name == name })
		calls = append(calls, docsCalls[i])
		ours[name] = docsCalls[i]
	}
	var all []*contender
	defer func() {
		for _, c := range all {
			c.p.close()
		}
	}()
	add := func(name string, argv, env []string, sent map[string]callKind) (*contender, error) {
		p, err := spawnArgs(argv, env, cfg.modern)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c := &contender{name: name, p: p, calls: sent, lat: map[string][]time.Duration{}, cpu: map[string]time.Duration{}, size: map[string]int{}}
		all = append(all, c)
		return c, nil
	}
	after, err := add("snowluma-mcp", []string{server}, env, ours)
	if err != nil {
		return err
	}
	replay := filepath.Join(dir, "replay.json")
	if err := record(after.p, calls, replay); err != nil {
		return err
	}
	yard, err := add("bare go-sdk, same bytes", []string{bare}, []string{"BARE_REPLAY=" + replay}, ours)
	if err != nil {
		return err
	}
	contenders := []*contender{yard}
	if cfg.before != "" {
		before, err := add("snowluma-mcp before", []string{cfg.before}, env, ours)
		if err != nil {
			return err
		}
		contenders = append(contenders, before)
	}
	var ts *contender
	if len(cfg.typeScript) > 0 {
		if ts, err = add("TypeScript SnowLuma MCP", cfg.typeScript, env, tsCalls); err != nil {
			return err
		}
		if ok, why := speaksEra(ts.p); ok {
			contenders = append(contenders, ts)
		} else {
			fmt.Printf("the TypeScript server is left out: %s\n", why)
			ts = nil
		}
	}
	contenders = append(contenders, after)

	era := "legacy initialize (2025-11-25)"
	if cfg.modern {
		era = "2026-07-28 per-request _meta"
	}
	per := max(cfg.n/cfg.rounds, 1)
	fmt.Printf("same bytes, side by side: %s era, write mode, %d rounds of %d sequential calls per server and call kind after %d to warm up, taking turns (%s)\n", era, cfg.rounds, per, cfg.warm, time.Now().Format(time.DateOnly))
	for _, c := range calls {
		if err := takeTurns(contenders, c.name, cfg.warm, cfg.rounds, per); err != nil {
			return err
		}
	}
	printSame(calls, contenders, yard, ts, after)
	if ts != nil {
		printSent(calls, ts)
	}
	return nil
}

// speaksEra reports whether p's server speaks the era p's client speaks,
// and if not, why. A legacy server has done so by answering initialize. A
// 2026-07-28 server answers server/discover; one that does not (SnowLuma
// MCP 1.11.1's SDK speaks 2025-11-25 at most) would answer the era's
// requests in the legacy shape, without resultType, which is not what a
// 2026-07-28 client asks of a server.
func speaksEra(p *proc) (bool, string) {
	if !p.modern {
		return true, ""
	}
	if _, err := p.roundTrip("server/discover", `{}`); err != nil {
		return false, fmt.Sprintf("it does not speak 2026-07-28 (server/discover: %s)", strings.TrimSpace(err.Error()))
	}
	return true, ""
}

// takeTurns measures call kind name on each contender that has it: one
// checked answer (its bytes), warm calls to warm up, then rounds of per
// sequential calls, the contenders taking turns round by round. Node
// compiles the TypeScript server's hot path only after many calls (its
// tools/list p50 falls by a third to a half between 50 and 2,000 calls of
// warm-up); a Go server needs none, and warming every server alike keeps
// the turns fair.
func takeTurns(contenders []*contender, name string, warm, rounds, per int) error {
	var turn []*contender
	for _, k := range contenders {
		c, ok := k.calls[name]
		if !ok {
			continue
		}
		turn = append(turn, k)
		line, err := k.p.roundTrip(c.method, c.params)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", k.name, name, err)
		}
		k.size[name] = len(line)
		for range warm {
			if _, err := k.p.roundTrip(c.method, c.params); err != nil {
				return fmt.Errorf("%s: %s: %w", k.name, name, err)
			}
		}
	}
	for range rounds {
		for _, k := range turn {
			cpu0 := k.p.cpuTime()
			for range per {
				d, err := k.p.timed(k.calls[name])
				if err != nil {
					return fmt.Errorf("%s: %s: %w", k.name, name, err)
				}
				k.lat[name] = append(k.lat[name], d)
			}
			k.cpu[name] += k.p.cpuTime() - cpu0
		}
	}
	return nil
}

// printSame prints each contender's bytes, CPU per call and p50 by call
// kind, and after's p50 over bare's and, when ts is in the run (not nil),
// over the TypeScript server's.
func printSame(calls []callKind, contenders []*contender, bare, ts, after *contender) {
	fmt.Printf("%-34s", "call")
	for _, k := range contenders {
		fmt.Printf(" | %-26s", k.name)
	}
	fmt.Printf(" | %9s", "÷ bare")
	if ts != nil {
		fmt.Printf(" | %12s", "÷ TypeScript")
	}
	fmt.Printf("\n%-34s", "")
	for range contenders {
		fmt.Printf(" | %8s %8s %8s", "bytes", "cpu µs", "p50 ms")
	}
	fmt.Printf(" | %9s", "p50")
	if ts != nil {
		fmt.Printf(" | %12s", "p50")
	}
	fmt.Println()
	for _, c := range calls {
		fmt.Print(pad(c.name, 34))
		for _, k := range contenders {
			p50, ok := k.p50(c.name)
			if !ok {
				fmt.Printf(" | %8s %8s %8s", "-", "-", "-")
				continue
			}
			cpu := float64(k.cpu[c.name].Microseconds()) / float64(len(k.lat[c.name]))
			fmt.Printf(" | %8d %8.0f %8.3f", k.size[c.name], cpu, ms(p50))
		}
		fmt.Printf(" | %9s", ratio(after, bare, c.name))
		if ts != nil {
			fmt.Printf(" | %12s", ratio(after, ts, c.name))
		}
		fmt.Println()
	}
}

// ratio is a's p50 for call over b's, or "-" when b does not have call.
func ratio(a, b *contender, call string) string {
	num, ok := a.p50(call)
	den, ok2 := b.p50(call)
	if !ok || !ok2 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(num)/float64(den))
}

// printSent prints what the TypeScript server was sent for each call kind
// it has, and the bytes of its answer line.
func printSent(calls []callKind, ts *contender) {
	fmt.Println("the TypeScript server was sent:")
	for _, c := range calls {
		if sent, ok := ts.calls[c.name]; ok {
			fmt.Printf("  %s %s %s: %d bytes\n", pad(c.name, 32), sent.method, sent.params, ts.size[c.name])
		}
	}
}

// record asks p each call once and writes what the bare server needs to
// answer the same: the tool definitions and the results.
func record(p *proc, calls []callKind, file string) error {
	var r struct {
		Tools     json.RawMessage `json:"tools"`
		Calls     []recorded      `json:"calls"`
		Resources []recorded      `json:"resources"`
	}
	for _, c := range calls {
		line, err := p.roundTrip(c.method, c.params)
		if err != nil {
			return fmt.Errorf("recording %s: %w", c.name, err)
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return err
		}
		var params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			URI       string          `json:"uri"`
		}
		json.Unmarshal([]byte(c.params), &params)
		switch c.method {
		case "tools/list":
			var list struct {
				Tools json.RawMessage `json:"tools"`
			}
			json.Unmarshal(resp.Result, &list)
			r.Tools = list.Tools
		case "tools/call":
			r.Calls = append(r.Calls, recorded{Name: params.Name, Arguments: params.Arguments, Result: resp.Result})
		case "resources/read":
			r.Resources = append(r.Resources, recorded{URI: params.URI, Result: resp.Result})
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o600)
}

// recorded is one recorded answer.
type recorded struct {
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Result    json.RawMessage `json:"result"`
}

// timed sends one request of c and reads its answer, as the per-call mode
// times them: the answer's id is checked, the rest is not decoded, so that
// the client's work is the same whatever the answer holds.
func (p *proc) timed(c callKind) (time.Duration, error) {
	start := time.Now()
	p.nextID++
	if _, err := p.stdin.Write(p.request(p.nextID, c.method, c.params)); err != nil {
		return 0, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	if id, err := idOf(line); err != nil || id != p.nextID {
		return 0, fmt.Errorf("answer %d out of order (%v)", id, err)
	}
	return d, nil
}

// pad left-aligns s in width terminal columns, a wide (CJK) rune taking two.
func pad(s string, width int) string {
	w := 0
	for _, r := range s {
		w++
		if r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) || (r >= 0xf900 && r <= 0xfaff) || (r >= 0xff00 && r <= 0xff60)) {
			w++
		}
	}
	if w >= width {
		return s
	}
	return s + strings.Repeat(" ", width-w)
}
