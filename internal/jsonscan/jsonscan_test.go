package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzObject holds Object to encoding/json: it accepts exactly the objects
// json.Valid accepts, at any depth, and every member it hands over is one
// valid key and one valid value.
func FuzzObject(f *testing.F) {
	for _, s := range []string{
		`{"status":"ok","retcode":0,"data":{"type":"stream","index":0,"data":"YWJj","size":3}}`,
		`{"a":"x\u00e9\"\\","b":[1,{"c":[true,false,null]}],"d":-1.5e3}`,
		` {"k\u0041":{}} `, `{"a":1,}`, `{"a":1} x`, `{"a":01}`, "{\"a\":\"\x01\"}", `[]`, `{"a":"\ud800"}`,
		"{\"a\":\"\xff\"}", `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a"1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		trimmed := bytes.TrimLeft(b, " \t\r\n")
		valid := json.Valid(b) && len(trimmed) > 0 && trimmed[0] == '{'
		err := Object(b, func(k, v []byte) error {
			if !json.Valid(k) || !json.Valid(v) {
				t.Fatalf("member %q: %q is not one JSON value", k, v)
			}
			if _, ok := Key(k); !ok {
				t.Fatalf("key %q does not decode", k)
			}
			return nil
		}, func([]byte) Visitor { return nil })
		if (err == nil) != valid {
			t.Fatalf("Object says %v, encoding/json says valid=%v, for %q", err, valid, b)
		}
	})
}

// TestDepthLimit: the limit is encoding/json's, at the same level.
func TestDepthLimit(t *testing.T) {
	for _, n := range []int{63, 64, 65, 9998, 9999, 10000} {
		raw := []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
		if err := Object(raw, nil, nil); (err == nil) != json.Valid(raw) {
			t.Errorf("nesting %d: Object %v, json.Valid %v", n+1, err, json.Valid(raw))
		}
	}
}

// TestNestedVisitor: one pass reads the members of a top-level member's
// object too, and a visitor's error ends the scan.
func TestNestedVisitor(t *testing.T) {
	var top, inner []string
	err := Object([]byte(`{"status":"ok","data":{"type":"stream","n":{"deep":1}},"x":{"y":2}}`), func(k, v []byte) error {
		top = append(top, string(k))
		return nil
	}, func(k []byte) Visitor {
		if string(k) != `"data"` {
			return nil
		}
		return func(k, v []byte) error { inner = append(inner, string(k)+"="+string(v)); return nil }
	})
	if err != nil || strings.Join(top, ",") != `"status","data","x"` || strings.Join(inner, ",") != `"type"="stream","n"={"deep":1}` {
		t.Errorf("%v: top %q inner %q", err, top, inner)
	}
	stop := errors.New("stop")
	if err := Object([]byte(`{"a":1,"b":2}`), func(k, v []byte) error { return stop }, nil); err != stop {
		t.Errorf("a visitor's error: %v", err)
	}
	var se *SyntaxError
	if err := Object([]byte(`{"a":1,}`), nil, nil); !errors.As(err, &se) || se.Offset != 7 {
		t.Errorf("syntax error %v", err)
	}
}

func TestValues(t *testing.T) {
	for raw, want := range map[string]string{`"abc"`: "abc", `"a\"b"`: `a"b`, `"\u00e9"`: "é", "\"\xff\"": "\ufffd"} {
		if got, ok := String([]byte(raw)); !ok || got != want {
			t.Errorf("String(%s) = %q %v, want %q", raw, got, ok, want)
		}
	}
	if _, ok := String([]byte(`12`)); ok {
		t.Error("String of a number")
	}
	for raw, want := range map[string]int64{`12`: 12, `"-7"`: -7, `0`: 0} {
		if got, err := Int([]byte(raw)); err != nil || got != want {
			t.Errorf("Int(%s) = %d %v", raw, got, err)
		}
	}
	for _, raw := range []string{`1.5`, `"x"`, `true`, `"1e3"`} {
		if _, err := Int([]byte(raw)); err == nil {
			t.Errorf("Int(%s): want an error", raw)
		}
	}
	for raw, want := range map[string]bool{`1`: true, `-0.5e+3`: true, `01`: false, `"1"`: false, `1 `: false, ``: false} {
		if IsNumber([]byte(raw)) != want {
			t.Errorf("IsNumber(%q) != %v", raw, want)
		}
	}
	if k, ok := Key([]byte(`"k\u0041"`)); !ok || string(k) != "kA" {
		t.Errorf("Key: %q %v", k, ok)
	}
}
