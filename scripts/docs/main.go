// Command docs regenerates the generated tables of the README and the
// pages under docs/ from the code, so that they cannot drift from it: the
// tool table from the real tool definitions (server.Definitions), the
// variable table from internal/config's declaration of every variable
// (which --help prints too), and the failure vocabulary from outcome.Kinds.
// Each table sits between a BEGIN GENERATED and an END GENERATED comment,
// in whichever page holds it (docs/configuration.md and, in Chinese,
// docs/configuration.zh-CN.md, docs/tools.md); every
// table must be in some page; everything else is left alone.
//
//	go run ./scripts/docs          rewrite the pages
//	go run ./scripts/docs -check   exit 1 when a page is out of date
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
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/server"
)

func main() {
	check := flag.Bool("check", false, "only report whether the pages are up to date")
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	pages, err := Pages(root)
	if err != nil {
		log.Fatal(err)
	}
	got, err := GenerateAll(pages)
	if err != nil {
		log.Fatal(err)
	}
	stale := 0
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range pages {
			if !yield(k) {
				return
			}
		}
	}) {
		if got[name] == pages[name] {
			continue
		}
		stale++
		if *check {
			fmt.Fprintf(os.Stderr, "%s is out of date: run go run ./scripts/docs\n", name)
			continue
		}
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(got[name]), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, "regenerated")
	}
	switch {
	case stale == 0:
		fmt.Println("the generated tables are up to date")
	case *check:
		os.Exit(1)
	}
}

func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Pages reads the pages that may hold generated tables: README.md and
// every docs/*.md, by path relative to root.
func Pages(root string) (map[string]string, error) {
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	names = append(names, filepath.Join(root, "README.md"))
	pages := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, n)
		pages[filepath.ToSlash(rel)] = string(b)
	}
	return pages, nil
}

// tables are the generated tables by name.
func tables() map[string]func() (string, error) {
	return map[string]func() (string, error){
		"tools":        toolTable,
		"variables":    variableTable,
		"variables-zh": variableTableZh,
		"defaults":     defaultTable,
		"kinds":        kindTable,
	}
}

// GenerateAll returns pages with every generated table rebuilt where its
// markers are. A table whose markers are in no page, or a BEGIN marker
// without its END, is an error.
func GenerateAll(pages map[string]string) (map[string]string, error) {
	out := map[string]string{}
	placed := map[string]bool{}
	for name, text := range pages {
		for table, build := range tables() {
			begin := "<!-- BEGIN GENERATED " + table + ": go run ./scripts/docs -->\n"
			end := "<!-- END GENERATED " + table + " -->"
			for from := 0; ; {
				i := strings.Index(text[from:], begin)
				if i < 0 {
					break
				}
				i += from
				j := strings.Index(text[i:], end)
				if j < 0 {
					return nil, fmt.Errorf("%s: %q has no %q after it", name, strings.TrimSpace(begin), end)
				}
				body, err := build()
				if err != nil {
					return nil, fmt.Errorf("%s table: %w", table, err)
				}
				text = text[:i+len(begin)] + body + text[i+j:]
				from = i + len(begin) + len(body) + len(end)
				placed[table] = true
			}
		}
		out[name] = text
	}
	for table := range tables() {
		if !placed[table] {
			return nil, fmt.Errorf("no page has the %q ... %q block of the %s table", "<!-- BEGIN GENERATED "+table+": go run ./scripts/docs -->", "<!-- END GENERATED "+table+" -->", table)
		}
	}
	return out, nil
}

// cell makes text safe inside a Markdown table cell: a pipe would end the
// cell, and a placeholder such as <token> would be taken for an HTML tag
// and vanish.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;").Replace(s)
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
	for _, m := range []config.Mode{config.ModeDocs, config.ModeRead, config.ModeWrite} {
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

// variableTableZh is variableTable in Chinese, for
// docs/configuration.zh-CN.md: the same variables, their defaults and
// meanings as the Chinese --help shows them.
func variableTableZh() (string, error) {
	var b strings.Builder
	b.WriteString("| 变量 | 默认 | 说明 |\n| --- | --- | --- |\n")
	for _, v := range config.Variables() {
		v = v.In(lang.Zh)
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", v.Name, cell(v.Shown), cell(v.Meaning))
	}
	return b.String(), nil
}

// defaultTable is the short form of variableTable for the README: each
// variable with its default, the meaning left to docs/configuration.md.
func defaultTable() (string, error) {
	var b strings.Builder
	b.WriteString("| variable | default |\n| --- | --- |\n")
	for _, v := range config.Variables() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", v.Name, cell(v.Shown))
	}
	return b.String(), nil
}

// kindTable is the failure vocabulary.
func kindTable() (string, error) {
	var b bytes.Buffer
	b.WriteString("| kind | meaning | what to do |\n| --- | --- | --- |\n")
	for _, k := range outcome.Kinds() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Kind, cell(k.Meaning), cell(k.Fix))
	}
	return b.String(), nil
}
