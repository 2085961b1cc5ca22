package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// Build compiles cmd/snowluma-mcp into dir and returns the binary's path.
// Call it once from TestMain. Under go test -race the binary is built with
// -race too, and a race in the server fails the test that hit it (see
// Spawn). Build says on stderr, once for the test process, that the binary
// has the race detector, and that the schema check is skipped when
// ../shared/reference is missing outside CI (under CI every Spawn fails).
func Build(dir string) (string, error) {
	bin, err := build(dir, RaceEnabled)
	if err != nil {
		return "", err
	}
	announce()
	return bin, nil
}

// Built stands for Build in a test process that another one started with
// the binary its Build made (a test of the harness runs its own test
// binary again): it says on stderr what Build says and returns bin,
// without building the same binary again.
func Built(bin string) string {
	announce()
	return bin
}

// announce says what Build says once for the test process.
func announce() {
	if RaceEnabled {
		fmt.Fprintln(os.Stderr, "mcptest: server binary built with -race")
	}
	if _, err := reference.Dir(); err != nil && !reference.UnderCI() {
		fmt.Fprintf(os.Stderr, "mcptest: schema check skipped: %v (the end-to-end tests run without it; under CI=true they fail)\n", err)
	}
}

func build(dir string, race bool) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(dir, "snowluma-mcp")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./cmd/snowluma-mcp")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// A Proc is one running snowluma-mcp server with recorded stdio: a process
// (Spawn) or the server's run function inside the test process (Start).
type Proc struct {
	tb  testing.TB
	cmd *exec.Cmd // nil in process
	era Era

	// In process: cancel ends run's context (as SIGTERM ends the
	// process), returned is closed once run has returned, with code.
	cancel   context.CancelFunc
	returned chan struct{}
	code     int

	stdin  io.WriteCloser
	stdout io.ReadCloser

	mu       sync.Mutex
	sent     [][]byte // lines written to the server
	received [][]byte // lines the server wrote
	stderr   bytes.Buffer
	partial  bool                 // stdout ended inside a line
	attached bool                 // a reader consumes stdout
	sessions []*mcp.ClientSession // Close lists the tools through the last one
	raws     []*Raw               // or, if there is none, through the last of these
	closing  chan struct{}        // closed when Close begins: nobody reads any more
	done     chan struct{}        // closed once the process has exited
	exited   sync.Once            // closes done
	close    sync.Once
}

// Patience is how long the harness waits for a server's next message or
// answer before calling it hung and failing the test. It is generous: the
// race detector and tests running in parallel on shared cores slow a
// server down many times over, and only a hung server ever reaches it.
const Patience = 2 * time.Minute

// raceExitCode is the exit status the race detector gives a process that
// hit a data race (GORACE exitcode, 66 unless changed).
const raceExitCode = 66

// RaceEnv is the GORACE entry for a process a test starts from a binary
// built with -race: the test's own GORACE options, if any, with
// atexit_sleep_ms=0 unless they set it. The detector otherwise idles a
// second before every exit so that a report another thread is writing can
// finish; a test waits for that second each time it stops a server, and
// the suite started hundreds. Reports are written when a race happens, and
// the exit status still says whether there was one.
func RaceEnv() string {
	opts := os.Getenv("GORACE")
	if !strings.Contains(opts, "atexit_sleep_ms") {
		opts = strings.TrimSpace(opts + " atexit_sleep_ms=0")
	}
	return "GORACE=" + opts
}

// Spawn starts bin with exactly env (plus PATH, RaceEnv and a HOME of
// its own, see PrivateHome) and, when the test ends, stops it and checks what it did: every line it
// wrote against era's official schema, every tool result against its
// tool's outputSchema, and its stderr and exit status for a data race.
func Spawn(tb testing.TB, bin string, era Era, env ...string) *Proc {
	tb.Helper()
	return SpawnArgs(tb, bin, era, nil, env...)
}

// SpawnArgs is Spawn with command-line arguments, such as "sandbox".
func SpawnArgs(tb testing.TB, bin string, era Era, args []string, env ...string) *Proc {
	tb.Helper()
	// Everything that can end the test comes before the process starts or
	// after its cleanup is registered, so no test leaves a server running.
	v := NewValidator(tb, era)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append([]string{"PATH=" + os.Getenv("PATH"), RaceEnv()}, PrivateHome(tb, env)...), env...)
	p := newProc(tb, era)
	p.cmd = cmd
	cmd.Stderr = lockedWriter{&p.mu, &p.stderr}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		p.Close()
		p.checkRace()
		p.validate(v)
	})
	return p
}

