package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

// The per-call mode: the real binary over stdio, each call kind timed
// sequentially (one request in flight) and 64-wide (64 in flight on the one
// stdio pipe), against an in-process fake SnowLuma. Beside latency it
// reports the server's CPU time per sequential call, which a machine shared
// with other work disturbs far less.

// A callKind is one request the per-call mode measures.
type callKind struct {
	name   string
	method string
	params string // the params object without _meta
}

// docsCalls are the calls every server in the per-call mode answers; write
// mode adds query_action.
var (
	docsCalls = []callKind{
		{"tools/list", "tools/list", `{}`},
		{"list_categories", "tools/call", `{"name":"list_categories","arguments":{}}`},
		{"list_actions", "tools/call", `{"name":"list_actions","arguments":{}}`},
		{"list_actions limit 20", "tools/call", `{"name":"list_actions","arguments":{"limit":20}}`},
		{`search_actions "group"`, "tools/call", `{"name":"search_actions","arguments":{"query":"group"}}`},
		{`search_actions "群 禁言" keywords`, "tools/call", `{"name":"search_actions","arguments":{"query":"群 禁言","match":"keywords"}}`},
		{"get_action send_group_msg", "tools/call", `{"name":"get_action","arguments":{"name":"send_group_msg"}}`},
		{"get_runtime_info", "tools/call", `{"name":"get_runtime_info","arguments":{}}`},
		{"resources/read catalog", "resources/read", `{"uri":"snowluma://onebot/actions"}`},
	}
	queryCall = callKind{"query_action get_status", "tools/call", `{"name":"query_action","arguments":{"action":"get_status"}}`}
	bareCalls = []callKind{
		{"tools/list", "tools/list", `{}`},
		{"tools/call echo", "tools/call", `{"name":"echo","arguments":{"text":"hi"}}`},
	}
)

// modernMeta is the per-request _meta of a 2026-07-28 client without
// capabilities.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`

// metaWith is the per-request _meta of a 2026-07-28 client with caps, a
// clientCapabilities object.
func metaWith(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}`
}

// perCallConfig is what the per-call mode runs.
type perCallConfig struct {
	n, width  int
	modern    bool
	only      *regexp.Regexp // call kinds to run
	profile   string         // directory for the write-mode server's profiles, or ""
	allocsDir string         // where the servers write their allocation counts, or "" for none
}

// perCall runs the per-call mode for bare (the yardstick) and server.
func perCall(bare, server string, cfg perCallConfig) error {
	n, width, modern := cfg.n, cfg.width, cfg.modern
	fake, err := simulator.New(simulator.WithoutRecording())
	if err != nil {
		return err
	}
	defer fake.Close()
	era := "legacy initialize (2025-11-25)"
	if modern {
		era = "2026-07-28 per-request _meta"
	}
	fmt.Printf("per call over stdio, %s era, %d sequential calls and %d calls %d-wide each (%s)\n", era, n, 4*n, width, time.Now().Format(time.DateOnly))
	fmt.Printf("%-40s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "call", "bytes", "cpu µs", "alloc KB", "p50 ms", "p99 ms", "calls/s", "wide p50", "wide p99", "wide c/s")
	downloads, err := os.MkdirTemp("", "snowluma-bench-downloads")
	if err != nil {
		return err
	}
	defer os.RemoveAll(downloads)
	writeEnv := writeMode(fake.URL, downloads)
	var docsEnv []string
	if cfg.allocsDir != "" {
		docsEnv = []string{"BENCH_ALLOCS=" + filepath.Join(cfg.allocsDir, "allocs-docs")}
		writeEnv = append(writeEnv, "BENCH_ALLOCS="+filepath.Join(cfg.allocsDir, "allocs-write"))
	}
	if cfg.profile != "" {
		writeEnv = append(writeEnv, "PROFILE_DIR="+cfg.profile)
	}
	for _, s := range []struct {
		name  string
		bin   string
		env   []string
		calls []callKind
	}{
		{"bare go-sdk server", bare, nil, bareCalls},
		{"snowluma-mcp docs mode", server, docsEnv, docsCalls[:1]},
		{"snowluma-mcp write mode", server, writeEnv, append(slices.Clone(docsCalls), queryCall)},
	} {
		fmt.Println(s.name)
		p, err := spawn(s.bin, s.env, modern)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		for _, c := range s.calls {
			if !cfg.only.MatchString(c.name) {
				continue
			}
			r, err := p.measure(c, n, width)
			if err != nil {
				p.close()
				return fmt.Errorf("%s: %s: %w", s.name, c.name, err)
			}
			alloc := "-" // the bare server counts none
			if r.allocs >= 0 {
				alloc = fmt.Sprintf("%.1f", r.allocs/1024)
			}
			fmt.Printf("  %-38s %9d %9.0f %9s %9.3f %9.3f %9.0f %9.3f %9.3f %9.0f\n", c.name, r.bytes, r.cpu, alloc,
				ms(r.seq.p50), ms(r.seq.p99), r.seq.rate, ms(r.wide.p50), ms(r.wide.p99), r.wide.rate)
		}
		if slices.Contains(s.env, "PROFILE_DIR="+cfg.profile) {
			if err := p.profile(cfg.profile); err != nil {
				return err
			}
		}
		rss, err := p.close()
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("  %-38s %9.1f MB\n", "peak RSS after the run", float64(rss)/1024)
	}
	fmt.Printf("fake SnowLuma accepted %d connections in all\n", fake.Conns())
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// proc is a spawned server and its stdio.
type proc struct {
	cmd    *exec.Cmd
	allocs string // the BENCH_ALLOCS file of a server that counts, or ""
	stdin  io.WriteCloser
	out    *bufio.Reader
	modern bool
	meta   string // a modern request's _meta member; modernMeta when empty
	nextID int
}

// withCaps makes p's later requests carry caps, a clientCapabilities
// object (2026-07-28 era only).
func (p *proc) withCaps(caps string) *proc {
	p.meta = metaWith(caps)
	return p
}

func spawn(bin string, env []string, modern bool) (*proc, error) {
	return spawnArgs([]string{bin}, env, modern)
}

// spawnArgs starts argv (a program and its arguments, such as node and a
// script) with env and, in the legacy era, completes the initialize
// handshake.
func spawnArgs(argv []string, env []string, modern bool) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20), modern: modern}
	for _, e := range env {
		if f, ok := strings.CutPrefix(e, "BENCH_ALLOCS="); ok {
			p.allocs = f
		}
	}
	if !modern {
		if _, err := p.roundTrip("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`); err != nil {
			p.close()
			return nil, fmt.Errorf("initialize: %w", err)
		}
		if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

