package trace

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	otrace "go.opentelemetry.io/otel/trace"
)

const (
	parentTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	parentSpan  = "00f067aa0ba902b7"
	validParent = "00-" + parentTrace + "-" + parentSpan + "-01"
)

// w3c00 matches a version 00 traceparent; ids must also not be all zeros.
var w3c00 = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// checkTraceparent fails t unless tp is a valid version 00 traceparent.
func checkTraceparent(t *testing.T, tp string) {
	t.Helper()
	if !w3c00.MatchString(tp) || tp[3:35] == strings.Repeat("0", 32) || tp[36:52] == strings.Repeat("0", 16) {
		t.Fatalf("Traceparent() = %q, not a valid version 00 traceparent", tp)
	}
	if _, ok := parseTraceparent(tp); !ok {
		t.Fatalf("Traceparent() = %q does not re-parse", tp)
	}
}

func TestStartTraceparent(t *testing.T) {
	tests := []struct {
		name  string
		value any
		// flags is the expected trace-flags when value is a valid parent;
		// "" means value is invalid.
		flags string
	}{
		{"sampled", validParent, "01"},
		{"not sampled", "00-" + parentTrace + "-" + parentSpan + "-00", "00"},
		{"version 00 keeps every flag", "00-" + parentTrace + "-" + parentSpan + "-ff", "ff"},
		{"version 00 random flag", "00-" + parentTrace + "-" + parentSpan + "-03", "03"},
		{"future version, exact length", "01-" + parentTrace + "-" + parentSpan + "-01", "01"},
		{"future version, more fields", "cc-" + parentTrace + "-" + parentSpan + "-01-what-the-future-holds", "01"},
		{"future version, trailing dash", "fe-" + parentTrace + "-" + parentSpan + "-01-", "01"},
		{"future version keeps only sampled", "02-" + parentTrace + "-" + parentSpan + "-ff", "01"},
		{"future version drops other flags", "02-" + parentTrace + "-" + parentSpan + "-02", "00"},
		{"mixed hex digits", "00-0123456789abcdef0123456789abcdef-fedcba9876543210-01", "01"},

		{"empty", "", ""},
		{"too short", validParent[:54], ""},
		{"version 00 too long", validParent + "-", ""},
		{"version 00 trailing space", validParent + " ", ""},
		{"leading space", " " + validParent, ""},
		{"version ff", "ff-" + parentTrace + "-" + parentSpan + "-01", ""},
		{"version ff longer", "ff-" + parentTrace + "-" + parentSpan + "-01-00", ""},
		{"uppercase version", "0A-" + parentTrace + "-" + parentSpan + "-01", ""},
		{"non-hex version", "0g-" + parentTrace + "-" + parentSpan + "-01", ""},
		{"uppercase trace id", "00-" + strings.ToUpper(parentTrace) + "-" + parentSpan + "-01", ""},
		{"one uppercase digit", "00-4BF92f3577b34da6a3ce929d0e0e4736-" + parentSpan + "-01", ""},
		{"uppercase parent id", "00-" + parentTrace + "-00F067AA0BA902B7-01", ""},
		{"uppercase flags", "00-" + parentTrace + "-" + parentSpan + "-0A", ""},
		{"non-hex trace id", "00-" + parentTrace[:31] + "g-" + parentSpan + "-01", ""},
		{"non-hex parent id", "00-" + parentTrace + "-" + parentSpan[:15] + "x-01", ""},
		{"non-hex flags", "00-" + parentTrace + "-" + parentSpan + "-0x", ""},
		{"all-zero trace id", "00-" + strings.Repeat("0", 32) + "-" + parentSpan + "-01", ""},
		{"all-zero parent id", "00-" + parentTrace + "-" + strings.Repeat("0", 16) + "-01", ""},
		{"all-zero ids, future version", "01-" + strings.Repeat("0", 32) + "-" + parentSpan + "-01", ""},
		{"future version, no dash after flags", "01-" + parentTrace + "-" + parentSpan + "-01x", ""},
		{"future version, flags longer", "01-" + parentTrace + "-" + parentSpan + "-0100", ""},
		{"underscore separators", "00_" + parentTrace + "_" + parentSpan + "_01", ""},
		{"short trace id", "00-" + parentTrace[:31] + "-" + parentSpan + "-01a", ""},
		{"long trace id", "00-" + parentTrace + "0-" + parentSpan[:15] + "-01", ""},
		{"no separators", "00" + parentTrace + parentSpan + "01---", ""},
		{"NUL inside", "00-" + parentTrace + "-" + parentSpan + "-0\x00", ""},
		{"non-ASCII", "00-" + parentTrace[:30] + "é-" + parentSpan + "-01", ""},
		{"number", 1.0, ""},
		{"bool", true, ""},
		{"null", nil, ""},
		{"bytes", []byte(validParent), ""},
		{"object", map[string]any{"traceparent": validParent}, ""},
		{"array", []any{validParent}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, problem := Start(map[string]any{"traceparent": tt.value})
			tp := c.Traceparent()
			checkTraceparent(t, tp)
			if tt.flags == "" {
				if problem != ProblemTraceparent {
					t.Errorf("problem = %q, want %q", problem, ProblemTraceparent)
				}
				if tp[3:35] == parentTrace {
					t.Errorf("Traceparent() = %q kept the rejected trace id", tp)
				}
				if tp[53:] != "01" {
					t.Errorf("Traceparent() = %q, want flags 01 for a new trace", tp)
				}
				return
			}
			if problem != "" {
				t.Errorf("problem = %q, want none", problem)
			}
			s := tt.value.(string)
			if tp[3:35] != s[3:35] {
				t.Errorf("Traceparent() = %q, want trace id %s", tp, s[3:35])
			}
			if tp[36:52] == s[36:52] {
				t.Errorf("Traceparent() = %q reuses the parent's span id", tp)
			}
			if tp[53:] != tt.flags {
				t.Errorf("Traceparent() = %q, want flags %s", tp, tt.flags)
			}
		})
	}
}