// PrivateHome is the environment that gives a server process a home of
// its own under tb.TempDir(), where env sets none: HOME, and LOCALAPPDATA
// on Windows. The server keeps per-user state in the user's cache
// directory by default (the send gate's record, the downloads): with the
// real home, one test's record would arm another's server, and a port
// reused by a later run would find an earlier run's.
func PrivateHome(tb testing.TB, env []string) []string {
	tb.Helper()
	set := func(name string) bool {
		return slices.ContainsFunc(env, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			return k == name || runtime.GOOS == "windows" && strings.EqualFold(k, name)
		})
	}
	var out []string
	home := ""
	if !set("HOME") {
		home = tb.TempDir()
		out = append(out, "HOME="+home)
	}
	if runtime.GOOS == "windows" && !set("LOCALAPPDATA") {
		if home == "" {
			home = tb.TempDir()
		}
		out = append(out, "LOCALAPPDATA="+filepath.Join(home, "AppData", "Local"))
	}
	return out
}

func newProc(tb testing.TB, era Era) *Proc {
	return &Proc{tb: tb, era: era, closing: make(chan struct{}), done: make(chan struct{})}
}

// Main is the server's main without the process (package main's run): it
// serves stdin and stdout with environ as its whole environment, logs to
// stderr, stops as on SIGTERM when ctx ends, and returns the exit status.
type Main func(ctx context.Context, args, environ []string, stdin io.Reader, stdout, stderr io.Writer) int

// Start runs the server in the test process, on in-memory pipes, with
// exactly env as its environment (plus PATH, and a HOME of its own so that
// servers running in parallel share no default download directory and no
// send gate record; see PrivateHome), and checks what it did as Spawn
// does: every line it wrote against era's official schema and
// every tool result against its tool's outputSchema. A data race in the
// server is the test binary's own, which the race detector reports.
// Start is for behaviour; Spawn is for what needs a process (signals, the
// ends of stdin and stdout, a crash, the exit status).
func Start(tb testing.TB, run Main, era Era, env ...string) *Proc {
	tb.Helper()
	v := NewValidator(tb, era)
	p := newProc(tb, era)
	environ := append(append([]string{"PATH=" + os.Getenv("PATH")}, PrivateHome(tb, env)...), env...)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p.stdin, p.stdout = inW, outR
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.returned = cancel, make(chan struct{})
	go func() {
		defer close(p.returned)
		p.code = run(ctx, nil, environ, inR, outW, lockedWriter{&p.mu, &p.stderr})
		// As when a process exits: its stdout ends, and writes to its
		// stdin fail.
		outW.Close()
		inR.CloseWithError(io.ErrClosedPipe)
	}()
	tb.Cleanup(func() {
		p.Close()
		cancel()
		p.validate(v)
	})
	return p
}

// inProcess reports whether p runs in the test process (Start).
func (p *Proc) inProcess() bool { return p.cmd == nil }

// needProcess fails the test when p runs in process: what calls it needs
// a process of its own (Spawn).
func (p *Proc) needProcess(what string) {
	p.tb.Helper()
	if p.inProcess() {
		p.tb.Fatalf("mcptest: %s needs a server process: use Spawn, not Start", what)
	}
}

// Code is the exit status run returned, once the server has stopped (in
// process only; for a process, see Wait).
func (p *Proc) Code() (code int, stopped bool) {
	select {
	case <-p.returned:
		return p.code, true
	default:
		return 0, false
	}
}

