package mcptest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// countSchema is the outputSchema of the tools in these tests: the
// {result, diagnostics} envelope with an integer result.
const countSchema = `{"type":"object","properties":{"result":{"anyOf":[{"type":"integer"},{"type":"null"}]},` +
	`"diagnostics":{"type":"object","properties":{"outcome":{"enum":["success","failed"]}},"required":["outcome"]}},` +
	`"required":["result","diagnostics"]}`

func call(id int, tool string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, id, tool)
}

func answer(id int, result string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":%s}`, id, result)
}

func structured(sc string) string {
	return `{"content":[{"type":"text","text":"x"}],"structuredContent":` + sc + `}`
}

func TestCheckOutputs(t *testing.T) {
	listing := `{"tools":[{"name":"count","inputSchema":{"type":"object"},"outputSchema":` + countSchema + `},` +
		`{"name":"plain","inputSchema":{"type":"object"}}]}`
	good := structured(`{"result":3,"diagnostics":{"outcome":"success"}}`)
	refusal := structured(`{"result":null,"diagnostics":{"outcome":"failed"}}`)
	for _, tc := range []struct {
		name           string
		sent, received [][]byte
		lister         map[string]json.RawMessage // what the fallback listing returns; nil: it must not be needed
		want           []string                   // a substring of each error, in order
	}{
		{
			name:     "listed in the session",
			sent:     [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), call(2, "count")},
			received: [][]byte{answer(1, listing), answer(2, good)},
		},
		{
			name:     "result outside the schema",
			sent:     [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), call(2, "count")},
			received: [][]byte{answer(1, listing), answer(2, structured(`{"result":"three","diagnostics":{"outcome":"success"}}`))},
			want:     []string{"tools/call count: structuredContent fails the outputSchema of count"},
		},
		{
			name:     "listed later, by the fallback, once",
			sent:     [][]byte{call(1, "count"), call(2, "count"), call(3, "count")},
			received: [][]byte{answer(1, good), answer(2, structured(`{"result":1.5,"diagnostics":{"outcome":"success"}}`)), answer(3, good)},
			lister:   map[string]json.RawMessage{"count": json.RawMessage(countSchema)},
			want:     []string{"tools/call count: structuredContent fails"},
		},
		{
			name:     "input required, JSON-RPC error",
			sent:     [][]byte{call(1, "count"), call(2, "count")},
			received: [][]byte{answer(1, `{"resultType":"input_required","inputRequests":{}}`), []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool"}}`)},
		},
		{
			name:     "no structuredContent",
			sent:     [][]byte{call(1, "count")},
			received: [][]byte{answer(1, `{"content":[{"type":"text","text":"3"}]}`)},
			want:     []string{"tools/call count: the result has no structuredContent"},
		},
		{
			name:     "a hidden tool refuses",
			sent:     [][]byte{call(1, "secret")},
			received: [][]byte{answer(1, refusal)},
			lister:   map[string]json.RawMessage{"count": json.RawMessage(countSchema), "plain": nil},
		},
		{
			name:     "a hidden tool answers",
			sent:     [][]byte{call(1, "secret"), call(2, "secret")},
			received: [][]byte{answer(1, good), answer(2, structured(`{"result":null,"diagnostics":{}}`))},
			lister:   map[string]json.RawMessage{"count": json.RawMessage(countSchema)},
			want:     []string{"no tools/list shows", "fails the outputSchema of count"},
		},
		{
			name:     "a tool without an outputSchema",
			sent:     [][]byte{call(1, "plain")},
			received: [][]byte{answer(1, good)},
			lister:   map[string]json.RawMessage{"plain": nil},
			want:     []string{"declares no outputSchema"},
		},
		{
			name:     "an id used twice",
			sent:     [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), call(1, "count")},
			received: [][]byte{answer(1, listing), answer(1, structured(`{"result":true,"diagnostics":{"outcome":"success"}}`))},
			want:     []string{"fails the outputSchema of count"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lists := 0
			errs := replay(tc.sent, tc.received).checkOutputs(func() (map[string]json.RawMessage, error) {
				lists++
				if tc.lister == nil {
					return nil, errors.New("the session's own listing should have sufficed")
				}
				return tc.lister, nil
			})
			if lists > 1 {
				t.Errorf("listed %d times", lists)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("errors %v, want %d", errs, len(tc.want))
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tc.want[i]) {
					t.Errorf("error %d: %v, want %q", i, err, tc.want[i])
				}
			}
		})
	}
}
