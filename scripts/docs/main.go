// Command docs regenerates the README's tables from the code, so that they
// cannot drift from it: the tool table from the real tool definitions
// (server.Definitions), the variable table from internal/config's
// declaration of every variable (which --help prints too), and the failure
// vocabulary from toolkit.Kinds. Each table sits between a BEGIN GENERATED
// and an END GENERATED comment; everything else in the README is left alone.
//
//	go run ./scripts/docs          rewrite README.md
//	go run ./scripts/docs -check   exit 1 when README.md is out of date
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
)

func main() {
	check := flag.Bool("check", false, "only report whether README.md is up to date")
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(root, "README.md")
	old, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	got, err := Generate(string(old), root)
	if err != nil {
		log.Fatal(err)
	}
	switch {
	case got == string(old):
		fmt.Println("README.md is up to date")
	case *check:
		fmt.Fprintln(os.Stderr, "README.md is out of date: run go run ./scripts/docs")
		os.Exit(1)
	default:
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Println("README.md regenerated")
	}
}

func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Generate returns readme with every generated table rebuilt.
func Generate(readme, root string) (string, error) {
	tables := map[string]func() (string, error){
		"tools":     toolTable,
		"variables": variableTable,
		"kinds":     kindTable,
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range tables {
			if !yield(k) {
				return
			}
		}
	}) {
		begin := "<!-- BEGIN GENERATED " + name + ": go run ./scripts/docs -->\n"
		end := "<!-- END GENERATED " + name + " -->"
		i := strings.Index(readme, begin)
		j := strings.Index(readme, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("README.md has no %q ... %q block", strings.TrimSpace(begin), end)
		}
		body, err := tables[name]()
		if err != nil {
			return "", fmt.Errorf("%s table: %w", name, err)
		}
		readme = readme[:i+len(begin)] + body + readme[j:]
	}
	return readme, nil
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// toolTable lists every tool with the modes it is offered in and the first
// sentence of its description.
func toolTable() (string, error) {
	scratch, err := os.MkdirTemp("", "snowluma-docs")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(scratch)
	modes := map[string][]string{}
	var order []string
	descs := map[string]string{}
	for _, m := range []server.Mode{server.ModeDocs, server.ModeRead, server.ModeWrite} {
		dir := filepath.Join(scratch, string(m))
		if err := os.Mkdir(dir, 0o700); err != nil {
			return "", err
		}
		tools, err := server.Definitions(m, dir)
		if err != nil {
			return "", err
		}
		for _, t := range tools {
			if _, seen := descs[t.Name]; !seen {
				order = append(order, t.Name)
				descs[t.Name] = t.Description
			}
			modes[t.Name] = append(modes[t.Name], string(m))
		}
	}
	slices.Sort(order)
	var b strings.Builder
	b.WriteString("| tool | modes | what it does |\n| --- | --- | --- |\n")
	for _, name := range order {
		m := strings.Join(modes[name], ", ")
		if len(modes[name]) == 3 {
			m = "all"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, m, cell(firstSentence(descs[name])))
	}
	return b.String(), nil
}

// firstSentence is s up to its first full stop followed by a space.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// variableTable lists the variables the configuration reads: each one's
// name, its default as a person reads it, and what it means.
func variableTable() (string, error) {
	var b strings.Builder
	b.WriteString("| variable | default | meaning |\n| --- | --- | --- |\n")
	for _, v := range config.Variables() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, cell(v.Shown), cell(v.Meaning))
	}
	return b.String(), nil
}

// kindTable is the failure vocabulary.
func kindTable() (string, error) {
	var b bytes.Buffer
	b.WriteString("| kind | meaning | what to do |\n| --- | --- | --- |\n")
	for _, k := range toolkit.Kinds() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Kind, cell(k.Meaning), cell(k.Fix))
	}
	return b.String(), nil
}
