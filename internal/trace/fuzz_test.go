package trace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	otrace "go.opentelemetry.io/otel/trace"
)

// The fuzz targets check Start against reference parsers written straight
// from the W3C grammar with regular expressions, independent of the
// byte-level code in parse.go.

var refTraceparent = regexp.MustCompile(`(?s)^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$`)

// refParent reports whether s is a valid traceparent, and the flags a call
// should keep from it.
func refParent(s string) (flags string, ok bool) {
	m := refTraceparent.FindStringSubmatch(s)
	if m == nil || m[1] == "ff" || m[1] == "00" && m[5] != "" ||
		m[2] == strings.Repeat("0", 32) || m[3] == strings.Repeat("0", 16) {
		return "", false
	}
	if m[1] != "00" {
		f, _ := strconv.ParseUint(m[4], 16, 8)
		return fmt.Sprintf("%02x", f&1), true // only the sampled bit
	}
	return m[4], true
}

const (
	refKey   = `(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})`
	refValue = `[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]`
)

var refMember = regexp.MustCompile(`^(` + refKey + `)=` + refValue + `$`)

// refTracestate returns the normalised tracestate and the problem with it.
func refTracestate(s string) (string, Problem) {
	if len(s) > 512 {
		return "", ProblemTracestateSize
	}
	var members []string
	for _, m := range strings.Split(s, ",") {
		if m = strings.Trim(m, " \t"); m != "" {
			members = append(members, m)
		}
	}
	if len(members) > 32 {
		return "", ProblemTracestateSize
	}
	seen := make(map[string]bool)
	for _, m := range members {
		sub := refMember.FindStringSubmatch(m)
		if sub == nil || seen[sub[1]] {
			return "", ProblemTracestate
		}
		seen[sub[1]] = true
	}
	return strings.Join(members, ","), ""
}

func FuzzTraceparent(f *testing.F) {
	for _, s := range []string{
		validParent,
		"00-" + parentTrace + "-" + parentSpan + "-00",
		"01-" + parentTrace + "-" + parentSpan + "-03-more",
		"ff-" + parentTrace + "-" + parentSpan + "-01",
		"00-" + strings.ToUpper(parentTrace) + "-" + parentSpan + "-01",
		"00-" + strings.Repeat("0", 32) + "-" + parentSpan + "-01",
		validParent + "-",
		"",
		"00-",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, problem := Start(map[string]any{"traceparent": s, "tracestate": "a=1"})
		tp := c.Traceparent()
		checkTraceparent(t, tp)

		flags, ok := refParent(s)
		if !ok {
			if problem != ProblemTraceparent {
				t.Fatalf("Start(%q) problem = %q, want %q", s, problem, ProblemTraceparent)
			}
			if tp[53:] != "01" || c.Tracestate() != "" {
				t.Fatalf("Start(%q) = %q, %q; want a new sampled trace without state", s, tp, c.Tracestate())
			}
			return
		}
		if problem != "" {
			t.Fatalf("Start(%q) problem = %q, want none", s, problem)
		}
		if tp[3:35] != s[3:35] || tp[53:] != flags || tp[36:52] == s[36:52] {
			t.Fatalf("Start(%q) = %q; want trace id and flags %s kept, a new span id", s, tp, flags)
		}
		if c.Tracestate() != "a=1" {
			t.Fatalf("Start(%q) lost the tracestate", s)
		}
	})
}

func FuzzTracestate(f *testing.F) {
	for _, s := range []string{
		"",
		"a=1",
		" a=1 ,\t,b=2 ,",
		"t@s=x y,0t@s=!~",
		"a=1,a=2",
		"A=1",
		"a=",
		"a=b=c",
		members(32),
		members(33),
		"a=" + strings.Repeat("x", 254) + ",b=" + strings.Repeat("x", 253),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, problem := Start(map[string]any{"traceparent": validParent, "tracestate": s})
		checkTraceparent(t, c.Traceparent())
		got := c.Tracestate()

		want, wantProblem := refTracestate(s)
		if got != want || problem != wantProblem {
			t.Fatalf("Start(tracestate %q) = %q, %q; want %q, %q", s, got, problem, want, wantProblem)
		}
		if got == "" {
			return
		}
		// Valid output re-parses to itself, here and in otel, and within
		// the limits.
		again, p := parseTracestate(got)
		if p != "" || again.String() != got {
			t.Fatalf("tracestate %q re-parses to %q, %q", got, again.String(), p)
		}
		ts, err := otrace.ParseTraceState(got)
		if err != nil || ts.String() != got {
			t.Fatalf("otel parses %q to %q, %v", got, ts.String(), err)
		}
		if len(got) > MaxTracestateLen || ts.Len() > MaxTracestateMembers {
			t.Fatalf("tracestate %q over the limits", got)
		}
		if h := c.Header(); h.Get("tracestate") != got {
			t.Fatalf("Header() tracestate = %q, want %q", h.Get("tracestate"), got)
		}
	})
}
