package server_test

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/internal/mcptest"
	"github.com/snowluma/snowluma-mcp/internal/mcptest/e2e"
	"github.com/snowluma/snowluma-mcp/internal/simulator"
)

var traceparentRE = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// tracedCall calls a tool with meta and returns the result's traceparent
// split into trace id, span id and flags.
func tracedCall(t *testing.T, cs *mcp.ClientSession, name string, args any, meta mcp.Meta) (*mcp.CallToolResult, [3]string) {
	t.Helper()
	res, err := cs.CallTool(mcptest.Context(t), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	tp, _ := res.Meta["traceparent"].(string)
	m := traceparentRE.FindStringSubmatch(tp)
	if m == nil {
		t.Fatalf("%s: result _meta.traceparent %q is not a W3C traceparent", name, tp)
	}
	return res, [3]string{m[1], m[2], m[3]}
}

// requestFor finds the request the fake received under trace id.
func requestFor(t *testing.T, fake *simulator.Server, traceID string) simulator.Recorded {
	t.Helper()
	for _, r := range fake.Requests() {
		if strings.Contains(r.Header.Get("traceparent"), "-"+traceID+"-") {
			return r
		}
	}
	t.Fatalf("no request carried trace %s", traceID)
	return simulator.Recorded{}
}

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
	parent      = "00-" + parentTrace + "-" + parentSpan + "-01"
)

func TestTraceContext(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, p, cs := e2e.Live(t, serve, era, "write", nil)

		// A caller's trace continues with a new span, and reaches SnowLuma
		// in headers, never in the params.
		res, tp := tracedCall(t, cs, "query_action", map[string]any{"action": "get_status"},
			mcp.Meta{"traceparent": parent, "tracestate": "vendor=abc, other=xyz", "baggage": "user=alice"})
		if tp[0] != parentTrace || tp[1] == parentSpan || tp[2] != "01" {
			t.Errorf("traceparent %v: want trace %s kept, a new span, flags 01", tp, parentTrace)
		}
		req := requestFor(t, fake, parentTrace)
		if got := req.Header.Get("traceparent"); got != res.Meta["traceparent"] {
			t.Errorf("forwarded traceparent %q, result says %q", got, res.Meta["traceparent"])
		}
		if got := req.Header.Get("tracestate"); got != "vendor=abc,other=xyz" {
			t.Errorf("forwarded tracestate %q", got)
		}
		if req.Header.Get("baggage") != "" {
			t.Error("baggage forwarded")
		}
		if strings.Contains(string(req.Params), "trace") || strings.Contains(string(req.Params), "baggage") {
			t.Errorf("trace data in the params: %s", req.Params)
		}

		// Without a parent every call starts its own trace.
		_, a := tracedCall(t, cs, "query_action", map[string]any{"action": "get_status"}, nil)
		_, b := tracedCall(t, cs, "list_categories", nil, nil)
		if a[0] == b[0] || a[0] == parentTrace {
			t.Errorf("independent calls share trace %s", a[0])
		}
		if got := requestFor(t, fake, a[0]).Header.Get("tracestate"); got != "" {
			t.Errorf("tracestate %q on a fresh trace", got)
		}

		// A tool error carries its traceparent too.
		res, tp = tracedCall(t, cs, "query_action", map[string]any{"action": "no_such_action"}, mcp.Meta{"traceparent": parent})
		if !res.IsError || tp[0] != parentTrace {
			t.Errorf("tool error: isError=%v trace %v", res.IsError, tp)
		}

		// Invalid metadata never fails a call: a bad traceparent starts a
		// new trace, an over-long tracestate is dropped.
		res, tp = tracedCall(t, cs, "query_action", map[string]any{"action": "get_status"}, mcp.Meta{"traceparent": "00-XYZ-bad-01", "tracestate": "a=1"})
		if res.IsError || tp[0] == parentTrace {
			t.Errorf("invalid traceparent: isError=%v trace %v", res.IsError, tp)
		}
		if got := requestFor(t, fake, tp[0]).Header.Get("tracestate"); got != "" {
			t.Errorf("tracestate %q forwarded without a valid parent", got)
		}
		long := "k=" + strings.Repeat("v", 600)
		res, tp = tracedCall(t, cs, "query_action", map[string]any{"action": "get_status"}, mcp.Meta{"traceparent": parent, "tracestate": long})
		if res.IsError || tp[0] != parentTrace {
			t.Errorf("long tracestate: isError=%v trace %v", res.IsError, tp)
		}
		for _, r := range fake.Requests() {
			if len(r.Header.Get("tracestate")) > 512 {
				t.Error("over-long tracestate forwarded")
			}
		}

		p.Close()
		stderr := p.Stderr()
		if n := strings.Count(stderr, "invalid traceparent ignored; started a new trace"); n != 1 {
			t.Errorf("%d fixed traceparent diagnostics, want 1", n)
		}
		if n := strings.Count(stderr, "tracestate over 512 characters or 32 members ignored"); n != 1 {
			t.Errorf("%d fixed tracestate diagnostics, want 1", n)
		}
		for _, never := range []string{"vendor=abc", "user=alice", "00-XYZ-bad-01", long[:40]} {
			if strings.Contains(stderr, never) {
				t.Errorf("stderr carries %q", never)
			}
		}
		if !strings.Contains(stderr, "traceparent="+fmt.Sprint(res.Meta["traceparent"])) {
			t.Error("the call's log line lacks its traceparent")
		}
	})
}

func TestConcurrentTraces(t *testing.T) {
	t.Parallel()
	mcptest.ForEachEra(t, func(t *testing.T, era mcptest.Era) {
		fake, _, cs := e2e.Live(t, serve, era, "read", nil)
		const n = 24
		var wg sync.WaitGroup
		results := make([]string, n)
		c := mcptest.Context(t) // made here: the goroutines touch t only through Error
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				traceID := fmt.Sprintf("%032x", i+1)
				res, err := cs.CallTool(c, &mcp.CallToolParams{
					Name:      "query_action",
					Arguments: map[string]any{"action": "get_status"},
					Meta:      mcp.Meta{"traceparent": "00-" + traceID + "-" + parentSpan + "-01", "tracestate": fmt.Sprintf("call=%d", i)},
				})
				if err != nil {
					t.Error(err)
					return
				}
				results[i], _ = res.Meta["traceparent"].(string)
			}()
		}
		wg.Wait()
		for i, tp := range results {
			traceID := fmt.Sprintf("%032x", i+1)
			if !strings.Contains(tp, traceID) {
				t.Errorf("call %d: result traceparent %q", i, tp)
				continue
			}
			req := requestFor(t, fake, traceID)
			if req.Header.Get("traceparent") != tp || req.Header.Get("tracestate") != fmt.Sprintf("call=%d", i) {
				t.Errorf("call %d: forwarded %q %q, want %q call=%d", i, req.Header.Get("traceparent"), req.Header.Get("tracestate"), tp, i)
			}
		}
	})
}
