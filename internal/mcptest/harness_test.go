package mcptest_test

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/reference"
	"github.com/snowluma/snowluma-mcp/internal/testexit"
)

// bin is the snowluma-mcp binary under test, built once by TestMain.
var bin string

// childEnv makes this test binary act as a misbehaving MCP server instead
// of running tests, for TestBadOutputFailsTheTest.
const childEnv = "MCPTEST_HARNESS_CHILD"

// builtEnv hands the server binary TestMain built to the test binary run
// again by TestWithoutShared, which uses it (mcptest.Built) rather than
// build the same binary again.
const builtEnv = "MCPTEST_HARNESS_BUILT"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "bad-output" {
		os.Exit(serveBadOutput())
	}
	dir, err := os.MkdirTemp("", "snowluma-mcp-harness")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if built := os.Getenv(builtEnv); built != "" {
		bin = mcptest.Built(built)
	} else if bin, err = mcptest.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	testexit.End(code)
}

// TestProbeEndToEnd is an end-to-end case in both eras: TestWithoutShared
// runs it again in a child process with ../shared hidden.
func TestProbeEndToEnd(t *testing.T) {
	t.Parallel()
	for _, era := range []mcptest.Era{mcptest.Modern, mcptest.Legacy} {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			cs := mcptest.Spawn(t, bin, era).Connect(nil)
			for _, tool := range []string{"list_categories", "get_runtime_info"} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				if res.IsError || res.StructuredContent == nil {
					t.Fatalf("%s: isError=%v, structuredContent %v", tool, res.IsError, res.StructuredContent)
				}
			}
			t.Logf("probe: the server answered list_categories and get_runtime_info (%s)", era)
		})
	}
}

