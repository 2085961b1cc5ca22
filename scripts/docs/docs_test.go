package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEUpToDate fails when a tool, a variable or a failure kind
// changed without the README: run go run ./scripts/docs and commit.
func TestREADMEUpToDate(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Generate(string(old), root)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(old) {
		a, b := strings.Split(string(old), "\n"), strings.Split(got, "\n")
		for i := 0; i < len(a) && i < len(b); i++ {
			if a[i] != b[i] {
				t.Fatalf("README.md is out of date (run go run ./scripts/docs); first difference at line %d:\nREADME:    %.200s\ngenerated: %.200s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("README.md is out of date (run go run ./scripts/docs): it has %d lines, the generated one %d", len(a), len(b))
	}
}

// TestGenerateNeedsMarkers: a README without the markers is an error, not
// a silently ungenerated table.
func TestGenerateNeedsMarkers(t *testing.T) {
	root, _ := repoRoot()
	if _, err := Generate("# no tables here\n", root); err == nil || !strings.Contains(err.Error(), "BEGIN GENERATED") {
		t.Fatalf("got %v", err)
	}
}
