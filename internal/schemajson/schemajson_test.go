package schemajson

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// fastCases are schemas the one-pass reader must take without falling back
// to the library: every keyword it knows, nested, spaced and unspaced.
var fastCases = []string{
	`true`,
	`false`,
	`{}`,
	` { "type" : "string" , "description" : "a \"quoted\" name, tab\t, é and 群" } `,
	`{"type":["string","null"],"minLength":1,"maxLength":2.0,"pattern":"^a+$","format":"uri"}`,
	`{"type":"integer","minimum":-3,"maximum":1e3,"exclusiveMinimum":-4.5,"exclusiveMaximum":1001,"multipleOf":1,"not":{"const":0}}`,
	`{"enum":["a",1,true,null,{"x":[1,2]}],"const":{"k":"v"},"default":  {"a" : [1, 2] },"examples":[1,"two",null]}`,
	`{"type":"object","properties":{"a":{"type":"string"},"b":true,"c":false,"d":{}},"required":["a"],"additionalProperties":false,
	  "patternProperties":{"^x":{"type":"number"}},"propertyNames":{"maxLength":8},"minProperties":0,"maxProperties":9,
	  "dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{"required":["c"]}},"unevaluatedProperties":false}`,
	`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3,"uniqueItems":true,"contains":{"const":1},"minContains":1,"maxContains":2}`,
	`{"items":[{"type":"string"},true],"additionalItems":false}`,
	`{"prefixItems":[{"type":"string"},{"type":"number"}],"unevaluatedItems":false}`,
	`{"anyOf":[{"type":"string"},{"type":"null"}],"oneOf":[true,{"minimum":1}],"allOf":[],"if":{"required":["a"]},"then":{"minProperties":2},"else":false}`,
	`{"$id":"https://example.com/s","$schema":"https://json-schema.org/draft/2020-12/schema","$comment":"c","$anchor":"top",
	  "$defs":{"n":{"type":"number"}},"definitions":{"m":{"$ref":"#/$defs/n"}},"$ref":"#/$defs/n","$dynamicAnchor":"d","$dynamicRef":"#d",
	  "$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true}}`,
	`{"title":"T","deprecated":true,"readOnly":false,"writeOnly":true,"contentEncoding":"base64","contentMediaType":"image/png","contentSchema":{"type":"string"}}`,
	`{"properties":{"deep":{"anyOf":[{"type":"object","properties":{"x":{"type":"array","items":{"anyOf":[{"type":"string","enum":["a"]},{"type":"null"}]}}}},{"type":"null"}]}}}`,
	"{\"description\":\"line\\nbreak \\u00e9 \\ud83d\\ude00\",\"title\":\"\\\"q\\\"\"}",
	`{"minLength":2147483647,"maxLength":-2147483648}`,
	"{\"description\":\"invalid \xff UTF-8, replaced as encoding/json does\"}",
	`{"type":[],"required":[],"enum":[],"examples":[[],{}],"const":[1,{"a":null}]}`,
	`{"enum":["\u00e9\n",-0.5e-3,false],"required":["a\"b"],"minimum":-0,"maximum":1.7976931348623157e308}`,
}

// fallbackCases are schemas outside the fast path; Decode must hand them to
// the library, errors included.
var fallbackCases = []string{
	``,
	`   `,
	`null`,
	`"string"`,
	`7`,
	`[{"type":"string"}]`,
	`{`,
	`{"type":"string"} trailing`,
	`{"type":7}`,
	`{"type":null}`,
	`{"type":"string","type":"number"}`,
	`{"properties":{"a":{}},"properties":{"b":{}}}`,
	`{"Type":"string"}`,
	`{"TYPE":"string","description":"x"}`,
	`{"x-extension":1,"type":"string"}`,
	`{"\u0074ype":"string"}`,
	`{"dependencies":{"a":["b"],"c":{"required":["d"]}}}`,
	`{"const":null}`,
	`{"items":null}`,
	`{"not":null}`,
	`{"anyOf":[null]}`,
	`{"properties":{"a":null}}`,
	`{"properties":[]}`,
	`{"anyOf":{}}`,
	`{"minLength":1.5}`,
	`{"minLength":1e3}`,
	`{"minLength":"3"}`,
	`{"minLength":4294967296}`,
	`{"minLength":1.0e400}`,
	`{"minimum":"1"}`,
	`{"required":"a"}`,
	`{"required":[1]}`,
	`{"enum":{}}`,
	`{"deprecated":"yes"}`,
	`{"description":7}`,
	`{"description":null}`,
	`{"$vocabulary":{"a":"b"}}`,
	"{\"bad \xff key\":1}",
	"{\"properties\":{\"\x87\":{}}}",
	"{\"$defs\":{\"a\xc3\":{\"type\":\"string\"}}}",
	`{"required":["a",null]}`,
	`{"type":["string",7]}`,
	`{"enum":[1e400]}`,
	`{"minimum":1e400}`,
	`{"minimum":true}`,
	`{"uniqueItems":1}`,
	`{"examples":"x"}`,
	`{"anyOf":[{"type":"string"},null]}`,
}

// library decodes raw as json.Unmarshal does, through the library's
// UnmarshalJSON.
func library(raw []byte) (*jsonschema.Schema, error) {
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// same fails t unless Decode and the library agree on raw: the same schema,
// or the same error.
func same(t *testing.T, raw []byte) {
	t.Helper()
	got, gotErr := Decode(raw)
	want, wantErr := library(raw)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, the library's %v", raw, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("%q:\n got %s %#v\nwant %s %#v", raw, g, got, w, want)
	}
}

func TestDecodeMatchesLibrary(t *testing.T) {
	for _, c := range append(append([]string{}, fastCases...), fallbackCases...) {
		same(t, []byte(c))
	}
}

// TestFastPath: ordinary schemas take the one-pass reader, the rest do not.
func TestFastPath(t *testing.T) {
	fast := func(raw string) bool {
		if !json.Valid([]byte(raw)) {
			return false
		}
		p := schemaParser{data: []byte(raw)}
		_, ok := p.schema()
		return ok
	}
	for _, c := range fastCases {
		if !fast(c) {
			t.Errorf("%s: not on the fast path", c)
		}
	}
	for _, c := range fallbackCases {
		if fast(c) {
			t.Errorf("%q: on the fast path", c)
		}
	}
}

// TestResolvedAlike: a decoded schema resolves and validates as the
// library's does.
func TestResolvedAlike(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1},"s":{"type":"string","enum":["a","b"]}},"required":["n"],"additionalProperties":false}`)
	s, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v  map[string]any
		ok bool
	}{
		{map[string]any{"n": 1.0, "s": "a"}, true},
		{map[string]any{"n": 0.0}, false},
		{map[string]any{"s": "a"}, false},
		{map[string]any{"n": 2.0, "s": "c"}, false},
		{map[string]any{"n": 2.0, "x": 1.0}, false},
	} {
		if err := r.Validate(c.v); (err == nil) != c.ok {
			t.Errorf("%v: %v", c.v, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	for _, c := range fallbackCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { same(t, raw) })
}
