package seal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func hashOf(t *testing.T, v any) string {
	t.Helper()
	h, err := CanonicalHash(v)
	if err != nil {
		t.Fatalf("CanonicalHash(%v): %v", v, err)
	}
	if !isHex(h, 64) {
		t.Fatalf("CanonicalHash = %q, want 64 lowercase hex digits", h)
	}
	return h
}

func TestCanonicalForm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, `{}`},
		{` [ ] `, `[]`},
		{"\t{ \"b\" : [ 1 , {\"z\":null, \"a\":true} ],\n\"a\":\"x\\u0041\\n\\u001F\\/<\"}\r\n",
			`{"a":"xA\n\u001f/<","b":[1,{"a":true,"z":null}]}`},
		{`"\b\f\n\r\t\u0000\u007f\u2028é😀"`, "\"\\b\\f\\n\\r\\t\\u0000\u007f\u2028é😀\""},
		{`"\ud83d\ude00"`, `"😀"`},
		{`"\"\\"`, `"\"\\"`},
		{`12345678901234567890.000e-0001`, `12345678901234567890.000e-0001`},
		{`-0`, `-0`},
		{`{"b":1,"a":2,"ab":3,"":4,"é":5,"Z":6}`, `{"":4,"Z":6,"a":2,"ab":3,"b":1,"é":5}`},
	} {
		got, err := canonicalize([]byte(tc.in))
		if err != nil {
			t.Errorf("canonicalize(%q): %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("canonicalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCanonicalHashIsSHA256OfCanonicalForm(t *testing.T) {
	sum := sha256.Sum256([]byte(`{"a":[1,2],"b":"c"}`))
	if got, want := hashOf(t, json.RawMessage(` {"b":"c", "a":[1, 2]} `)), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("hash = %s, want %s", got, want)
	}
}

func TestCanonicalHashEqual(t *testing.T) {
	for _, group := range [][]any{
		{
			json.RawMessage(`{"action":"send_group_msg","params":{"group_id":20001,"message":"hi"}}`),
			json.RawMessage(`{ "params" : { "message" : "hi" , "group_id" : 20001 } , "action" : "send_group_msg" }`),
			json.RawMessage("{\n\t\"params\": {\"message\": \"\\u0068\\u0069\", \"group_id\": 20001},\n\t\"action\": \"send_group_msg\"\n}\n"),
			map[string]any{"action": "send_group_msg", "params": map[string]any{"group_id": json.Number("20001"), "message": "hi"}},
			struct {
				Params struct {
					Message string `json:"message"`
					GroupID int64  `json:"group_id"`
				} `json:"params"`
				Action string `json:"action"`
			}{Params: struct {
				Message string `json:"message"`
				GroupID int64  `json:"group_id"`
			}{"hi", 20001}, Action: "send_group_msg"},
		},
		{
			json.RawMessage(`{"n":12345678901234567890}`),
			map[string]any{"n": json.Number("12345678901234567890")},
		},
		{
			json.RawMessage(`"<&>"`),
			"<&>", // json.Marshal escapes these as \u003c, \u0026, \u003e
		},
	} {
		want := hashOf(t, group[0])
		for _, v := range group[1:] {
			if got := hashOf(t, v); got != want {
				t.Errorf("CanonicalHash(%#v) = %s, want %s as for %s", v, got, want, group[0])
			}
		}
	}
}

func TestCanonicalHashDiffers(t *testing.T) {
	for _, pair := range [][2]string{
		{`12345678901234567890`, `12345678901234567891`},
		{`1.0`, `1`}, // numbers compare as given text
		{`1e2`, `100`},
		{`1E2`, `1e2`},
		{`-0`, `0`},
		{`1`, `"1"`},
		{`null`, `{}`},
		{`[]`, `{}`},
		{`""`, `null`},
		{`false`, `0`},
		{`[1,2]`, `[2,1]`},
		{`[[1],[2]]`, `[[1,2]]`},
		{`{"a":{"b":[1,{"c":2}]}}`, `{"a":{"b":[1,{"c":3}]}}`},
		{`{"a":{"b":[1,{"c":2}]}}`, `{"a":{"b":[1,{"C":2}]}}`},
		{`{"a":1}`, `{"a":1,"b":null}`},
		{`{"a":"x"}`, `{"a":"x "}`},
		{`{"a":"é"}`, `{"a":"e\u0301"}`}, // no Unicode normalisation
		{`{"a":{}}`, `{"a":[]}`},
		{`{"a,b":1}`, `{"a":",b"}`},
		{`["a","b"]`, `["a\",\"b"]`},
	} {
		a, b := hashOf(t, json.RawMessage(pair[0])), hashOf(t, json.RawMessage(pair[1]))
		if a == b {
			t.Errorf("%s and %s hash equal", pair[0], pair[1])
		}
	}
}

func TestCanonicalHashRejects(t *testing.T) {
	for _, in := range []string{
		``,
		` `,
		`{`,
		`{"a":1,}`,
		`[1,]`,
		`{"a" 1}`,
		`{a:1}`,
		`{"a":1}{"b":2}`,
		`{"a":1} x`,
		`01`,
		`1.`,
		`.5`,
		`+1`,
		`1e`,
		`-`,
		`NaN`,
		`Infinity`,
		`tru`,
		`nul`,
		`'a'`,
		`"a`,
		`"\x"`,
		`"\u12"`,
		`"\u12G4"`,
		"\"a\tb\"",
		"\"\xff\"",
		"\"\xed\xa0\x80\"", // a surrogate encoded as UTF-8
		`"\ud800"`,
		`"\udc00"`,
		`"\ud800\u0041"`,
		`"\ude00\ud83d"`,
		`{"a":1,"a":1}`,
		`{"a":1,"b":{"secret":1,"secret":2}}`,
		`{"\u0061":1,"a":2}`,
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	} {
		h, err := CanonicalHash(json.RawMessage(in))
		if err == nil {
			t.Errorf("CanonicalHash(%q) = %s, want an error", in, h)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("CanonicalHash error %q repeats the input", err)
		}
	}
	if _, err := CanonicalHash(func() {}); err == nil {
		t.Error("CanonicalHash of a func succeeded")
	}
}

func TestCanonicalHashDepth(t *testing.T) {
	deep := strings.Repeat(`{"a":[`, maxDepth/2) + strings.Repeat(`]}`, maxDepth/2)
	hashOf(t, json.RawMessage(deep))
}

// FuzzCanonicalHash checks that canonicalize accepts exactly the input
// that unambiguous (see unambiguous) says it should, that its canonical
// form is a fixed point, and that the canonical form decodes to the same
// value as the input.
func FuzzCanonicalHash(f *testing.F) {
	for _, s := range []string{
		`{"b":[1,{"z":null,"a":true}],"a":"x\u0041\n"}`,
		`12345678901234567890.5e-3`,
		`"\ud83d\ude00\u2028<>&"`,
		`[[],{},"",0,-0,false]`,
		`{"a":1,"a":2}`,
		"\"\xff\"",
		" \t{\"a\":[1,2.5E+3,-0.0,\"\\/\\b\\u00e9\\ud83d\\ude00\"],\"\\u0062\":{}}\r\n", // valid: must be accepted
		`"\ud800\u0041"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		canon, err := canonicalize(in)
		ok, why := unambiguous(in)
		if err != nil {
			if ok {
				t.Fatalf("canonicalize refused valid, unambiguous JSON %q: %v", in, err)
			}
			return
		}
		if !ok {
			t.Fatalf("canonicalize accepted %q: %s", in, why)
		}
		again, err := canonicalize(canon)
		if err != nil || !bytes.Equal(again, canon) {
			t.Fatalf("canonical form %q is not a fixed point: %q, %v", canon, again, err)
		}
		if !reflect.DeepEqual(decode(t, in), decode(t, canon)) {
			t.Fatalf("%q and its canonical form %q decode differently", in, canon)
		}
	})
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %q: %v", b, err)
	}
	return v
}

// unambiguous is an oracle for what CanonicalHash must accept, built on
// encoding/json rather than on canonicalize's parser: one valid JSON value
// (encoding/json bounds nesting as maxDepth does), no object with a
// duplicate key, and no string that decodes only by repair (invalid UTF-8,
// an unpaired UTF-16 surrogate escape). When it says no, it says why.
func unambiguous(in []byte) (bool, string) {
	if !json.Valid(in) {
		return false, "not valid JSON"
	}
	// Strings, read from the raw text: json.Valid has checked the syntax,
	// so a '"' outside a string starts one and '\\' inside one escapes.
	for i := 0; i < len(in); i++ {
		if in[i] != '"' {
			continue
		}
		j := i + 1
		for in[j] != '"' {
			if in[j] == '\\' {
				j++
			}
			j++
		}
		if why := rawStringProblem(in[i+1 : j]); why != "" {
			return false, why
		}
		i = j
	}
	// Duplicate keys, with the strings now known to decode exactly.
	type frame struct {
		object  bool
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true, ""
		}
		if err != nil {
			return false, err.Error()
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			key := tok.(string)
			if stack[n-1].keys[key] {
				return false, fmt.Sprintf("duplicate key %q", key)
			}
			stack[n-1].keys[key] = true
			stack[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

// rawStringProblem says what makes the raw text of a string (between its
// quotes, escapes not yet decoded) ambiguous, or "" when nothing does.
func rawStringProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return "invalid UTF-8 in a string"
	}
	hex := func(i int) rune {
		r, _ := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
		return rune(r)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if raw[i] != 'u' {
			continue
		}
		r := hex(i + 1)
		i += 4
		switch {
		case 0xdc00 <= r && r <= 0xdfff:
			return "a low surrogate escape with no high one before it"
		case 0xd800 <= r && r <= 0xdbff:
			if i+6 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
				return "a high surrogate escape with no escape after it"
			}
			if low := hex(i + 3); low < 0xdc00 || low > 0xdfff {
				return "a high surrogate escape not followed by a low one"
			}
			i += 6
		}
	}
	return ""
}
