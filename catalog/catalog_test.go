package catalog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func mustLoad(t *testing.T) *Catalog {
	t.Helper()
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEntries is the catalog's integrity check: every entry is complete,
// every schema compiles as JSON Schema 2020-12, and every example validates
// against its action's inputSchema.
func TestEntries(t *testing.T) {
	c := mustLoad(t)
	if c.Len() == 0 {
		t.Fatal("catalog is empty")
	}
	for _, a := range c.Actions() {
		t.Run(a.Name, func(t *testing.T) {
			if strings.TrimSpace(a.Summary) == "" {
				t.Error("summary is empty")
			}
			if strings.TrimSpace(a.Returns) == "" {
				t.Error("returns is empty")
			}
			if _, ok := c.Category(a.Category); !ok {
				t.Errorf("category %q is unknown", a.Category)
			}
			for _, p := range a.Params {
				if strings.TrimSpace(p.Description) == "" {
					t.Errorf("parameter %q has no description", p.Name)
				}
			}
			in, err := strictCompile(a.InputSchema)
			if err != nil {
				t.Fatalf("inputSchema does not compile: %v", err)
			}
			if len(a.ReturnsSchema) == 0 {
				t.Error("returnsSchema is missing")
			} else if _, err := strictCompile(a.ReturnsSchema); err != nil {
				t.Errorf("returnsSchema does not compile: %v", err)
			}
			if len(a.Examples) == 0 {
				t.Error("no examples")
			}
			for i, ex := range a.Examples {
				if strings.TrimSpace(ex.Summary) == "" {
					t.Errorf("example %d has no summary", i)
				}
				v, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex.Params))
				if err != nil {
					t.Fatal(err)
				}
				if errs := strictValidate(in, v); errs != nil {
					t.Errorf("example %d (%s) does not validate: %v", i, ex.Summary, errs)
				}
				var params map[string]any
				if err := json.Unmarshal(ex.Params, &params); err != nil || params == nil {
					t.Fatalf("example %d: params are not an object", i)
				}
				if id, ok := params["message_id"]; ok && id == float64(0) && !strings.Contains(ex.Notes, "sentinel") {
					t.Errorf("example %d uses message_id 0", i)
				}
			}
		})
	}
}

func TestCategoryCounts(t *testing.T) {
	c := mustLoad(t)
	total := 0
	for _, cat := range c.Categories() {
		if got := len(c.List(Filter{Category: cat.Name})); got != cat.Count {
			t.Errorf("category %s: count %d, but %d actions", cat.Name, cat.Count, got)
		}
		total += cat.Count
	}
	if total != c.Len() {
		t.Errorf("categories count %d actions, catalog has %d", total, c.Len())
	}
}

func TestLookupAlias(t *testing.T) {
	c := mustLoad(t)
	for _, a := range c.Actions() {
		for _, alias := range a.Aliases {
			got, ok := c.Lookup(alias)
			if !ok || got != a {
				t.Errorf("alias %q does not resolve to %q", alias, a.Name)
			}
		}
	}
	if _, ok := c.Lookup("no_such_action"); ok {
		t.Error("unknown name resolved")
	}
}

func TestDuplicateNamesRejected(t *testing.T) {
	c := &Catalog{byName: map[string]*Action{}}
	if err := c.add(&Action{Brief: Brief{Name: "a", Aliases: []string{"b"}}}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []*Action{{Brief: Brief{Name: "b"}}, {Brief: Brief{Name: "c", Aliases: []string{"a"}}}} {
		if err := c.add(a); err == nil {
			t.Errorf("%+v: duplicate accepted", a)
		}
	}
}
