// Package schemajson decodes JSON Schemas into jsonschema.Schema values, as
// json.Unmarshal does but in one pass over the JSON.
package schemajson

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Decode decodes raw into a jsonschema.Schema exactly as json.Unmarshal
// does, only faster.
//
// The library's UnmarshalJSON decodes each schema as a struct and again as a
// generic map (to collect unknown keywords), and every nested schema repeats
// that for its own subtree, so a schema nested n deep is decoded about 2n
// times. That made compiling the tools' schemas most of the server's
// start-up. Decode reads the JSON once, for the keywords it knows
// spelled exactly as the library's field tags. Anything else (an unknown or
// differently cased keyword, which the library keeps in Extra or matches
// case-insensitively; a duplicate key; null; escaped keys or keys other
// than UTF-8; "dependencies"; invalid JSON) sends the whole schema to
// json.Unmarshal, so the result and every error are the library's own. The tests hold the two to the same
// result on every schema this project declares and under fuzzing.
func Decode(raw []byte) (*jsonschema.Schema, error) {
	if json.Valid(raw) {
		p := schemaParser{data: raw}
		if s, ok := p.schema(); ok {
			if p.ws(); p.pos == len(p.data) {
				return s, nil
			}
		}
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// schemaParser reads one schema from data, which is valid JSON. Each method
// reports false when the input is outside the fast path; the caller then
// gives up on it.
type schemaParser struct {
	data []byte
	pos  int
}

// ws skips white space.
func (p *schemaParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, or 0 at the end.
func (p *schemaParser) peek() byte {
	p.ws()
	if p.pos == len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

// value returns the next value's bytes and moves past it.
func (p *schemaParser) value() []byte {
	p.ws()
	start := p.pos
	switch p.data[p.pos] {
	case '"':
		p.str()
	case '{', '[':
		depth := 0
		for p.pos < len(p.data) {
			switch p.data[p.pos] {
			case '"':
				p.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			p.pos++
			if depth == 0 {
				break
			}
		}
	default: // a number, true, false or null
		for p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return p.data[start:p.pos]
			}
			p.pos++
		}
	}
	return p.data[start:p.pos]
}

// str moves past the string at pos and returns its contents, unquoted
// when it holds no escape; escaped reports one.
func (p *schemaParser) str() (s []byte, escaped bool) {
	p.pos++ // the opening quote
	start := p.pos
	for {
		switch p.data[p.pos] {
		case '\\':
			escaped = true
			p.pos += 2
			continue
		case '"':
			s = p.data[start:p.pos]
			p.pos++
			return s, escaped
		}
		p.pos++
	}
}

// object calls f with each key of the object at pos, f reading the value.
// Keys with escapes, keys other than UTF-8 (encoding/json replaces each bad
// byte with U+FFFD) and repeated keys are outside the fast path.
func (p *schemaParser) object(f func(key string) bool) bool {
	if p.peek() != '{' {
		return false
	}
	p.pos++
	var seen []string
	for {
		switch p.peek() {
		case '}':
			p.pos++
			return true
		case ',':
			p.pos++
			p.ws()
		}
		k, escaped := p.str()
		if escaped || !utf8.Valid(k) {
			return false
		}
		key := string(k)
		for _, s := range seen {
			if s == key {
				return false
			}
		}
		seen = append(seen, key)
		p.ws()
		p.pos++ // the colon
		if p.peek() == 'n' || !f(key) {
			return false
		}
	}
}

// array calls f for each element of the array at pos.
func (p *schemaParser) array(f func() bool) bool {
	if p.peek() != '[' {
		return false
	}
	p.pos++
	for {
		switch p.peek() {
		case ']':
			p.pos++
			return true
		case ',':
			p.pos++
		}
		if !f() {
			return false
		}
	}
}

// schema reads a schema: true, false or an object of known keywords.
func (p *schemaParser) schema() (*jsonschema.Schema, bool) {
	switch p.peek() {
	case 't':
		p.value()
		return &jsonschema.Schema{}, true
	case 'f':
		p.value()
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, true // the library's false schema
	}
	s := new(jsonschema.Schema)
	ok := p.object(func(key string) bool { return p.keyword(s, key) })
	return s, ok
}

// schemas reads an array of schemas.
func (p *schemaParser) schemas() ([]*jsonschema.Schema, bool) {
	list := []*jsonschema.Schema{}
	ok := p.array(func() bool {
		if p.peek() == 'n' {
			return false
		}
		s, ok := p.schema()
		list = append(list, s)
		return ok
	})
	return list, ok
}

// schemaMap reads an object whose values are schemas.
func (p *schemaParser) schemaMap() (map[string]*jsonschema.Schema, bool) {
	m := map[string]*jsonschema.Schema{}
	ok := p.object(func(key string) bool {
		s, ok := p.schema()
		m[key] = s
		return ok
	})
	return m, ok
}

// keyword reads the value of key into s.
func (p *schemaParser) keyword(s *jsonschema.Schema, key string) bool {
	var ok bool
	switch key {
	// Schemas.
	case "additionalItems":
		s.AdditionalItems, ok = p.schema()
	case "contains":
		s.Contains, ok = p.schema()
	case "unevaluatedItems":
		s.UnevaluatedItems, ok = p.schema()
	case "additionalProperties":
		s.AdditionalProperties, ok = p.schema()
	case "propertyNames":
		s.PropertyNames, ok = p.schema()
	case "unevaluatedProperties":
		s.UnevaluatedProperties, ok = p.schema()
	case "not":
		s.Not, ok = p.schema()
	case "if":
		s.If, ok = p.schema()
	case "then":
		s.Then, ok = p.schema()
	case "else":
		s.Else, ok = p.schema()
	case "contentSchema":
		s.ContentSchema, ok = p.schema()
	case "items":
		if p.peek() == '[' {
			s.ItemsArray, ok = p.schemas()
		} else {
			s.Items, ok = p.schema()
		}
	case "prefixItems":
		s.PrefixItems, ok = p.schemas()
	case "allOf":
		s.AllOf, ok = p.schemas()
	case "anyOf":
		s.AnyOf, ok = p.schemas()
	case "oneOf":
		s.OneOf, ok = p.schemas()
	case "$defs":
		s.Defs, ok = p.schemaMap()
	case "definitions":
		s.Definitions, ok = p.schemaMap()
	case "properties":
		s.Properties, ok = p.schemaMap()
	case "patternProperties":
		s.PatternProperties, ok = p.schemaMap()
	case "dependentSchemas":
		s.DependentSchemas, ok = p.schemaMap()

	// Strings.
	case "$id":
		return p.string(&s.ID)
	case "$schema":
		return p.string(&s.Schema)
	case "$ref":
		return p.string(&s.Ref)
	case "$comment":
		return p.string(&s.Comment)
	case "$anchor":
		return p.string(&s.Anchor)
	case "$dynamicAnchor":
		return p.string(&s.DynamicAnchor)
	case "$dynamicRef":
		return p.string(&s.DynamicRef)
	case "title":
		return p.string(&s.Title)
	case "description":
		return p.string(&s.Description)
	case "pattern":
		return p.string(&s.Pattern)
	case "contentEncoding":
		return p.string(&s.ContentEncoding)
	case "contentMediaType":
		return p.string(&s.ContentMediaType)
	case "format":
		return p.string(&s.Format)
	case "type":
		if p.peek() == '"' {
			return p.string(&s.Type)
		}
		return p.peek() == '[' && p.strings(&s.Types)

	// Numbers.
	case "multipleOf":
		return p.number(&s.MultipleOf)
	case "minimum":
		return p.number(&s.Minimum)
	case "maximum":
		return p.number(&s.Maximum)
	case "exclusiveMinimum":
		return p.number(&s.ExclusiveMinimum)
	case "exclusiveMaximum":
		return p.number(&s.ExclusiveMaximum)
	case "minLength":
		return p.integer(&s.MinLength)
	case "maxLength":
		return p.integer(&s.MaxLength)
	case "minItems":
		return p.integer(&s.MinItems)
	case "maxItems":
		return p.integer(&s.MaxItems)
	case "minProperties":
		return p.integer(&s.MinProperties)
	case "maxProperties":
		return p.integer(&s.MaxProperties)
	case "minContains":
		return p.integer(&s.MinContains)
	case "maxContains":
		return p.integer(&s.MaxContains)

	// Everything else the library decodes as encoding/json does.
	case "$vocabulary":
		return decodeInto(p.value(), &s.Vocabulary)
	case "default":
		s.Default = bytes.Clone(p.value())
		return true
	case "deprecated":
		return p.bool(&s.Deprecated)
	case "readOnly":
		return p.bool(&s.ReadOnly)
	case "writeOnly":
		return p.bool(&s.WriteOnly)
	case "uniqueItems":
		return p.bool(&s.UniqueItems)
	case "examples":
		return p.values(&s.Examples)
	case "enum":
		return p.values(&s.Enum)
	case "const":
		var v any
		if !p.any(&v) {
			return false
		}
		s.Const = &v
		return true
	case "required":
		return p.strings(&s.Required)
	case "dependentRequired":
		return decodeInto(p.value(), &s.DependentRequired)
	default:
		return false
	}
	return ok
}

// string reads a JSON string; one with escapes or other than UTF-8 goes
// through encoding/json.
func (p *schemaParser) string(dst *string) bool {
	if p.peek() != '"' {
		return false
	}
	start := p.pos
	s, escaped := p.str()
	if escaped || !utf8.Valid(s) {
		return decodeInto(p.data[start:p.pos], dst)
	}
	*dst = string(s)
	return true
}

// The values of the keywords below are read as encoding/json decodes them
// into the library's fields; anything else goes through encoding/json.

// number reads a number into *dst, as encoding/json does for a *float64:
// strconv.ParseFloat of the literal.
func (p *schemaParser) number(dst **float64) bool {
	raw := p.value()
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return false // the library's error
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return false
	}
	*dst = &f
	return true
}

// bool reads true or false.
func (p *schemaParser) bool(dst *bool) bool {
	switch string(p.value()) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return false
	}
	return true
}

// strings reads an array of strings; like encoding/json, an empty array is
// an empty slice, not nil.
func (p *schemaParser) strings(dst *[]string) bool {
	if p.peek() != '[' {
		return false
	}
	list := []string{}
	ok := p.array(func() bool {
		var s string
		ok := p.string(&s)
		list = append(list, s)
		return ok
	})
	*dst = list
	return ok
}

// values reads an array of JSON values as []any.
func (p *schemaParser) values(dst *[]any) bool {
	if p.peek() != '[' {
		return false
	}
	list := []any{}
	ok := p.array(func() bool {
		var v any
		ok := p.any(&v)
		list = append(list, v)
		return ok
	})
	*dst = list
	return ok
}

// any reads a JSON value as an any: a string, a float64, a bool, nil, or,
// for objects and arrays, what encoding/json makes of them. (A member whose
// value is null, such as a const of null, never gets here: see object.)
func (p *schemaParser) any(dst *any) bool {
	switch c := p.peek(); {
	case c == 'n':
		p.value()
		*dst = nil
	case c == '"':
		var s string
		if !p.string(&s) {
			return false
		}
		*dst = s
	case c == 't' || c == 'f':
		var b bool
		if !p.bool(&b) {
			return false
		}
		*dst = b
	case c == '-' || c >= '0' && c <= '9':
		var f *float64
		if !p.number(&f) {
			return false
		}
		*dst = *f
	case c == '{' || c == '[':
		return decodeInto(p.value(), dst)
	default:
		return false
	}
	return true
}

// integer reads an integer keyword as the library does: a number with a
// fraction must be integral, and the value must fit in 32 bits.
func (p *schemaParser) integer(dst **int) bool {
	raw := p.value()
	var i int64
	if bytes.IndexByte(raw, '.') >= 0 {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
			return false
		}
		i = int64(f)
		if float64(i) != f {
			return false
		}
	} else {
		var err error
		if i, err = strconv.ParseInt(string(raw), 10, 64); err != nil {
			return false
		}
	}
	if i < math.MinInt32 || i > math.MaxInt32 {
		return false
	}
	n := int(i)
	*dst = &n
	return true
}

// decodeInto decodes one keyword's value as the library's struct decoding
// does.
func decodeInto(raw []byte, dst any) bool {
	return json.Unmarshal(raw, dst) == nil
}
