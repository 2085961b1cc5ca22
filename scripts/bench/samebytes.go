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
// which both do. The servers run side by side and take turns, call kind by
// call kind and round by round, so that a machine whose load changes
// loads them alike.

// sameCalls are the call kinds of the same-bytes mode.
var sameCalls = []string{"tools/list", `search_actions "group"`, `search_actions "群 禁言" keywords`, "get_action send_group_msg", "list_categories", "resources/read catalog"}

// typeScript is the TypeScript SnowLuma MCP 1.11.1's p50 in ms, from issue
// 33's quiet run on this machine with the same client (it is not installed
// here, so it is not measured in this run), and echoListP50 the p50 of the
// bare echo server's tools/list in that run. Scaled by this run's echo
// tools/list p50 over echoListP50, they estimate what the TypeScript server
// would take under this run's load.
var (
	typeScript  = map[string]float64{"tools/list": 0.28, `search_actions "group"`: 0.43, "get_action send_group_msg": 0.23}
	echoListP50 = 0.24
)

// sameBytesConfig is what the same-bytes mode runs.
type sameBytesConfig struct {
	n, rounds int
	modern    bool
	before    string // a second snowluma-mcp binary measured alongside, or ""
}

// sameBytes runs the same-bytes mode for server against bare.
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

	type contender struct {
		name string
		p    *proc
		lat  map[string][]time.Duration
		cpu  map[string]time.Duration
		size map[string]int
	}
	var all []*contender
	defer func() {
		for _, c := range all {
			c.p.close()
		}
	}()
	add := func(name, bin string, env []string) (*contender, error) {
		p, err := spawn(bin, env, cfg.modern)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		c := &contender{name: name, p: p, lat: map[string][]time.Duration{}, cpu: map[string]time.Duration{}, size: map[string]int{}}
		all = append(all, c)
		return c, nil
	}
	after, err := add("snowluma-mcp", server, env)
	if err != nil {
		return err
	}
	calls := make([]callKind, 0, len(sameCalls))
	for _, name := range sameCalls {
		i := slices.IndexFunc(docsCalls, func(c callKind) bool { return c.name == name })
		calls = append(calls, docsCalls[i])
	}
	replay := filepath.Join(dir, "replay.json")
	if err := record(after.p, calls, replay); err != nil {
		return err
	}
	yard, err := add("bare go-sdk, same bytes", bare, []string{"BARE_REPLAY=" + replay})
	if err != nil {
		return err
	}
	echo, err := add("bare go-sdk echo server", bare, nil)
	if err != nil {
		return err
	}
	contenders := []*contender{yard}
	if cfg.before != "" {
		before, err := add("snowluma-mcp before", cfg.before, env)
		if err != nil {
			return err
		}
		contenders = append(contenders, before)
	}
	contenders = append(contenders, after)

	era := "legacy initialize (2025-11-25)"
	if cfg.modern {
		era = "2026-07-28 per-request _meta"
	}
	per := max(cfg.n/cfg.rounds, 1)
	fmt.Printf("same bytes, side by side: %s era, write mode, %d rounds of %d sequential calls per server and call kind, taking turns (%s)\n", era, cfg.rounds, per, time.Now().Format(time.DateOnly))
	for _, c := range calls {
		for _, k := range contenders {
			line, err := k.p.roundTrip(c.method, c.params)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", k.name, c.name, err)
			}
			k.size[c.name] = len(line)
			for range min(per, 50) { // warm up
				if _, err := k.p.roundTrip(c.method, c.params); err != nil {
					return fmt.Errorf("%s: %s: %w", k.name, c.name, err)
				}
			}
		}
		turn := contenders
		if c.name == "tools/list" {
			turn = append(slices.Clone(contenders), echo)
		}
		for _, k := range turn[len(contenders):] {
			line, err := k.p.roundTrip(c.method, c.params)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", k.name, c.name, err)
			}
			k.size[c.name] = len(line)
		}
		for range cfg.rounds {
			for _, k := range turn {
				cpu0 := k.p.cpuTime()
				for range per {
					d, err := k.p.timed(c)
					if err != nil {
						return fmt.Errorf("%s: %s: %w", k.name, c.name, err)
					}
					k.lat[c.name] = append(k.lat[c.name], d)
				}
				k.cpu[c.name] += k.p.cpuTime() - cpu0
			}
		}
	}

	fmt.Printf("%-34s", "call")
	for _, k := range contenders {
		fmt.Printf(" | %-26s", k.name)
	}
	echoLat := echo.lat["tools/list"]
	slices.Sort(echoLat)
	scale := ms(echoLat[len(echoLat)/2]) / echoListP50
	fmt.Printf(" | %9s | %s\n", "÷ bare", "TypeScript p50 (issue 33) → scaled to this run")
	fmt.Printf("%-34s", "")
	for range contenders {
		fmt.Printf(" | %8s %8s %8s", "bytes", "cpu µs", "p50 ms")
	}
	fmt.Printf(" | %9s |\n", "p50")
	for _, c := range calls {
		fmt.Print(pad(c.name, 34))
		for _, k := range contenders {
			lat := k.lat[c.name]
			slices.Sort(lat)
			fmt.Printf(" | %8d %8.0f %8.3f", k.size[c.name], float64(k.cpu[c.name].Microseconds())/float64(len(lat)), ms(lat[len(lat)/2]))
		}
		bareLat, afterLat := yard.lat[c.name], after.lat[c.name]
		ratio := float64(afterLat[len(afterLat)/2]) / float64(bareLat[len(bareLat)/2])
		ts := "-"
		if v, ok := typeScript[c.name]; ok {
			ts = fmt.Sprintf("%.2f → %.3f", v, v*scale)
		}
		fmt.Printf(" | %8.2f× | %s\n", ratio, ts)
	}
	fmt.Printf("tools/list of the bare echo server (%d bytes): p50 %.3f ms, against %.2f in issue 33's run: this run's load ×%.2f\n", echo.size["tools/list"], ms(echoLat[len(echoLat)/2]), echoListP50, scale)
	return nil
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