// Close ends the process by closing its stdin, as a host does, waits for
// it to exit (killing it after a generous wait) and closes the client
// sessions.
// Afterwards Stderr and Received are complete. It is called at the end of
// the test; calling it earlier is fine.
//
// When the test called a tool that no tools/list answer has shown, Close
// first lists the tools through the test's own go-sdk session or Raw
// connection, so that the result can be checked against the tool's
// outputSchema as that client sees it.
func (p *Proc) Close() {
	p.close.Do(func() {
		p.mu.Lock()
		sessions, raws := p.sessions, p.raws
		needList := replay(p.sent, p.received).needsListing()
		p.mu.Unlock()
		switch {
		case !needList:
		case len(sessions) > 0:
			listAll(sessions[len(sessions)-1])
		case len(raws) > 0:
			raws[len(raws)-1].listTools()
		}
		close(p.closing)
		p.stdin.Close()
		p.mu.Lock()
		drain := !p.attached
		p.mu.Unlock()
		if drain {
			go io.Copy(io.Discard, p.newLineReader())
		}
		if !p.exitWithin(10 * time.Second) {
			if p.inProcess() {
				p.cancel() // as SIGTERM: run cannot be killed
			} else {
				p.cmd.Process.Kill()
			}
			if !p.exitWithin(5 * time.Second) {
				// Nobody reads stdout to its end (a session's reader
				// stopped early), so nobody sees the exit: read it here.
				go io.Copy(io.Discard, p.newLineReader())
				if !p.exitWithin(30 * time.Second) {
					p.tb.Errorf("mcptest: the server is still running 45 s after its stdin closed\nstderr:\n%s", quote.Clip(p.Stderr(), 8000))
				}
			}
		}
		// The sessions saw stdout end; closing them now loses nothing.
		for _, cs := range sessions {
			cs.Close()
		}
	})
}

// exitWithin reports whether the process is seen to exit within d.
func (p *Proc) exitWithin(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) {
	p.tb.Helper()
	p.needProcess("Signal")
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.tb.Fatal(err)
	}
}

// CloseStdout closes the test's end of the server's stdout, as a client
// that goes away without closing stdin does: the server's next write to
// stdout fails. The readers attached to stdout see it end.
func (p *Proc) CloseStdout() {
	p.tb.Helper()
	if err := p.stdout.Close(); err != nil {
		p.tb.Fatal(err)
	}
}

// PingUntilExit sends pings on r until the process exits or d passes, and
// returns how it exited, or nil if it is still running. It is for a server
// that must notice, at its next write, that the client closed stdout
// (CloseStdout). One ping is not always enough in a test binary that starts
// processes in parallel: a child being started at that moment holds a copy
// of the pipe's read end until it runs its program, and a write in that
// window still succeeds. A ping that cannot be written means the process has
// closed stdin, so the pings stop there.
func (r *Raw) PingUntilExit(d time.Duration) *os.ProcessState {
	r.p.tb.Helper()
	deadline := time.Now().Add(d)
	for n := 1; time.Now().Before(deadline); n++ {
		if _, err := fmt.Fprintf(r.w, "{\"jsonrpc\":\"2.0\",\"id\":\"gone-%d\",\"method\":\"ping\"}\n", n); err != nil {
			return r.p.Wait(time.Until(deadline))
		}
		if st := r.p.Wait(min(time.Second, time.Until(deadline))); st != nil {
			return st
		}
	}
	return nil
}

// Wait waits up to d for the process to exit on its own, with its stdin
// still open, and returns how it exited, or nil if it is still running.
func (p *Proc) Wait(d time.Duration) *os.ProcessState {
	p.tb.Helper()
	p.needProcess("Wait")
	p.mu.Lock()
	drain := !p.attached
	p.mu.Unlock()
	if drain {
		go io.Copy(io.Discard, p.newLineReader())
	}
	select {
	case <-p.done:
		return p.cmd.ProcessState
	case <-time.After(d):
		return nil
	}
}

// PeakRSS is the running process's peak resident set so far, in bytes
// (VmHWM in /proc/<pid>/status; Linux only). The exited process's rusage
// is no use: Linux carries the parent's peak across fork and exec into it.
func (p *Proc) PeakRSS() int64 {
	p.tb.Helper()
	p.needProcess("PeakRSS")
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		p.tb.Fatalf("peak RSS: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err != nil {
				p.tb.Fatalf("peak RSS: %q: %v", line, err)
			}
			return kb << 10
		}
	}
	p.tb.Fatal("peak RSS: no VmHWM in /proc/<pid>/status")
	return 0
}

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Stderr returns everything the process has written to stderr so far.
func (p *Proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// Received returns every line the server has written to stdout so far.
func (p *Proc) Received() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.received))
	for i, l := range p.received {
		out[i] = string(l)
	}
	return out
}

func (p *Proc) record(dst *[][]byte, line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*dst = append(*dst, bytes.Clone(line))
}

