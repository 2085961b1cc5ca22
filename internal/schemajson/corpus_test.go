package schemajson_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/schemajson"
	"github.com/snowluma/snowluma-mcp/internal/server"
)

// TestProjectSchemas holds Decode to the library's result on every schema
// this project declares: each catalog action's parameter, input and result
// schemas, and every tool's input and output schema in every mode.
func TestProjectSchemas(t *testing.T) {
	check := func(where string, raw []byte) {
		t.Helper()
		got, err := schemajson.Decode(raw)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		want := new(jsonschema.Schema)
		if err := json.Unmarshal(raw, want); err != nil {
			t.Errorf("%s: the library: %v", where, err)
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded unlike the library", where)
		}
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range cat.Actions() {
		check(a.Name+" inputSchema", a.InputSchema)
		check(a.Name+" returnsSchema", a.ReturnsSchema)
		for _, p := range a.Params {
			if len(p.Schema) > 0 {
				check(a.Name+" param "+p.Name, p.Schema)
			}
		}
		n++
	}
	for _, mode := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
		tools, err := server.Definitions(mode, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
				raw, err := json.Marshal(schema)
				if err != nil {
					t.Fatal(err)
				}
				check(string(mode)+" "+tool.Name+" "+kind, raw)
				n++
			}
		}
	}
	if n < 177+20 {
		t.Errorf("only %d schemas checked", n)
	}
}
