package quote

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendJSONMatchesEncoder: AppendJSON writes what encoding/json
// writes for the same string with HTML escaping off, for every kind of
// byte the quoter treats apart.
func TestAppendJSONMatchesEncoder(t *testing.T) {
	for _, s := range quoteSeeds {
		checkQuoted(t, s)
	}
}

func FuzzAppendJSON(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(checkQuoted)
}

var quoteSeeds = []string{
	"", "plain", `{"result":{"count":1},"diagnostics":{"outcome":"success"}}`,
	"quote \" backslash \\ slash /", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "禁言 群 踢人 🙂", "line\u2028sep\u2029end",
	"\xff\xfe bad \xe2\x80 cut", "\xe2\x80\xa8", "tail\xc3",
}

func checkQuoted(t *testing.T, s string) {
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	wantQ := bytes.TrimSuffix(want.Bytes(), []byte("\n"))
	got := AppendJSON([]byte("prefix"), s)
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], wantQ) {
		t.Errorf("%q: AppendJSON wrote %s, encoding/json %s", s, got[len("prefix"):], wantQ)
	}
}