// checkRace fails the test when the race detector reported a data race in
// the server: its report on stderr, or its exit status.
func (p *Proc) checkRace() {
	if p.inProcess() {
		return
	}
	stderr := p.Stderr()
	if i := strings.Index(stderr, "WARNING: DATA RACE"); i >= 0 {
		p.tb.Errorf("the server hit a data race:\n%s", quote.Clip(stderr[i:], 8000))
		return
	}
	if st := p.cmd.ProcessState; st != nil && st.ExitCode() == raceExitCode {
		p.tb.Errorf("the server exited with status %d, the race detector's\nstderr:\n%s", raceExitCode, quote.Clip(stderr, 8000))
	}
}

// validate checks every line the server wrote against the era's schema
// (unless v is nil: the schema is missing outside CI) and every tool result
// against its tool's outputSchema.
func (p *Proc) validate(v *Validator) {
	p.mu.Lock()
	sent, received, partial := p.sent, p.received, p.partial
	p.mu.Unlock()
	if partial {
		p.tb.Errorf("the server's stdout ended inside a line (%s)", p.era)
	}
	s := replay(sent, received)
	if v != nil {
		for _, err := range s.checkMessages(v) {
			p.tb.Errorf("%v", err)
		}
	}
	for _, err := range s.checkOutputs() {
		p.tb.Errorf("%s (%s)", err, p.era)
	}
}

// recordingWriter forwards to the server's stdin, recording each line.
type recordingWriter struct {
	p   *Proc
	buf []byte
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.p.record(&w.p.sent, w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	return w.p.stdin.Write(b)
}

func (w *recordingWriter) Close() error { return w.p.stdin.Close() }

// lineReader yields the server's stdout, recording each line. When stdout
// ends it waits for the process and marks it done.
type lineReader struct {
	p  *Proc
	r  *bufio.Reader
	in []byte
}

func (p *Proc) newLineReader() *lineReader {
	p.mu.Lock()
	p.attached = true
	p.mu.Unlock()
	return &lineReader{p: p, r: bufio.NewReaderSize(p.stdout, 1<<20)}
}

func (l *lineReader) Read(b []byte) (int, error) {
	for len(l.in) == 0 {
		line, err := l.r.ReadBytes('\n')
		if err != nil && len(line) > 0 {
			l.p.mu.Lock()
			l.p.partial = true
			l.p.mu.Unlock()
		}
		if len(line) > 0 {
			l.p.record(&l.p.received, bytes.TrimRight(line, "\r\n"))
			l.in = line
		}
		if err != nil {
			if len(l.in) == 0 {
				l.finish()
				return 0, err
			}
			break
		}
	}
	n := copy(b, l.in)
	l.in = l.in[n:]
	return n, nil
}

// finish waits for the process once its stdout has ended; with more than
// one reader (see Close), the first to see the end does.
func (l *lineReader) finish() {
	l.p.exited.Do(func() {
		if l.p.inProcess() {
			<-l.p.returned
		} else {
			l.p.cmd.Wait()
		}
		close(l.p.done)
	})
}

func (l *lineReader) Close() error { return l.p.stdout.Close() }

// Connect attaches the official go-sdk client to the process, in the
// process's era, and lists the tools through it (the harness's only request
// of its own, for the outputSchema check). opts may be nil.
func (p *Proc) Connect(opts *mcp.ClientOptions) *mcp.ClientSession {
	p.tb.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "snowluma-mcp-e2e", Version: "1"}, opts)
	t := &mcp.IOTransport{Reader: p.newLineReader(), Writer: &recordingWriter{p: p}}
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	defer cancel()
	cs, err := c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: string(p.era)})
	if err != nil {
		p.tb.Fatalf("connect (%s): %v\nstderr:\n%s", p.era, err, p.Stderr())
	}
	// Close closes the session, after using it to list the tools.
	p.mu.Lock()
	p.sessions = append(p.sessions, cs)
	p.mu.Unlock()
	if got := cs.InitializeResult().ProtocolVersion; got != string(p.era) {
		p.tb.Fatalf("negotiated %s, want %s", got, p.era)
	}
	// The tools as this client sees them, for the outputSchema check: a
	// test may close the session before Close could list them.
	listAll(cs)
	return cs
}

// A Raw connection exchanges hand-written JSON-RPC lines with the process.
type Raw struct {
	p     *Proc
	w     *recordingWriter
	lines chan []byte
	err   error // why the lines ended early, set before lines is closed
}

