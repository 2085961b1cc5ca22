// Package trace gives every MCP tool call a W3C Trace Context
// (https://www.w3.org/TR/trace-context-1/): it is on the call's stderr line
// and in its result, and is sent to SnowLuma as a traceparent header on every
// request, for a SnowLuma (or a proxy) that records it; SnowLuma 1.11.1 does
// not.
//
// Start reads the traceparent and tracestate a client put in the tool
// request's _meta. A valid parent keeps its trace id and flags and gets a new
// span id for this call; without one the call starts an independent trace.
// The resulting Context is forwarded to SnowLuma in HTTP headers and returned
// in the result's _meta.
//
// Caller metadata that cannot be used is dropped and reported as a fixed
// Problem, never as an error: trace metadata must not make an otherwise valid
// call fail, and a diagnostic must not echo what the caller sent. baggage is
// ignored altogether. Trace identifiers are correlation data, not
// authentication or permission.
//
// Ids and trace state use the go.opentelemetry.io/otel/trace types, but
// nothing is recorded: there is no exporter and no global tracer provider.
package trace

import (
	"crypto/rand"
	"net/http"

	otrace "go.opentelemetry.io/otel/trace"
)

// TraceparentKey and TracestateKey name the trace context both as keys of a
// request's or result's _meta and as HTTP header fields.
const (
	TraceparentKey = "traceparent"
	TracestateKey  = "tracestate"
)

// Limits on a caller's tracestate. A longer or larger one is dropped whole
// rather than truncated, because which entries matter is the caller's
// business, not ours. The length counts the value as received, before
// whitespace and empty members are removed, so the parser never works on
// more than MaxTracestateLen bytes.
const (
	MaxTracestateLen     = 512
	MaxTracestateMembers = 32
)

// A Problem says why a caller's trace metadata was ignored. It is one of the
// fixed strings below, or "" when nothing was ignored, so it can be logged
// as is: it never contains what the caller sent.
type Problem string

// The problems Start reports.
const (
	// ProblemTraceparent: _meta.traceparent is present but not a valid W3C
	// traceparent string. Any tracestate goes with it.
	ProblemTraceparent Problem = "invalid traceparent ignored; started a new trace"
	// ProblemTracestate: _meta.tracestate is not a valid W3C tracestate
	// string. The parent is kept.
	ProblemTracestate Problem = "invalid tracestate ignored"
	// ProblemTracestateSize: _meta.tracestate is longer than
	// MaxTracestateLen or has more than MaxTracestateMembers members.
	ProblemTracestateSize Problem = "tracestate over 512 characters or 32 members ignored"
	// ProblemTracestateOrphan: _meta.tracestate came without a traceparent;
	// W3C Trace Context gives it no meaning on its own.
	ProblemTracestateOrphan Problem = "tracestate without traceparent ignored"
)

// Context is one tool call's trace context: the trace id (the caller's, or a
// new one), the call's own new span id, the trace flags and, when the caller
// sent a valid one along with a valid parent, the trace state.
//
// The zero Context carries no trace: Traceparent returns "" and Header an
// empty header. Use Start to get a real one. A Context is an immutable value
// and safe to share between goroutines.
type Context struct {
	sc otrace.SpanContext
}

// Start derives a tool call's trace context from the request's _meta, as
// decoded from JSON (strings are string; a nil map is fine). It always
// returns a usable Context; the Problem is "" unless some of the caller's
// trace metadata was ignored.
//
// A valid _meta.traceparent keeps its trace id and trace flags, and the call
// gets a new random span id: the caller's span id is this call's parent, and
// nothing downstream needs it, so it is not kept. A valid _meta.tracestate is
// kept, normalised, only together with a valid traceparent. _meta.baggage is
// never read.
//
// Without a valid traceparent the call starts a new trace with random trace
// and span ids and the sampled flag (01) set. W3C defines that flag as "the
// caller may have recorded trace data", which holds here: the traceparent is
// written to MCP's diagnostics. It also lets a SnowLuma or proxy that samples
// by its parent keep its side of the call; correlation itself needs only the
// ids.
//
// Start is safe for concurrent use: it keeps no state, and ids come from
// crypto/rand.
func Start(meta map[string]any) (Context, Problem) {
	raw, present := meta[TraceparentKey]
	if !present {
		var problem Problem
		if ts, ok := meta[TracestateKey]; ok && ts != "" {
			problem = ProblemTracestateOrphan
		}
		return Context{sc: newRoot()}, problem
	}
	s, ok := raw.(string)
	if !ok {
		return Context{sc: newRoot()}, ProblemTraceparent
	}
	p, ok := parseTraceparent(s)
	if !ok {
		return Context{sc: newRoot()}, ProblemTraceparent
	}

	var state otrace.TraceState
	var problem Problem
	if rawState, ok := meta[TracestateKey]; ok {
		if s, ok := rawState.(string); ok {
			state, problem = parseTracestate(s)
		} else {
			problem = ProblemTracestate
		}
	}
	return Context{sc: otrace.NewSpanContext(otrace.SpanContextConfig{
		TraceID:    p.traceID,
		SpanID:     newSpanID(p.spanID),
		TraceFlags: p.flags,
		TraceState: state,
		Remote:     false, // the span is this call's own, not the caller's
	})}, problem
}

// newRoot returns the context of a call that starts its own trace.
func newRoot() otrace.SpanContext {
	var traceID otrace.TraceID
	for !traceID.IsValid() {
		// crypto/rand.Read never returns an error: it crashes the program
		// rather than hand out weak randomness.
		rand.Read(traceID[:])
	}
	return otrace.NewSpanContext(otrace.SpanContextConfig{
		TraceID:    traceID,
		SpanID:     newSpanID(otrace.SpanID{}),
		TraceFlags: otrace.FlagsSampled,
	})
}

// newSpanID returns a random valid span id other than parent, so a call is
// never mistaken for its caller.
func newSpanID(parent otrace.SpanID) otrace.SpanID {
	var id otrace.SpanID
	for !id.IsValid() || id == parent {
		rand.Read(id[:]) // never fails; see newRoot
	}
	return id
}

// Traceparent returns the call's traceparent in the W3C version 00 format,
// "00-<32 hex trace id>-<16 hex span id>-<2 hex flags>", lowercase, or "" for
// the zero Context. This is what the result's _meta and the diagnostics
// carry.
func (c Context) Traceparent() string {
	if !c.sc.IsValid() {
		return ""
	}
	return "00-" + c.sc.TraceID().String() + "-" + c.sc.SpanID().String() + "-" + c.sc.TraceFlags().String()
}

// Tracestate returns the caller's validated trace state, normalised to
// comma-separated key=value members without whitespace or empty members, or
// "" when there is none. It is forwarded to SnowLuma but must not be logged.
func (c Context) Tracestate() string {
	return c.sc.TraceState().String()
}

// Header returns a new header holding the call's trace context for a request
// to SnowLuma: traceparent and, when there is one, tracestate. It never holds
// baggage. The caller owns the result and may merge it into a request's
// header. The zero Context yields an empty header.
func (c Context) Header() http.Header {
	h := make(http.Header, 2)
	tp := c.Traceparent()
	if tp == "" {
		return h
	}
	h.Set(TraceparentKey, tp)
	if ts := c.Tracestate(); ts != "" {
		h.Set(TracestateKey, ts)
	}
	return h
}