func TestStartWithoutTraceparent(t *testing.T) {
	for _, meta := range []map[string]any{
		nil,
		{},
		{"progressToken": "x"},
		{"baggage": "userId=alice,secret=shh"},
		{"tracestate": ""},
	} {
		c, problem := Start(meta)
		if problem != "" {
			t.Errorf("Start(%v) problem = %q, want none", meta, problem)
		}
		checkTraceparent(t, c.Traceparent())
		if got := c.Traceparent()[53:]; got != "01" {
			t.Errorf("Start(%v) flags = %s, want 01", meta, got)
		}
		if got := c.Tracestate(); got != "" {
			t.Errorf("Start(%v) Tracestate() = %q, want none", meta, got)
		}
	}
}

func TestNewTraceEachTime(t *testing.T) {
	traces := make(map[string]bool)
	for i := range 100 {
		meta := map[string]any(nil)
		if i%2 == 1 {
			meta = map[string]any{"traceparent": "garbage"}
		}
		c, _ := Start(meta)
		id := c.Traceparent()[3:35]
		if traces[id] {
			t.Fatalf("trace id %s reused", id)
		}
		traces[id] = true
	}
}

func TestSpanIDAlwaysNew(t *testing.T) {
	spans := map[string]bool{parentSpan: true}
	for range 1000 {
		c, _ := Start(map[string]any{"traceparent": validParent})
		tp := c.Traceparent()
		if tp[3:35] != parentTrace {
			t.Fatalf("Traceparent() = %q lost the parent's trace id", tp)
		}
		span := tp[36:52]
		if spans[span] {
			t.Fatalf("span id %s is the parent's or reused", span)
		}
		spans[span] = true
	}
}

func TestNewSpanIDNotParent(t *testing.T) {
	prev := otrace.SpanID{1}
	for range 1000 {
		id := newSpanID(prev)
		if !id.IsValid() || id == prev {
			t.Fatalf("newSpanID(%s) = %s", prev, id)
		}
		prev = id
	}
}

// members returns a tracestate of n distinct members.
func members(n int) string {
	m := make([]string, n)
	for i := range m {
		m[i] = "k" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "=v"
	}
	return strings.Join(m, ",")
}

