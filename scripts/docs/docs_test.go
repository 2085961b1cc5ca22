package main

import (
	"strings"
	"testing"
)

// TestREADMEUpToDate fails when a tool, a variable or a failure kind
// changed without the generated tables of the README and docs/ (the
// variables in docs/configuration.md and docs/configuration.zh-CN.md, the tools and the failure kinds in
// docs/tools.md): run go run ./scripts/docs and commit.
func TestREADMEUpToDate(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := GenerateAll(pages)
	if err != nil {
		t.Fatal(err)
	}
	for name, old := range pages {
		if got[name] == old {
			continue
		}
		a, b := strings.Split(old, "\n"), strings.Split(got[name], "\n")
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				t.Fatalf("%s is out of date (run go run ./scripts/docs); first difference at line %d:\npage:      %.200s\ngenerated: %.200s", name, i+1, a[i], b[i])
			}
		}
		t.Fatalf("%s is out of date (run go run ./scripts/docs): it has %d lines, the generated one %d", name, len(a), len(b))
	}
	for _, want := range []struct{ page, table string }{
		{"docs/configuration.md", "variables"}, {"docs/configuration.zh-CN.md", "variables-zh"}, {"docs/tools.md", "tools"}, {"docs/tools.md", "kinds"},
	} {
		if !strings.Contains(pages[want.page], "<!-- BEGIN GENERATED "+want.table+":") {
			t.Errorf("%s has no generated %s table", want.page, want.table)
		}
	}
}

// TestGenerateNeedsMarkers: pages without a table's markers, or with a
// BEGIN marker and no END, are an error, not a silently ungenerated table.
func TestGenerateNeedsMarkers(t *testing.T) {
	if _, err := GenerateAll(map[string]string{"README.md": "# no tables here\n"}); err == nil || !strings.Contains(err.Error(), "BEGIN GENERATED") {
		t.Fatalf("got %v", err)
	}
	broken := map[string]string{"docs/x.md": "<!-- BEGIN GENERATED kinds: go run ./scripts/docs -->\n| stale |\n"}
	if _, err := GenerateAll(broken); err == nil || !strings.Contains(err.Error(), "END GENERATED kinds") {
		t.Fatalf("got %v", err)
	}
}