// TestWithoutShared runs TestProbeEndToEnd in a child process whose
// ../shared is an empty directory: outside CI the end-to-end case runs
// (only the schema check is skipped, said once), under CI=true it fails.
func TestWithoutShared(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	run := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProbeEndToEnd$", "-test.v", "-test.count=1")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, reference.EnvShared+"=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, reference.EnvShared+"="+empty, "CI="+ci, builtEnv+"="+bin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// The two children are independent: run them at once (each spends
	// most of its time waiting for its servers).
	type result struct {
		out string
		err error
	}
	underCI := make(chan result, 1)
	go func() {
		out, err := run("true")
		underCI <- result{out, err}
	}()

	out, err := run("")
	if err != nil {
		t.Fatalf("without ../shared, outside CI: %v\n%s", err, out)
	}
	for _, want := range []string{"--- PASS: TestProbeEndToEnd/" + string(mcptest.Modern), "--- PASS: TestProbeEndToEnd/" + string(mcptest.Legacy), "probe: the server answered"} {
		if !strings.Contains(out, want) {
			t.Errorf("outside CI, the output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "schema check skipped"); n != 1 {
		t.Errorf("outside CI, the skipped schema check is reported %d times, want once:\n%s", n, out)
	}
	if strings.Contains(out, "--- SKIP") {
		t.Errorf("outside CI, a test was skipped:\n%s", out)
	}

	ci := <-underCI
	out, err = ci.out, ci.err
	if err == nil {
		t.Fatalf("without ../shared, under CI=true: the tests passed\n%s", out)
	}
	if !strings.Contains(out, "--- FAIL: TestProbeEndToEnd") || !strings.Contains(out, "schema check cannot run") {
		t.Errorf("under CI=true, the failure does not say why:\n%s", out)
	}
	if strings.Contains(out, "probe: the server answered") {
		t.Errorf("under CI=true, the case ran without the schema check:\n%s", out)
	}
}

// TestSkippedTestStopsServer skips a subtest after it spawned a server and
// connected to it: the server must be gone when the subtest is over.
func TestSkippedTestStopsServer(t *testing.T) {
	t.Parallel()
	var p *mcptest.Proc
	t.Run("skipped", func(t *testing.T) {
		p = mcptest.Spawn(t, bin, mcptest.Modern)
		p.Connect(nil)
		t.Skip("skipped on purpose, after spawning a server: the parent test checks that it stopped")
	})
	if p == nil || !p.Exited() {
		t.Fatal("the skipped subtest left its server running")
	}
}

// TestFailedSpawnStartsNothing hides ../shared under CI, where Spawn must
// end the test: it does so before starting anything, so that no server is
// left running. The "server" is a shell script that reads its stdin until it closes.
func TestFailedSpawnStartsNothing(t *testing.T) {
	script := filepath.Join(t.TempDir(), "server.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nwhile read -r line; do :; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(reference.EnvShared, t.TempDir())
	t.Setenv("CI", "true")
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { // r.Fatalf ends this goroutine, not the test
		defer close(done)
		mcptest.Spawn(r, script, mcptest.Modern)
	}()
	<-done
	errs := r.end()
	if !strings.Contains(errs, "schema check cannot run") {
		t.Errorf("Spawn under CI without ../shared: errors %q", errs)
	}
	// cmd.Start returns once the child exists, so a started server would
	// be a child of this process now.
	for _, pid := range children(t, script) {
		t.Errorf("Spawn left process %d (%s) running", pid, script)
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// children returns the child processes of this process whose command line
// mentions what.
func children(t *testing.T, what string) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Fatalf("listing processes in /proc: %v", err)
	}
	var pids []int
	for _, stat := range stats {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces, so split after ')'.
		var ppid int
		var state string
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		if _, err := fmt.Sscan(string(b[i+1:]), &state, &ppid); err != nil || ppid != os.Getpid() {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(stat), "cmdline"))
		if strings.Contains(string(cmdline), what) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestServerBuiltWithRace checks that the binary Build made carries the
// race detector exactly when the tests do.
func TestServerBuiltWithRace(t *testing.T) {
	t.Parallel()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	race := false
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			race = true
		}
	}
	if race != mcptest.RaceEnabled {
		t.Fatalf("server binary -race=%v, tests -race=%v", race, mcptest.RaceEnabled)
	}
	if race {
		t.Log("server binary built with -race")
	} else {
		t.Log("server binary built without -race (the tests run without it)")
	}
}

// recorder stands in for a test whose failures are the point: it records
// errors and runs cleanups when told, passing everything else to t.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

// Fatalf records the failure and ends the goroutine, as t.Fatalf does; a
// test calls what may reach it in a goroutine of its own.
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// end runs the cleanups, last first, as a test's end does, and returns
// the errors recorded.
func (r *recorder) end() string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// racySource is a program with a data race that, like the server, runs
// until its stdin closes.
const racySource = `package main

import (
	"io"
	"os"
)

func main() {
	n := 0
	done := make(chan bool)
	go func() { n++; done <- true }()
	n++
	<-done
	io.Copy(io.Discard, os.Stdin)
}
`

// TestRaceInServerFails spawns a racy program built with -race as if it
// were the server: the test that spawned it must fail and say why. It runs
// under go test -race, as CI does.
func TestRaceInServerFails(t *testing.T) {
	t.Parallel()
	if !mcptest.RaceEnabled {
		// Building with -race needs cgo and a C compiler, which a run
		// without -race may lack.
		if reference.UnderCI() {
			t.Fatal("CI runs the tests with -race; this one needs it")
		}
		t.Skip("run with go test -race to include this test")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module racy\n\ngo 1.21\n", "main.go": racySource} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	racy := filepath.Join(dir, "racy")
	build := exec.Command("go", "build", "-race", "-o", racy, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -race: %v\n%s", err, out)
	}
	r := &recorder{TB: t}
	p := mcptest.Spawn(r, racy, mcptest.Modern)
	if errs := r.end(); !strings.Contains(errs, "the server hit a data race") {
		t.Fatalf("a race in the server did not fail the test; errors: %q\nstderr:\n%s", errs, p.Stderr())
	}
}

// TestBadOutputFailsTheTest spawns a server whose tool answers with
// structuredContent that its own outputSchema refuses: the test that
// called the tool must fail, in both eras.
func TestBadOutputFailsTheTest(t *testing.T) {
	t.Parallel()
	for _, era := range []mcptest.Era{mcptest.Modern, mcptest.Legacy} {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			r := &recorder{TB: t}
			cs := mcptest.Spawn(r, os.Args[0], era, childEnv+"=bad-output").Connect(nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "count"})
			if err != nil || res.StructuredContent == nil {
				t.Fatalf("count: %v %+v", err, res)
			}
			errs := r.end()
			if !strings.Contains(errs, "tools/call count: structuredContent fails the outputSchema of count") {
				t.Fatalf("a result outside its outputSchema did not fail the test; errors: %q", errs)
			}
		})
	}
}