func TestStartTracestate(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	// 2 + 254 + 1 + 2 + 253 = 512 characters.
	exactly512 := "a=" + x(254) + ",b=" + x(253)
	tests := []struct {
		name    string
		value   any
		want    string
		problem Problem
	}{
		{"empty", "", "", ""},
		{"one member", "a=1", "a=1", ""},
		{"two members in order", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7", ""},
		{"OWS around members", " a=1 ,\tb=2\t, c=3", "a=1,b=2,c=3", ""},
		{"OWS around the list", "  a=1  ", "a=1", ""},
		{"trailing space of a value is OWS", "a=x ,b=y  ", "a=x,b=y", ""},
		{"empty members", ",a=1,,b=2,", "a=1,b=2", ""},
		{"only empty members", ",,,", "", ""},
		{"whitespace-only members", "a=1, ,\t,b=2", "a=1,b=2", ""},
		{"inner space in value", "a=x y", "a=x y", ""},
		{"leading space in value", "a= x", "a= x", ""},
		{"value of every allowed punctuation", "a=!\"#$%&'()*+-./:;<>?@[\\]^_`{|}~", "a=!\"#$%&'()*+-./:;<>?@[\\]^_`{|}~", ""},
		{"value 256 characters", "a=" + x(256), "a=" + x(256), ""},
		{"key of every allowed character", "a0_-*/z=1", "a0_-*/z=1", ""},
		{"simple key 256 characters", "a" + x(255) + "=1", "a" + x(255) + "=1", ""},
		{"multi-tenant key", "t@s=1", "t@s=1", ""},
		{"tenant may start with a digit", "0t@s=1", "0t@s=1", ""},
		{"tenant 241 characters", "t" + x(240) + "@s=1", "t" + x(240) + "@s=1", ""},
		{"system 14 characters", "t@s" + x(13) + "=1", "t@s" + x(13) + "=1", ""},
		{"same value, different keys", "a=1,b=1", "a=1,b=1", ""},
		{"tenant keys differ by system", "t@s=1,t@r=1", "t@s=1,t@r=1", ""},
		{"exactly 512 characters", exactly512, exactly512, ""},
		{"32 members", members(32), members(32), ""},
		{"32 members and empty ones", members(32) + ",,", members(32), ""},

		{"513 characters", exactly512 + "x", "", ProblemTracestateSize},
		{"513 characters of mostly OWS", "a=1" + strings.Repeat(" ", 510), "", ProblemTracestateSize},
		{"33 members", members(33), "", ProblemTracestateSize},
		{"33 members, some invalid", members(33) + ",BAD", "", ProblemTracestateSize},
		{"no equals sign", "a", "", ProblemTracestate},
		{"empty value", "a=", "", ProblemTracestate},
		{"value only a space", "a= ", "", ProblemTracestate},
		{"value 257 characters", "a=" + x(257), "", ProblemTracestate},
		{"equals sign in value", "a=b=c", "", ProblemTracestate},
		{"tab in value", "a=x\ty", "", ProblemTracestate},
		{"control character in value", "a=x\x1fy", "", ProblemTracestate},
		{"DEL in value", "a=x\x7f", "", ProblemTracestate},
		{"non-ASCII value", "a=é", "", ProblemTracestate},
		{"empty key", "=1", "", ProblemTracestate},
		{"uppercase key", "A=1", "", ProblemTracestate},
		{"simple key starting with a digit", "1a=1", "", ProblemTracestate},
		{"simple key starting with underscore", "_a=1", "", ProblemTracestate},
		{"dot in key", "a.b=1", "", ProblemTracestate},
		{"space in key", "a b=1", "", ProblemTracestate},
		{"space before equals sign", "a =1", "", ProblemTracestate},
		{"simple key 257 characters", "a" + x(256) + "=1", "", ProblemTracestate},
		{"empty tenant", "@s=1", "", ProblemTracestate},
		{"empty system", "t@=1", "", ProblemTracestate},
		{"system starting with a digit", "t@0s=1", "", ProblemTracestate},
		{"tenant starting with underscore", "_t@s=1", "", ProblemTracestate},
		{"uppercase system", "t@S=1", "", ProblemTracestate},
		{"two at signs", "t@s@x=1", "", ProblemTracestate},
		{"tenant 242 characters", "t" + x(241) + "@s=1", "", ProblemTracestate},
		{"system 15 characters", "t@s" + x(14) + "=1", "", ProblemTracestate},
		{"duplicate key", "a=1,b=2,a=1", "", ProblemTracestate},
		{"duplicate multi-tenant key", "t@s=1,t@s=2", "", ProblemTracestate},
		{"duplicate key after OWS", "a=1, a=2", "", ProblemTracestate},
		{"one bad member drops all", "a=1,B=2", "", ProblemTracestate},
		{"number", 3.0, "", ProblemTracestate},
		{"null", nil, "", ProblemTracestate},
		{"array", []any{"a=1"}, "", ProblemTracestate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, problem := Start(map[string]any{"traceparent": validParent, "tracestate": tt.value})
			if problem != tt.problem {
				t.Errorf("problem = %q, want %q", problem, tt.problem)
			}
			if got := c.Tracestate(); got != tt.want {
				t.Errorf("Tracestate() = %q, want %q", got, tt.want)
			}
			if tp := c.Traceparent(); tp[3:35] != parentTrace {
				t.Errorf("Traceparent() = %q, want the parent kept whatever the tracestate", tp)
			}
			if tt.problem != "" || tt.want == "" {
				return
			}
			// otel agrees with the normalised form.
			ts, err := otrace.ParseTraceState(tt.want)
			if err != nil || ts.String() != tt.want {
				t.Errorf("otel ParseTraceState(%q) = %q, %v", tt.want, ts.String(), err)
			}
		})
	}
}

