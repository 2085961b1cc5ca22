package mcptest

import (
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
	list := []byte(`{"jsonrpc":"2.0","id":100,"method":"tools/list"}`)
	listing := answer(100, `{"tools":[{"name":"count","inputSchema":{"type":"object"},"outputSchema":`+countSchema+`},`+
		`{"name":"plain","inputSchema":{"type":"object"}}]}`)
	good := structured(`{"result":3,"diagnostics":{"outcome":"success"}}`)
	refusal := structured(`{"result":null,"diagnostics":{"outcome":"failed"}}`)
	for _, tc := range []struct {
		name           string
		sent, received [][]byte
		needsListing   bool     // before the listing, if there is one
		want           []string // a substring of each error, in order
	}{
		{
			name:     "listed first",
			sent:     [][]byte{list, call(2, "count")},
			received: [][]byte{listing, answer(2, good)},
		},
		{
			name:         "listed at the end, as Close does",
			sent:         [][]byte{call(1, "count"), call(2, "count"), list},
			received:     [][]byte{answer(1, good), answer(2, structured(`{"result":1.5,"diagnostics":{"outcome":"success"}}`)), listing},
			needsListing: true,
			want:         []string{"tools/call count: structuredContent fails the outputSchema of count"},
		},
		{
			name:     "result outside the schema",
			sent:     [][]byte{list, call(2, "count")},
			received: [][]byte{listing, answer(2, structured(`{"result":"three","diagnostics":{"outcome":"success"}}`))},
			want:     []string{"tools/call count: structuredContent fails the outputSchema of count"},
		},
		{
			name: "input required, task handle, JSON-RPC error",
			sent: [][]byte{call(1, "count"), call(2, "count"), call(3, "count")},
			received: [][]byte{answer(1, `{"resultType":"input_required","inputRequests":{}}`), answer(3, `{"resultType":"task","task":{"taskId":"t1"}}`),
				[]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown tool"}}`)},
			needsListing: true, // the input-required result is only seen as one when checked
		},
		{
			name:     "no structuredContent",
			sent:     [][]byte{list, call(1, "count")},
			received: [][]byte{listing, answer(1, `{"content":[{"type":"text","text":"3"}]}`)},
			want:     []string{"tools/call count: the result has no structuredContent"},
		},
		{
			name:         "no listing",
			sent:         [][]byte{call(1, "count")},
			received:     [][]byte{answer(1, good)},
			needsListing: true,
			want:         []string{"no tools/list answer"},
		},
		{
			name:         "a hidden tool refuses",
			sent:         [][]byte{list, call(1, "secret")},
			received:     [][]byte{listing, answer(1, refusal)},
			needsListing: true, // listing again shows it no more, and does no harm
		},
		{
			name:         "a hidden tool answers",
			sent:         [][]byte{list, call(1, "secret"), call(2, "secret")},
			received:     [][]byte{listing, answer(1, good), answer(2, structured(`{"result":null,"diagnostics":{}}`))},
			needsListing: true,
			want:         []string{"tools/list does not show", "fails the outputSchema of count"},
		},
		{
			name:     "a tool without an outputSchema",
			sent:     [][]byte{list, call(1, "plain")},
			received: [][]byte{listing, answer(1, good)},
			want:     []string{"declares no outputSchema"},
		},
		{
			name:     "an id used twice",
			sent:     [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), call(1, "count")},
			received: [][]byte{answer(1, string(listing[len(`{"jsonrpc":"2.0","id":100,"result":`):len(listing)-1])), answer(1, structured(`{"result":true,"diagnostics":{"outcome":"success"}}`))},
			want:     []string{"fails the outputSchema of count"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.sent)
			if len(tc.sent) > 0 && string(tc.sent[len(tc.sent)-1]) == string(list) {
				before--
			}
			if got := replay(tc.sent[:before], tc.received[:before]).needsListing(); got != tc.needsListing {
				t.Errorf("needsListing before the listing = %v, want %v", got, tc.needsListing)
			}
			errs := replay(tc.sent, tc.received).checkOutputs()
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

// TestCheckMessages: each line the server wrote is decoded once and checked
// against the era's schema by what it is: a response by the method it
// answers, a notification by its method, anything else refused.
func TestCheckMessages(t *testing.T) {
	v := NewValidator(t, Legacy) // 2025-11-25: results need no resultType
	if v == nil {
		t.Skip("no schema outside CI (NewValidator said why)")
	}
	sent := [][]byte{call(1, "count"), call(2, "count"), []byte(`{"jsonrpc":"2.0","id":"a","method":"ping"}`)}
	received := [][]byte{
		answer(1, structured(`{"result":3,"diagnostics":{"outcome":"success"}}`)),
		answer(2, `{"content":"three"}`),
		[]byte(`{"jsonrpc":"2.0","id":"a","result":{}}`),
		[]byte(`{"jsonrpc":"2.0","id":9,"result":{}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/unheard_of"}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`),
		[]byte(`hello`),
		[]byte(`[1]`),
	}
	want := []string{
		"as CallToolResult", // content must be an array
		"response to unknown request id 9",
		`"notifications/unheard_of"`,
		"JSONRPCErrorResponse", // an error needs its message
		"not JSON",
		"not a JSON-RPC object",
	}
	errs := replay(sent, received).checkMessages(v)
	if len(errs) != len(want) {
		t.Fatalf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, err := range errs {
		if !strings.Contains(err.Error(), want[i]) {
			t.Errorf("error %d: %v, want %q", i, err, want[i])
		}
	}
}