// Raw attaches a raw line connection to the process.
func (p *Proc) Raw() *Raw {
	r := &Raw{p: p, w: &recordingWriter{p: p}, lines: make(chan []byte, 64)}
	p.mu.Lock()
	p.raws = append(p.raws, r)
	p.mu.Unlock()
	lr := p.newLineReader()
	// The reader never touches the test (only the test's goroutine may end
	// it); once the test stops reading (Close) it drains what is left, so
	// the process can finish writing and exit.
	go func() {
		sc := bufio.NewScanner(lr)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
	scan:
		for sc.Scan() {
			select {
			case r.lines <- bytes.Clone(sc.Bytes()):
			case <-p.closing:
				break scan
			}
		}
		r.err = sc.Err()
		close(r.lines)
		io.Copy(io.Discard, lr)
	}()
	return r
}

// listID is the id of the tools/list request Close sends through a Raw
// connection.
const listID = `"mcptest-tools-list"`

// listTools sends tools/list as the test's last tools/call was sent (with
// its _meta, which carries a 2026-07-28 client's capabilities) and waits
// for the answer, passing over the lines the test left unread; all of
// them are recorded. A failure leaves checkOutputs without a listing, and
// it says so.
func (r *Raw) listTools() {
	r.p.mu.Lock()
	meta := lastCallMeta(r.p.sent)
	r.p.mu.Unlock()
	params := "{}"
	if meta != nil {
		params = `{"_meta":` + string(meta) + `}`
	}
	if _, err := r.w.Write([]byte(`{"jsonrpc":"2.0","id":` + listID + `,"method":"tools/list","params":` + params + "}\n")); err != nil {
		return
	}
	timeout := time.After(Patience)
	for {
		select {
		case line, ok := <-r.lines:
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if !ok || json.Unmarshal(line, &m) == nil && string(m.ID) == listID {
				return
			}
		case <-timeout:
			return
		}
	}
}

// lastCallMeta returns the _meta of the last tools/call among the sent
// lines, or nil.
func lastCallMeta(sent [][]byte) json.RawMessage {
	for i := len(sent) - 1; i >= 0; i-- {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Meta json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(sent[i], &m) == nil && m.Method == "tools/call" {
			return m.Params.Meta
		}
	}
	return nil
}

// Send writes one message.
func (r *Raw) Send(msg string) {
	r.p.tb.Helper()
	if strings.ContainsRune(msg, '\n') {
		r.p.tb.Fatal("raw message holds a newline")
	}
	if _, err := r.w.Write([]byte(msg + "\n")); err != nil {
		r.p.tb.Fatal(err)
	}
}

// Next returns the next line the server writes, failing after a generous
// wait so that a hung server fails the test instead of the run.
func (r *Raw) Next() map[string]any {
	r.p.tb.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			r.p.tb.Fatalf("server closed stdout (%v)\nstderr:\n%s", r.err, r.p.Stderr())
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			r.p.tb.Fatalf("server wrote a line that is not JSON: %q", line)
		}
		return m
	case <-time.After(Patience):
		r.p.tb.Fatalf("no answer from the server\nstderr:\n%s", r.p.Stderr())
	}
	return nil
}

// Call sends a request and returns the response with the same id, skipping
// notifications.
func (r *Raw) Call(id int, method string, params string) map[string]any {
	r.p.tb.Helper()
	r.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	deadline := time.Now().Add(Patience)
	for {
		if time.Now().After(deadline) {
			r.p.tb.Fatalf("no answer to request %d (%s) among the server's messages\nstderr:\n%s", id, method, r.p.Stderr())
		}
		m := r.Next()
		if got, ok := m["id"].(float64); ok && int(got) == id {
			return m
		}
	}
}

// ModernMeta is the _meta of a 2026-07-28 request at version v with no
// client capabilities.
func ModernMeta(v string) string {
	return fmt.Sprintf(`{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`, v)
}

// Kill ends the process with SIGKILL, as a crash or an OOM kill would, and
// waits for it to exit.
func (p *Proc) Kill() {
	p.tb.Helper()
	p.needProcess("Kill")
	p.cmd.Process.Kill()
	p.Close()
}

// Pid is the process id.
func (p *Proc) Pid() int {
	p.tb.Helper()
	p.needProcess("Pid")
	return p.cmd.Process.Pid
}
