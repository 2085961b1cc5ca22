// Package validate checks JSON objects against object schemas at run time,
// one property at a time, so that every failure names its field and says
// what was expected there without echoing the value it got: action params
// against the catalog's input schemas, tool arguments and form answers
// against theirs.
package validate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/internal/schemajson"
)

// The runtime validator. It uses github.com/google/jsonschema-go, which the
// go-sdk already links, and checks an object one property at a time so that
// every failure names its field and says what was expected there, without
// echoing the value it got. The tests cross-check every catalog schema with
// a strict 2020-12 validator (strict_test.go).

// A FieldError is one reason an object failed its schema: where (a JSON
// pointer into the object) and what is wrong or expected there.
type FieldError struct {
	Pointer string `json:"pointer"`
	Problem string `json:"problem"`
}

func (e FieldError) String() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Problem
}

// An ObjectSchema checks JSON objects against a top-level object schema:
// its properties, its required list and, when closed, that nothing else is
// present. It is immutable and safe for concurrent use.
type ObjectSchema struct {
	props    map[string]propSchema
	names    []string // declared property names, sorted
	required []string
	closed   bool
}

type propSchema struct {
	resolved *jsonschema.Resolved
	raw      json.RawMessage // the property's schema, described on failure
}

// expected says what a valid value looks like, in words. It is worked out
// only when a value fails, so that compiling costs one decoding per
// property.
func (p propSchema) expected() string {
	var facts map[string]any
	_ = json.Unmarshal(p.raw, &facts)
	return describe(facts)
}

// CompileObject compiles raw, an object schema. It never loads anything
// external: a $ref that leaves a property's schema fails to compile instead
// of being fetched or treated as permissive.
func CompileObject(raw json.RawMessage) (*ObjectSchema, error) {
	return new(Compiler).CompileObject(raw)
}

// A Compiler compiles object schemas as CompileObject does, compiling each
// distinct property schema once however many objects declare it: a
// server's tools repeat property schemas (every output schema's
// diagnostics), and compiling them is most of its start-up. Compiled
// properties are immutable, so objects share them. The zero Compiler is
// ready to use and safe for concurrent use.
type Compiler struct {
	mu    sync.Mutex
	props map[string]func() (*jsonschema.Resolved, error)
}

// CompileObject compiles raw, an object schema (see the package's
// CompileObject).
func (c *Compiler) CompileObject(raw json.RawMessage) (*ObjectSchema, error) {
	var top struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if top.Type != "object" {
		return nil, fmt.Errorf("schema: type is %q, not object", top.Type)
	}
	s := &ObjectSchema{
		props:    make(map[string]propSchema, len(top.Properties)),
		required: top.Required,
		closed:   top.AdditionalProperties != nil && !*top.AdditionalProperties,
	}
	for name, p := range top.Properties {
		r, err := c.property(p)
		if err != nil {
			return nil, fmt.Errorf("schema: property %q: %w", name, err)
		}
		s.props[name] = propSchema{resolved: r, raw: p}
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	return s, nil
}

// CheckProperty reports whether raw compiles as the schema of one property
// of an object: it fails exactly when an object declaring it would fail to
// compile for that property, with the error that names no property. The
// compiled schema is kept for the objects that declare it.
func (c *Compiler) CheckProperty(raw json.RawMessage) error {
	_, err := c.property(raw)
	return err
}

// property compiles one property's schema, or returns it compiled before.
func (c *Compiler) property(raw json.RawMessage) (*jsonschema.Resolved, error) {
	c.mu.Lock()
	f := c.props[string(raw)]
	if f == nil {
		f = sync.OnceValues(func() (*jsonschema.Resolved, error) { return compileProperty(raw) })
		if c.props == nil {
			c.props = map[string]func() (*jsonschema.Resolved, error){}
		}
		c.props[string(raw)] = f
	}
	c.mu.Unlock()
	return f()
}

func compileProperty(raw json.RawMessage) (*jsonschema.Resolved, error) {
	js, err := schemajson.Decode(raw)
	if err != nil {
		return nil, err
	}
	return js.Resolve(nil) // no loader: remote references fail
}

// Check validates obj and returns each failure sorted by pointer, or nil
// when obj is valid.
func (s *ObjectSchema) Check(obj json.RawMessage) []FieldError {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil || fields == nil {
		return []FieldError{{Pointer: "", Problem: "must be a JSON object"}}
	}
	var errs []FieldError
	for _, name := range s.required {
		if _, ok := fields[name]; !ok {
			errs = append(errs, FieldError{Pointer: pointer(name), Problem: "is required but missing"})
		}
	}
	for name, raw := range fields {
		p, declared := s.props[name]
		if !declared {
			if s.closed {
				errs = append(errs, FieldError{Pointer: pointer(name), Problem: "is not accepted; accepted: " + strings.Join(s.names, ", ")})
			}
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			errs = append(errs, FieldError{Pointer: pointer(name), Problem: "is not valid JSON"})
			continue
		}
		if err := p.resolved.Validate(v); err != nil {
			errs = append(errs, FieldError{Pointer: pointer(name), Problem: "expected " + p.expected()})
		}
	}
	slices.SortFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Pointer, b.Pointer) })
	return errs
}

// pointer renders a top-level property name as a JSON pointer (RFC 6901).
func pointer(name string) string {
	return "/" + strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// describe says in words what a schema accepts: its type and the usual
// constraints, or the schema itself when it is more involved.
func describe(s map[string]any) string {
	if len(s) == 0 {
		return "any JSON value"
	}
	var parts []string
	switch t := s["type"].(type) {
	case string:
		parts = append(parts, t)
	case []any:
		var ts []string
		for _, x := range t {
			ts = append(ts, fmt.Sprint(x))
		}
		parts = append(parts, strings.Join(ts, " or "))
	}
	if items, ok := s["items"].(map[string]any); ok {
		parts = append(parts, "of "+describe(items))
	}
	if e, ok := s["enum"].([]any); ok {
		var vs []string
		for _, x := range e {
			b, _ := json.Marshal(x)
			vs = append(vs, string(b))
		}
		parts = append(parts, "one of "+strings.Join(vs, ", "))
	}
	lo, hasLo := s["minimum"].(float64)
	hi, hasHi := s["maximum"].(float64)
	switch {
	case hasLo && hasHi:
		parts = append(parts, "from "+num(lo)+" to "+num(hi))
	case hasLo:
		parts = append(parts, "≥ "+num(lo))
	case hasHi:
		parts = append(parts, "≤ "+num(hi))
	}
	if n, ok := s["minLength"].(float64); ok {
		parts = append(parts, "at least "+num(n)+" characters long")
	}
	if n, ok := s["maxLength"].(float64); ok {
		parts = append(parts, "at most "+num(n)+" characters long")
	}
	if p, ok := s["pattern"].(string); ok {
		parts = append(parts, "matching "+p)
	}
	if not, ok := s["not"].(map[string]any); ok {
		if c, ok := not["const"]; ok && len(not) == 1 {
			b, _ := json.Marshal(c)
			parts = append(parts, "other than "+string(b))
		}
	}
	if len(parts) == 0 || s["oneOf"] != nil || s["anyOf"] != nil || s["allOf"] != nil {
		b, _ := json.Marshal(s)
		return "a value matching " + quote.Clip(string(b), 200)
	}
	return strings.Join(parts, " ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