// TestOtelTracestateRules pins where otel's own parser agrees with the rules
// above and where it does not, which is why parseTracestate checks
// everything itself.
func TestOtelTracestateRules(t *testing.T) {
	for _, s := range []string{
		"a=", "a= ", "a=b=c", "A=1", "1a=1", "t@0s=1", "t@s@x=1",
		"a=1,a=2", "a=" + strings.Repeat("x", 257), members(33),
	} {
		if _, err := otrace.ParseTraceState(s); err == nil {
			t.Errorf("otel accepts %.40q, which W3C forbids", s)
		}
	}
	// Stricter than W3C: a whitespace-only member.
	if _, err := otrace.ParseTraceState("a=1, ,b=2"); err == nil {
		t.Log("otel now accepts whitespace-only members")
	}
	// No length limit in otel.
	long := "a=" + strings.Repeat("x", 256) + ",b=" + strings.Repeat("x", 256)
	if _, err := otrace.ParseTraceState(long); err != nil {
		t.Errorf("otel rejects a %d-character tracestate: %v", len(long), err)
	}
}

func TestTracestateNeedsParent(t *testing.T) {
	tests := []struct {
		name    string
		meta    map[string]any
		problem Problem
	}{
		{"no traceparent", map[string]any{"tracestate": "a=1"}, ProblemTracestateOrphan},
		{"no traceparent, invalid tracestate", map[string]any{"tracestate": "A"}, ProblemTracestateOrphan},
		{"no traceparent, non-string tracestate", map[string]any{"tracestate": map[string]any{}}, ProblemTracestateOrphan},
		{"invalid traceparent", map[string]any{"traceparent": "00-x", "tracestate": "a=1"}, ProblemTraceparent},
		{"non-string traceparent", map[string]any{"traceparent": 1, "tracestate": "a=1"}, ProblemTraceparent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, problem := Start(tt.meta)
			if problem != tt.problem {
				t.Errorf("problem = %q, want %q", problem, tt.problem)
			}
			if got := c.Tracestate(); got != "" {
				t.Errorf("Tracestate() = %q, want it dropped", got)
			}
			if _, ok := c.Header()["Tracestate"]; ok {
				t.Errorf("Header() has a tracestate: %v", c.Header())
			}
		})
	}
}

