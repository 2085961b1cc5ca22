package transfer

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/jsonscan"
)

// FuzzParseDownloadFrame holds the one-pass frame reader to encoding/json:
// it accepts exactly the objects encoding/json accepts (within its depth
// bound), and reads the same envelope fields from them.
func FuzzParseDownloadFrame(f *testing.F) {
	for _, s := range []string{
		`{"status":"ok","retcode":0,"data":{"type":"stream","data_type":"file_chunk","index":0,"data":"YWJj","size":3}}`,
		`{"status":"failed","retcode":"1200","data":{"type":"error"},"wording":"x\u00e9\"\\"}`,
		` {"status":"ok","retcode":-1.5e3,"data":[1,{"a":[true,false,null]}]} `,
		`{"status":"ok","data":{"type":"response","data_type":"file_complete","total_chunks":2,"total_bytes":"6"}}`,
		`{"status":"ok",}`, `{"status":"ok"} x`, `{"a":01}`, `{"a":"\x01"}`, `[]`, `{"status":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		trimmed := bytes.TrimLeft(b, jsonSpace)
		valid := json.Valid(b) && len(trimmed) > 0 && trimmed[0] == '{'
		if err := jsonscan.Object(b, func(k, v []byte) error {
			if !json.Valid(k) || !json.Valid(v) {
				t.Fatalf("member %q: %q is not one JSON value", k, v)
			}
			return nil
		}, nil); (err == nil) != valid {
			t.Fatalf("members says %v, encoding/json says valid=%v, for %q", err, valid, b)
		}
		got, err := parseDownloadFrame(b)
		if err != nil {
			return
		}
		want, werr := parseFrame(bytes.Trim(b, jsonSpace), "stream frame")
		if werr != nil {
			t.Fatalf("fast reader accepts what encoding/json refuses (%v): %q", werr, b)
		}
		if got.Status != want.Status || got.Retcode != want.Retcode || got.Type != want.Type || got.Terminal != want.Terminal || !bytes.Equal(got.Data, want.Data) {
			t.Fatalf("fast %+v, encoding/json %+v, for %q", got.Frame, want, b)
		}
	})
}
