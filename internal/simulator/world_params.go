package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// params reads an action's params as SnowLuma's parameter kit does:
// integers as numbers or numeric strings, booleans also as
// "true"/"1"/"yes"/"on" and their opposites, strings also from numbers. The
// first problem is kept and answered as SnowLuma answers it: retcode 1400
// with "<field>: <reason>".
type params struct {
	m   map[string]json.RawMessage
	err string
}

// readParams decodes a params object; anything else is an empty one, as
// SnowLuma treats it.
func readParams(raw json.RawMessage) *params {
	p := &params{m: map[string]json.RawMessage{}}
	json.Unmarshal(raw, &p.m)
	return p
}

// fail records the first problem.
func (p *params) fail(field, reason string) {
	if p.err == "" {
		p.err = field + ": " + reason
	}
}

// failed is the answer to the first problem, or nil when there was none.
func (p *params) failed() *Reply {
	if p.err == "" {
		return nil
	}
	r := Failed(1400, p.err)
	return &r
}

// value is the raw value of key, or nil when it is absent or null.
func (p *params) value(key string) json.RawMessage {
	v := bytes.TrimSpace(p.m[key])
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// has reports whether key was given.
func (p *params) has(key string) bool { return p.value(key) != nil }

// int reads a required integer, or an optional one when def is given.
func (p *params) int(key string, def ...int64) int64 {
	v := p.value(key)
	if v == nil {
		if len(def) == 0 {
			p.fail(key, "is required")
			return 0
		}
		return def[0]
	}
	var f float64
	var s string
	switch {
	case json.Unmarshal(v, &f) == nil:
	case json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "":
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			p.fail(key, "expected an integer")
			return 0
		}
		f = n
	default:
		p.fail(key, "expected an integer")
		return 0
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		p.fail(key, "expected an integer")
		return 0
	}
	return int64(math.Trunc(f))
}

// id reads a required QQ or group number: an integer of at least 1.
func (p *params) id(key string) int64 {
	n := p.int(key)
	if p.err == "" && n < 1 {
		p.fail(key, "must be >= 1")
	}
	return n
}

// bool reads an optional boolean.
func (p *params) bool(key string, def bool) bool {
	v := p.value(key)
	if v == nil {
		return def
	}
	var b bool
	var f float64
	var s string
	switch {
	case json.Unmarshal(v, &b) == nil:
		return b
	case json.Unmarshal(v, &f) == nil:
		return f != 0
	case json.Unmarshal(v, &s) == nil:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes", "on":
			return true
		case "false", "0", "no", "off":
			return false
		}
	}
	p.fail(key, "expected a boolean")
	return def
}

// str reads a required string, or an optional one when def is given.
func (p *params) str(key string, def ...string) string {
	v := p.value(key)
	if v == nil {
		if len(def) == 0 {
			p.fail(key, "is required")
			return ""
		}
		return def[0]
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var f float64
	var b bool
	if json.Unmarshal(v, &f) == nil || json.Unmarshal(v, &b) == nil {
		return string(v)
	}
	p.fail(key, "expected a string")
	return ""
}

// nonEmpty reads a required string that must not be empty.
func (p *params) nonEmpty(key string) string {
	s := p.str(key)
	if p.err == "" && s == "" {
		p.fail(key, "must not be empty")
	}
	return s
}

// ids reads a required, non-empty array of QQ numbers.
func (p *params) ids(key string) []int64 {
	v := p.value(key)
	if v == nil {
		p.fail(key, "is required")
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(v, &list) != nil {
		p.fail(key, "expected an array")
		return nil
	}
	if len(list) == 0 {
		p.fail(key, "must not be empty")
		return nil
	}
	out := make([]int64, 0, len(list))
	for i, item := range list {
		sub := &params{m: map[string]json.RawMessage{"x": item}}
		n := sub.int("x")
		if sub.err != "" || n < 1 {
			p.fail(fmt.Sprintf("%s[%d]", key, i), "expected a QQ number")
			return nil
		}
		out = append(out, n)
	}
	return out
}
