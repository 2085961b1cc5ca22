package main

import (
	"bytes"
	"regexp"
	"testing"
	"text/template"

	"github.com/kelseyhightower/envconfig"
)

// TestKnownVariablesFollowEnv checks that the unknown-variable warning knows
// exactly the variables envconfig reads from env (the same list --help
// prints), so a field added to env is never warned about.
func TestKnownVariablesFollowEnv(t *testing.T) {
	var b bytes.Buffer
	tmpl := template.Must(template.New("keys").Parse("{{range .}}{{.Key}}\n{{end}}"))
	if err := envconfig.Usaget(envPrefix, &env{}, &b, tmpl); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`(?m)^\S+$`).FindAllString(b.String(), -1)
	known := knownVariables()
	if len(read) == 0 || len(read) != len(known) {
		t.Fatalf("envconfig reads %q, the warning knows %q", read, known)
	}
	for _, name := range read {
		if w := unknownVariables([]string{name + "=x"}); len(w) != 0 {
			t.Errorf("%s is read by envconfig but warned about: %q", name, w)
		}
	}
	if w := unknownVariables([]string{"SNOWLUMA_MCP_NOPE=x", "PATH=/bin", "SNOWLUMA_MCPX=1"}); len(w) != 1 {
		t.Errorf("warnings %q, want one for SNOWLUMA_MCP_NOPE", w)
	}
}
