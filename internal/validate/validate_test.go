package validate

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestCompileObjectRefusesExternalRefs(t *testing.T) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/schema.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`,
	} {
		if _, err := CompileObject(json.RawMessage(s)); err == nil {
			t.Errorf("%s: compiled", s)
		}
	}
	if _, err := CompileObject(json.RawMessage(`{"type":"array"}`)); err == nil {
		t.Error("non-object schema compiled")
	}
}

func TestCheck(t *testing.T) {
	s, err := CompileObject(json.RawMessage(`{"type":"object","properties":{
		"group_id":{"type":"integer","minimum":1},
		"message_id":{"type":"integer","not":{"const":0}},
		"limit":{"type":"integer","minimum":1,"maximum":200},
		"match":{"type":"string","enum":["substring","keywords"]},
		"ids":{"type":"array","items":{"type":"integer"}}},
		"required":["group_id"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in   string
		want []string // pointer: fragment of the problem
	}{
		{`{"group_id":1}`, nil},
		{`{"group_id":12345678901234567890}`, nil},
		{`{"group_id":1,"message_id":-2147483648}`, nil},
		{`{"group_id":"s3cret-value"}`, []string{"/group_id: expected integer ≥ 1"}},
		{`{"group_id":0}`, []string{"/group_id: expected integer ≥ 1"}},
		{`{"group_id":1.5}`, []string{"/group_id: expected integer"}},
		{`{}`, []string{"/group_id: is required"}},
		{`{"group_id":1,"message_id":0}`, []string{"/message_id: expected integer other than 0"}},
		{`{"group_id":1,"limit":201}`, []string{"/limit: expected integer from 1 to 200"}},
		{`{"group_id":1,"match":"regex"}`, []string{`/match: expected string one of "substring", "keywords"`}},
		{`{"group_id":1,"ids":[1,"x"]}`, []string{"/ids: expected array of integer"}},
		{`{"group_id":1,"colour":"red"}`, []string{"/colour: is not accepted; accepted: group_id, ids, limit, match, message_id"}},
		{`[1]`, []string{"/: must be a JSON object"}},
		{`{"limit":0,"colour":1}`, []string{"/colour", "/group_id", "/limit"}},
	} {
		errs := s.Check(json.RawMessage(tc.in))
		if len(errs) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.in, errs, tc.want)
			continue
		}
		for i, e := range errs {
			if !strings.Contains(e.String(), tc.want[i]) {
				t.Errorf("%s: %q lacks %q", tc.in, e.String(), tc.want[i])
			}
			if strings.Contains(e.String(), "s3cret") {
				t.Errorf("%s: problem echoes the value: %s", tc.in, e)
			}
		}
	}
}

// TestCompilerSharesProperties: a Compiler compiles a property schema once
// however many objects declare it, and each object still checks by it and
// names its own property when it fails to compile.
func TestCompilerSharesProperties(t *testing.T) {
	var c Compiler
	var wg sync.WaitGroup
	objs := make([]*ObjectSchema, 8)
	for i := range objs {
		wg.Go(func() {
			var err error
			objs[i], err = c.CompileObject(json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"integer","minimum":1},"q":{"type":"string"}},"required":["p%d"]}`, i, i)))
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, o := range objs {
		if o.props[fmt.Sprintf("p%d", i)].resolved != objs[0].props["p0"].resolved || o.props["q"].resolved != objs[0].props["q"].resolved {
			t.Errorf("object %d compiled its properties anew", i)
		}
		if errs := o.Check(json.RawMessage(fmt.Sprintf(`{"p%d":0,"q":1}`, i))); len(errs) != 2 {
			t.Errorf("object %d: %v", i, errs)
		}
	}
	if len(c.props) != 2 {
		t.Errorf("%d property schemas compiled, want 2", len(c.props))
	}
	for _, name := range []string{"bad", "worse"} {
		_, err := c.CompileObject(json.RawMessage(`{"type":"object","properties":{"` + name + `":{"type":7}}}`))
		if err == nil || !strings.Contains(err.Error(), `property "`+name+`"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