func TestHeader(t *testing.T) {
	c, _ := Start(map[string]any{
		"traceparent": validParent,
		"tracestate":  " rojo=00f067aa0ba902b7 ,congo=t61rcWkgMzE",
		"baggage":     "userId=alice",
	})
	h := c.Header()
	want := http.Header{
		"Traceparent": {c.Traceparent()},
		"Tracestate":  {"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"},
	}
	if len(h) != len(want) || h.Get("traceparent") != want.Get("traceparent") || h.Get("tracestate") != want.Get("tracestate") {
		t.Errorf("Header() = %v, want %v", h, want)
	}
	if len(h.Values("traceparent")) != 1 || len(h.Values("tracestate")) != 1 {
		t.Errorf("Header() = %v, want one value each", h)
	}

	// A new header each time: callers may change it.
	h.Set("Baggage", "x")
	if got := c.Header(); got.Get("baggage") != "" {
		t.Errorf("Header() shares its map: %v", got)
	}

	c, _ = Start(map[string]any{"traceparent": validParent, "baggage": "userId=alice"})
	if h := c.Header(); len(h) != 1 || h.Get("traceparent") != c.Traceparent() {
		t.Errorf("Header() without tracestate = %v", h)
	}
}

func TestBaggageIgnored(t *testing.T) {
	for _, baggage := range []any{"userId=alice", "not valid baggage ,,==", 42, nil} {
		c, problem := Start(map[string]any{"traceparent": validParent, "baggage": baggage})
		if problem != "" {
			t.Errorf("baggage %v: problem = %q, want none", baggage, problem)
		}
		if c.Traceparent()[3:35] != parentTrace {
			t.Errorf("baggage %v: parent lost", baggage)
		}
		if c.Header().Get("baggage") != "" {
			t.Errorf("baggage %v forwarded", baggage)
		}
	}
}

func TestZeroContext(t *testing.T) {
	var c Context
	if got := c.Traceparent(); got != "" {
		t.Errorf("Traceparent() = %q, want empty", got)
	}
	if got := c.Tracestate(); got != "" {
		t.Errorf("Tracestate() = %q, want empty", got)
	}
	if got := c.Header(); len(got) != 0 {
		t.Errorf("Header() = %v, want empty", got)
	}
}

func TestProblemsEchoNothing(t *testing.T) {
	secret := "00-" + parentTrace + "-" + parentSpan + "-zz"
	for _, meta := range []map[string]any{
		{"traceparent": secret},
		{"traceparent": validParent, "tracestate": "secret=" + secret + ",BAD"},
		{"traceparent": validParent, "tracestate": strings.Repeat("secret=1,", 100)},
		{"tracestate": "secret=1"},
	} {
		_, problem := Start(meta)
		switch problem {
		case ProblemTraceparent, ProblemTracestate, ProblemTracestateSize, ProblemTracestateOrphan:
		default:
			t.Errorf("Start(%v) problem = %q, not one of the fixed problems", meta, problem)
		}
		if strings.Contains(string(problem), "secret") || strings.Contains(string(problem), parentTrace) {
			t.Errorf("problem %q echoes the input", problem)
		}
	}
}

func TestStartConcurrent(t *testing.T) {
	const n = 64
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		wg.Go(func() {
			meta := map[string]any{"traceparent": validParent, "tracestate": "a=" + string(rune('a'+i%26))}
			if i%2 == 0 {
				meta = nil
			}
			c, _ := Start(meta)
			got[i] = c.Traceparent() + " " + c.Header().Get("tracestate")
		})
	}
	wg.Wait()
	seen := make(map[string]bool)
	for i, s := range got {
		if seen[s] {
			t.Errorf("call %d: context %q repeated", i, s)
		}
		seen[s] = true
		if i%2 == 1 && !strings.HasSuffix(s, " a="+string(rune('a'+i%26))) {
			t.Errorf("call %d: got %q, tracestate mixed up", i, s)
		}
	}
}

func TestValidValue(t *testing.T) {
	// Pinned directly because through Start a trailing space or tab is
	// optional whitespace before the next comma.
	tests := []struct {
		v    string
		want bool
	}{
		{"x", true},
		{" x", true},
		{"x y", true},
		{strings.Repeat("x", 256), true},
		{"", false},
		{" ", false},
		{"x ", false},
		{"x\t", false},
		{"x,y", false},
		{"x=y", false},
		{strings.Repeat("x", 257), false},
	}
	for _, tt := range tests {
		if got := validValue(tt.v); got != tt.want {
			t.Errorf("validValue(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
