package outcome

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestKindsDeclared: every Kind constant is in Kinds exactly once, with a
// meaning, so the README's table and the kinds resource cover the
// vocabulary.
func TestKindsDeclared(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "kinds.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Kind" {
				for _, v := range vs.Values {
					consts = append(consts, strings.Trim(v.(*ast.BasicLit).Value, `"`))
				}
			}
		}
		return true
	})
	seen := map[Kind]bool{}
	for _, k := range Kinds() {
		if seen[k.Kind] || k.Meaning == "" {
			t.Errorf("%s: listed twice or without a meaning", k.Kind)
		}
		seen[k.Kind] = true
	}
	for _, c := range consts {
		if !seen[Kind(c)] {
			t.Errorf("kind %s is declared but not in Kinds()", c)
		}
	}
	if len(consts) != len(seen) {
		t.Errorf("%d constants, %d listed", len(consts), len(seen))
	}
}
