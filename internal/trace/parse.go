package trace

import (
	"strings"

	otrace "go.opentelemetry.io/otel/trace"
)

// traceparentLen is the length of a version 00 traceparent, and of the
// prefix every later version shares with it.
const traceparentLen = len("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")

// parent is what a caller's traceparent contributes to a call.
type parent struct {
	traceID otrace.TraceID
	spanID  otrace.SpanID
	flags   otrace.TraceFlags
}

// parseTraceparent parses a traceparent following W3C Trace Context level 1
// §3.2: version "-" trace-id "-" parent-id "-" trace-flags, all lowercase
// hex, with neither id all zeros. Version ff is invalid. Version 00 must be
// exactly traceparentLen long. A later version is read the way the
// specification asks for forward compatibility: its first traceparentLen
// characters must parse as version 00 fields and be followed by nothing or
// by "-"; of its flags only the sampled bit is kept, since the meaning of
// the others may have changed.
func parseTraceparent(s string) (parent, bool) {
	if len(s) < traceparentLen || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return parent{}, false
	}
	version, ok := hexByte(s[0:2])
	if !ok || version == 0xff {
		return parent{}, false
	}
	if len(s) > traceparentLen && (version == 0 || s[traceparentLen] != '-') {
		return parent{}, false
	}
	// TraceIDFromHex and SpanIDFromHex accept only lowercase hex and reject
	// all-zero ids, as the specification requires.
	traceID, err := otrace.TraceIDFromHex(s[3:35])
	if err != nil {
		return parent{}, false
	}
	spanID, err := otrace.SpanIDFromHex(s[36:52])
	if err != nil {
		return parent{}, false
	}
	flags, ok := hexByte(s[53:55])
	if !ok {
		return parent{}, false
	}
	f := otrace.TraceFlags(flags)
	if version != 0 {
		f &= otrace.FlagsSampled
	}
	return parent{traceID: traceID, spanID: spanID, flags: f}, true
}

// hexByte decodes two lowercase hex digits.
func hexByte(s string) (byte, bool) {
	hi, ok1 := hexDigit(s[0])
	lo, ok2 := hexDigit(s[1])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// parseTracestate validates and normalises a tracestate following W3C Trace
// Context level 1 §3.3 plus this package's limits, and returns it with "" or
// the Problem that made it be dropped whole.
//
// The list is list-members separated by commas, each with optional spaces
// and tabs (OWS) around it; empty and whitespace-only members are allowed
// and dropped. A member is key "=" value:
//
//	key    = simple-key / tenant "@" system
//	simple = [a-z] [a-z0-9_\-*/]{0,255}
//	tenant = [a-z0-9] [a-z0-9_\-*/]{0,240}
//	system = [a-z] [a-z0-9_\-*/]{0,13}
//	value  = 0*255(%x20-2B / %x2D-3C / %x3E-7E) one of the same but not %x20
//
// so a value is 1 to 256 printable ASCII characters other than "," and "=",
// not ending in a space. Keys must be unique. The whole value may be at most
// MaxTracestateLen long as received and hold at most MaxTracestateMembers
// members.
//
// otel's ParseTraceState implements the same member rules but rejects
// whitespace-only members and knows no length limit, so this function
// checks everything itself and hands otel only the normalised list.
func parseTracestate(s string) (otrace.TraceState, Problem) {
	if len(s) > MaxTracestateLen {
		return otrace.TraceState{}, ProblemTracestateSize
	}
	var members []string
	for m := range strings.SplitSeq(s, ",") {
		m = strings.Trim(m, " \t")
		if m == "" {
			continue
		}
		if len(members) == MaxTracestateMembers {
			return otrace.TraceState{}, ProblemTracestateSize
		}
		members = append(members, m)
	}
	keys := make([]string, 0, len(members))
	for _, m := range members {
		key, value, ok := strings.Cut(m, "=")
		if !ok || !validKey(key) || !validValue(value) {
			return otrace.TraceState{}, ProblemTracestate
		}
		for _, k := range keys {
			if k == key {
				return otrace.TraceState{}, ProblemTracestate
			}
		}
		keys = append(keys, key)
	}
	ts, err := otrace.ParseTraceState(strings.Join(members, ","))
	if err != nil {
		// Unreachable while otel follows the same rules; dropping the
		// state is still the right answer if it ever does not.
		return otrace.TraceState{}, ProblemTracestate
	}
	return ts, ""
}

// validKey reports whether k is a simple-key or a multi-tenant-key.
func validKey(k string) bool {
	tenant, system, multi := strings.Cut(k, "@")
	if !multi {
		return validKeyPart(k, isLower, 1+255)
	}
	return validKeyPart(tenant, isLowerOrDigit, 1+240) && validKeyPart(system, isLower, 1+13)
}

// validKeyPart reports whether s is 1 to maxLen key characters whose first
// satisfies first.
func validKeyPart(s string, first func(byte) bool, maxLen int) bool {
	if s == "" || len(s) > maxLen || !first(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLowerOrDigit(c) && c != '_' && c != '-' && c != '*' && c != '/' {
			return false
		}
	}
	return true
}

func isLower(c byte) bool        { return 'a' <= c && c <= 'z' }
func isLowerOrDigit(c byte) bool { return isLower(c) || '0' <= c && c <= '9' }

// validValue reports whether v is a tracestate value: 1 to 256 characters in
// 0x20-0x7E other than "," and "=", the last not a space.
func validValue(v string) bool {
	if v == "" || len(v) > 256 || v[len(v)-1] == ' ' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e || c == ',' || c == '=' {
			return false
		}
	}
	return true
}
