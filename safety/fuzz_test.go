package safety

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRedactData: whatever SnowLuma answers, a redacted answer is valid
// JSON whose data holds no string but Redacted and no number, and whose
// other members are unchanged.
func FuzzRedactData(f *testing.F) {
	f.Add([]byte(`{"status":"ok","retcode":0,"data":{"cookies":"a=b","bkn":5,"l":[1,"x",true,null,{}]}}`))
	f.Add([]byte(`{"data":"k","data":7}`))
	f.Add([]byte(`{"status":"failed","retcode":100,"data":null}`))
	f.Add([]byte(`{"data":[[[[]]]],"echo":"\u003c"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := RedactData(in)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q from %q", out, in)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		dec.Token() // {
		for dec.More() {
			k, _ := dec.Token()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if k == "data" {
				checkRedacted(t, v)
			}
		}
	})
}

func checkRedacted(t *testing.T, v json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case json.Number:
			t.Fatalf("a number survived: %s", v)
		case string:
			if x != Redacted {
				t.Fatalf("a string survived: %s", v)
			}
		}
	}
	walk(tree)
}

// FuzzExtractTargets: any params object yields only positive ids, and an
// allowlist never lets through an id outside it.
func FuzzExtractTargets(f *testing.F) {
	f.Add([]byte(`{"group_id":20001,"user_id":[1,"2",3.5,"x",null]}`))
	f.Add([]byte(`{"group_id":"00020001","user_id":-1}`))
	f.Add([]byte(`{"group_id":[[1]],"user_id":{"a":1}}`))
	allowed, _ := ParseIDs("20001")
	p := &Policy{Groups: allowed, Users: allowed}
	f.Fuzz(func(t *testing.T, in []byte) {
		tg, err := ExtractTargets(in)
		if err != nil {
			return
		}
		for _, id := range append(append([]int64{}, tg.Groups...), tg.Users...) {
			if id <= 0 {
				t.Fatalf("id %d from %q", id, in)
			}
		}
		refused := p.CheckTargets(tg)
		for _, id := range append(append([]int64{}, tg.Groups...), tg.Users...) {
			if id != 20001 && len(refused) == 0 {
				t.Fatalf("id %d passed the allowlist from %q", id, in)
			}
		}
		if len(tg.Unreadable) > 0 && len(refused) == 0 {
			t.Fatalf("unreadable %v passed the allowlist", tg.Unreadable)
		}
	})
}