// TestRawCallsAreChecked calls a tool over a Raw connection that never
// lists the tools: Close lists them through that connection, and the
// result is checked against list_categories' outputSchema.
func TestRawCallsAreChecked(t *testing.T) {
	t.Parallel()
	r := &recorder{TB: t}
	p := mcptest.Spawn(r, bin, mcptest.Modern)
	res := p.Raw().Call(1, "tools/call", `{"name":"list_categories","arguments":{},"_meta":`+mcptest.ModernMeta("2026-07-28")+`}`)
	if _, ok := res["result"]; !ok {
		t.Fatalf("list_categories: %v", res)
	}
	if errs := r.end(); errs != "" {
		t.Fatalf("errors: %s", errs)
	}
	listed := false
	for _, l := range p.Received() {
		if strings.Contains(l, `"id":"mcptest-tools-list"`) && strings.Contains(l, `"name":"list_categories"`) && strings.Contains(l, `"outputSchema"`) {
			listed = true
		}
	}
	if !listed {
		t.Error("Close did not list the tools through the Raw connection")
	}
}

// TestStartBadOutputFailsTheTest runs the bad-output server in process
// (Start): its result outside the outputSchema fails the test as the
// process's does, and the server has stopped when the test is over.
func TestStartBadOutputFailsTheTest(t *testing.T) {
	t.Parallel()
	for _, era := range []mcptest.Era{mcptest.Modern, mcptest.Legacy} {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			r := &recorder{TB: t}
			p := mcptest.Start(r, badOutputMain, era)
			res, err := p.Connect(nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "count"})
			if err != nil || res.StructuredContent == nil {
				t.Fatalf("count: %v %+v", err, res)
			}
			errs := r.end()
			if !strings.Contains(errs, "tools/call count: structuredContent fails the outputSchema of count") {
				t.Fatalf("a result outside its outputSchema did not fail the test; errors: %q", errs)
			}
			if code, stopped := p.Code(); !stopped || code != 0 {
				t.Errorf("after the test: stopped %v, exit status %d", stopped, code)
			}
		})
	}
}

// badOutputMain is the bad-output server as an mcptest.Main.
func badOutputMain(ctx context.Context, _, _ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := badOutputServer().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopCloser{stdout}})
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// serveBadOutput serves badOutputServer over stdio.
func serveBadOutput() int {
	if err := badOutputServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// badOutputServer serves one tool whose result breaks its outputSchema:
// count promises an integer and answers a string.
func badOutputServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bad-output", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{
		Name:         "count",
		Description:  "Answers a count that breaks its own outputSchema.",
		InputSchema:  map[string]any{"type": "object"},
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"count": map[string]any{"type": "integer"}}, "required": []any{"count"}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: `{"count":"three"}`}},
			StructuredContent: map[string]any{"count": "three"},
		}, nil
	})
	return s
}

// TestRaceEnv: a started process skips the detector's second at exit and
// keeps the options the test run was given, a delay it sets included.
func TestRaceEnv(t *testing.T) {
	for _, tc := range []struct{ gorace, want string }{
		{"", "GORACE=atexit_sleep_ms=0"},
		{"halt_on_error=1", "GORACE=halt_on_error=1 atexit_sleep_ms=0"},
		{"atexit_sleep_ms=500 halt_on_error=1", "GORACE=atexit_sleep_ms=500 halt_on_error=1"},
	} {
		t.Setenv("GORACE", tc.gorace)
		if got := mcptest.RaceEnv(); got != tc.want {
			t.Errorf("GORACE=%q: %q, want %q", tc.gorace, got, tc.want)
		}
	}
}

// TestPrivateHome: a server gets a HOME of its own, never the tester's,
// unless the test gives it one.
func TestPrivateHome(t *testing.T) {
	t.Parallel()
	got := mcptest.PrivateHome(t, []string{"SNOWLUMA_MCP_MODE=write"})
	if len(got) == 0 || !strings.HasPrefix(got[0], "HOME=") || got[0] == "HOME="+os.Getenv("HOME") {
		t.Errorf("without a HOME: %q", got)
	}
	if runtime.GOOS != "windows" {
		if got := mcptest.PrivateHome(t, []string{"HOME=/given"}); len(got) != 0 {
			t.Errorf("the test's HOME was replaced: %q", got)
		}
	}
}