// profile has a server built with -tags profile write its profiles into
// dir, and waits until it has.
func (p *proc) profile(dir string) error {
	done := filepath.Join(dir, "done")
	os.Remove(done)
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		return err
	}
	for range 100 {
		if _, err := os.Stat(done); err == nil {
			fmt.Printf("  profiles written: %s\n", filepath.Join(dir, "{cpu,allocs}.pprof"))
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no profiles in %s: was the server built with -tags profile?", dir)
}

// allocated asks a server built with -tags profile and run with
// BENCH_ALLOCS for the bytes it has allocated so far (0 for a server that
// does not count).
func (p *proc) allocated() (uint64, error) {
	if p.allocs == "" {
		return 0, nil
	}
	os.Remove(p.allocs)
	if err := p.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return 0, err
	}
	for range 200 {
		if b, err := os.ReadFile(p.allocs); err == nil {
			var bytes uint64
			if _, err := fmt.Sscan(string(b), &bytes); err != nil {
				return 0, fmt.Errorf("allocation count %q: %w", b, err)
			}
			return bytes, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, fmt.Errorf("no allocation count in %s: was the server built with -tags profile?", p.allocs)
}

// close ends the server and reports its peak RSS in KiB.
func (p *proc) close() (int64, error) {
	rss, rssErr := highWater(p.cmd.Process.Pid)
	p.stdin.Close()
	io.Copy(io.Discard, p.out)
	if err := p.cmd.Wait(); err != nil {
		return 0, err
	}
	return rss, rssErr
}

// request encodes one request line with id.
func (p *proc) request(id int, method, params string) []byte {
	meta := p.meta
	if meta == "" {
		meta = modernMeta
	}
	b := make([]byte, 0, 64+len(params)+len(meta))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	if p.modern {
		b = append(b, '{')
		b = append(b, meta...)
		if inner := bytes.TrimSpace([]byte(params)); len(inner) > 2 {
			b = append(b, ',')
			b = append(b, inner[1:len(inner)-1]...)
		}
		b = append(b, '}')
	} else {
		b = append(b, params...)
	}
	return append(b, "}\n"...)
}

// roundTrip sends one request and returns its answer line, checked: a
// result, no JSON-RPC error, no tool error.
func (p *proc) roundTrip(method, params string) ([]byte, error) {
	p.nextID++
	if _, err := p.stdin.Write(p.request(p.nextID, method, params)); err != nil {
		return nil, err
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var resp struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || resp.ID != p.nextID || resp.Error != nil || resp.Result == nil {
		return nil, fmt.Errorf("bad answer (%v): %.300s", err, line)
	}
	var tool struct {
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(resp.Result, &tool); tool.IsError {
		return nil, fmt.Errorf("tool error: %.300s", line)
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

// idOf finds the id of an answer line without decoding the rest. The Go
// SDK writes "id" right after "jsonrpc", at the start; the TypeScript SDK
// writes it last, after the result.
func idOf(line []byte) (int, error) {
	if rest, ok := bytes.CutPrefix(line, []byte(`{"jsonrpc":"2.0","id":`)); ok {
		if j := bytes.IndexAny(rest, ",}"); j >= 0 {
			return strconv.Atoi(string(rest[:j]))
		}
	}
	end := bytes.TrimRight(line, "}\r\n")
	end = end[max(len(end)-32, 0):]
	if i := bytes.LastIndex(end, []byte(`,"id":`)); i >= 0 {
		return strconv.Atoi(string(end[i+len(`,"id":`):]))
	}
	return 0, fmt.Errorf("no id in %.100s", line)
}

// stats summarises one run of calls.
type stats struct {
	p50, p99 time.Duration
	rate     float64 // calls per second
}

func summarise(lat []time.Duration, wall time.Duration) stats {
	slices.Sort(lat)
	return stats{
		p50:  lat[len(lat)/2],
		p99:  lat[len(lat)*99/100],
		rate: float64(len(lat)) / wall.Seconds(),
	}
}

type result struct {
	bytes int
	cpu   float64 // the server's CPU time per sequential call, in µs
	// allocs is the bytes the server allocated per sequential call, or -1
	// for a server that does not count them.
	allocs float64
	seq    stats
	wide   stats
}

// cpuTime is the CPU time the process has used so far, summed over its
// threads (Linux schedstat, in nanoseconds); 0 where that is unknown. Unlike
// latency it hardly depends on what else the machine is running.
func (p *proc) cpuTime() time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", p.cmd.Process.Pid))
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := bytes.Fields(b)
		if len(f) > 0 {
			n, _ := strconv.ParseInt(string(f[0]), 10, 64)
			total += n
		}
	}
	return time.Duration(total)
}

// measure checks one answer of c, warms up, then times n sequential calls
// and 4n calls with width in flight.
func (p *proc) measure(c callKind, n, width int) (result, error) {
	var r result
	line, err := p.roundTrip(c.method, c.params)
	if err != nil {
		return r, err
	}
	r.bytes = len(line)
	for range min(n, 50) {
		if _, err := p.roundTrip(c.method, c.params); err != nil {
			return r, err
		}
	}
	lat := make([]time.Duration, n)
	alloc0, err := p.allocated()
	if err != nil {
		return r, err
	}
	cpu0 := p.cpuTime()
	start := time.Now()
	for i := range n {
		t := time.Now()
		p.nextID++
		if _, err := p.stdin.Write(p.request(p.nextID, c.method, c.params)); err != nil {
			return r, err
		}
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return r, err
		}
		lat[i] = time.Since(t)
		if id, err := idOf(line); err != nil || id != p.nextID {
			return r, fmt.Errorf("answer %d out of order (%v)", id, err)
		}
	}
	r.seq = summarise(lat, time.Since(start))
	r.cpu = float64((p.cpuTime() - cpu0).Microseconds()) / float64(n)
	alloc1, err := p.allocated()
	if err != nil {
		return r, err
	}
	r.allocs = -1
	if p.allocs != "" {
		r.allocs = float64(alloc1-alloc0) / float64(n)
	}
	r.wide, err = p.wide(c, 4*n, width)
	return r, err
}

// wide sends total calls of c keeping width of them in flight, and times
// each from its write to its answer.
func (p *proc) wide(c callKind, total, width int) (stats, error) {
	base := p.nextID + 1
	p.nextID += total
	reqs := make([][]byte, total)
	for i := range reqs {
		reqs[i] = p.request(base+i, c.method, c.params)
	}
	sent := make([]time.Time, total)
	lat := make([]time.Duration, 0, total)
	slots := make(chan struct{}, width)
	var mu sync.Mutex
	werr := make(chan error, 1)
	start := time.Now()
	go func() {
		for i, req := range reqs {
			slots <- struct{}{}
			mu.Lock()
			sent[i] = time.Now()
			mu.Unlock()
			if _, err := p.stdin.Write(req); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	for range total {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return stats{}, err
		}
		now := time.Now()
		id, err := idOf(line)
		if err != nil || id < base || id >= base+total {
			return stats{}, fmt.Errorf("unexpected answer %d (%v)", id, err)
		}
		mu.Lock()
		lat = append(lat, now.Sub(sent[id-base]))
		mu.Unlock()
		<-slots
	}
	wall := time.Since(start)
	if err := <-werr; err != nil {
		return stats{}, err
	}
	return summarise(lat, wall), nil
}
