package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/internal/editdist"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// refAction is the part of SnowLuma's own catalog snapshot that parity
// compares: facts, never prose.
type refAction struct {
	Name       string   `json:"name"`
	Summary    string   `json:"summary"`
	Aliases    []string `json:"aliases"`
	Category   string   `json:"category"`
	ReadOnly   bool     `json:"readOnly"`
	Stream     bool     `json:"stream"`
	Invariants []string `json:"invariants"`
	Params     []struct {
		Name     string         `json:"name"`
		Required bool           `json:"required"`
		Default  any            `json:"default"`
		Schema   map[string]any `json:"schema"`
		Role     string         `json:"role"`
	} `json:"params"`
}

// refRole is the role SnowLuma gives a param: on the param, or on the
// items of an array param (set_group_kick_members' user_id).
func refRole(role string, schema map[string]any) string {
	if role != "" {
		return role
	}
	if items, ok := schema["items"].(map[string]any); ok {
		r, _ := items["x-role"].(string)
		return r
	}
	return ""
}

// factsOf strips a parameter schema to its facts: no descriptions and no
// vendor (x-) keywords, at any depth.
func factsOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k == "description" || strings.HasPrefix(k, "x-") {
				continue
			}
			out[k] = factsOf(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = factsOf(x)
		}
		return out
	}
	return v
}

// TestParity compares the embedded catalog with SnowLuma 1.11.1's own
// snapshot and lists every difference in names, aliases, categories,
// read-only and stream flags, declared and required parameters, parameter
// roles, types, constraints and defaults, and the number of cross-field
// constraints.
func TestParity(t *testing.T) {
	data, err := os.ReadFile(reference.Path(t, "snowluma-1.11.1-catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Actions []refAction `json:"actions"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t)
	var diffs []string
	diff := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	seen := map[string]bool{}
	for _, r := range ref.Actions {
		seen[r.Name] = true
		a, ok := c.Lookup(r.Name)
		if !ok {
			diff("%s: missing", r.Name)
			continue
		}
		if a.Name != r.Name {
			diff("%s: is an alias of %s here", r.Name, a.Name)
			continue
		}
		if got, want := slices.Sorted(slices.Values(a.Aliases)), slices.Sorted(slices.Values(r.Aliases)); !slices.Equal(got, want) {
			diff("%s: aliases %v, want %v", r.Name, got, want)
		}
		if a.Category != r.Category {
			diff("%s: category %q, want %q", r.Name, a.Category, r.Category)
		}
		if a.ReadOnly != r.ReadOnly {
			diff("%s: readOnly %v, want %v", r.Name, a.ReadOnly, r.ReadOnly)
		}
		if a.Stream != r.Stream {
			diff("%s: stream %v, want %v", r.Name, a.Stream, r.Stream)
		}
		if len(a.Constraints) != len(r.Invariants) {
			diff("%s: %d cross-field constraints, want %d", r.Name, len(a.Constraints), len(r.Invariants))
		}
		var declared, wantDeclared, required, wantRequired []string
		for _, p := range a.Params {
			declared = append(declared, p.Name)
			if p.Required {
				required = append(required, p.Name)
			}
		}
		for _, p := range r.Params {
			wantDeclared = append(wantDeclared, p.Name)
			if p.Required {
				wantRequired = append(wantRequired, p.Name)
			}
			mine, ok := a.Param(p.Name)
			if !ok {
				continue
			}
			if want := refRole(p.Role, p.Schema); mine.Role != want {
				diff("%s.%s: role %q, want %q", r.Name, p.Name, mine.Role, want)
			}
			want := p.Schema
			if want == nil {
				want = map[string]any{}
			}
			if p.Default != nil {
				want["default"] = p.Default
			}
			var got map[string]any
			if len(mine.Schema) > 0 {
				if err := json.Unmarshal(mine.Schema, &got); err != nil {
					diff("%s.%s: schema: %v", r.Name, p.Name, err)
					continue
				}
			}
			if got == nil {
				got = map[string]any{}
			}
			if g, w := factsOf(got), factsOf(want); !reflect.DeepEqual(g, w) {
				gj, _ := json.Marshal(g)
				wj, _ := json.Marshal(w)
				diff("%s.%s: schema %s, want %s", r.Name, p.Name, gj, wj)
			}
		}
		slices.Sort(declared)
		slices.Sort(wantDeclared)
		slices.Sort(required)
		slices.Sort(wantRequired)
		if !slices.Equal(declared, wantDeclared) {
			diff("%s: parameters %v, want %v", r.Name, declared, wantDeclared)
		}
		if !slices.Equal(required, wantRequired) {
			diff("%s: required %v, want %v", r.Name, required, wantRequired)
		}
	}
	for _, a := range c.Actions() {
		if !seen[a.Name] {
			diff("%s: not in SnowLuma 1.11.1", a.Name)
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
	if len(diffs) > 0 {
		t.Logf("%d differences", len(diffs))
	}
}

// TestChineseSummariesOurOwn checks that no Chinese summary is SnowLuma's
// own description copied, or copied with small edits: after folding case,
// full-width forms and punctuation away, a summary may not equal the
// snapshot's or lie within a third of the longer one's length in edits.
func TestChineseSummariesOurOwn(t *testing.T) {
	data, err := os.ReadFile(reference.Path(t, "snowluma-1.11.1-catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Actions []refAction `json:"actions"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t)
	compared := 0
	for _, r := range ref.Actions {
		a, ok := c.Lookup(r.Name)
		theirs := normalise(r.Summary)
		if !ok || theirs == "" {
			continue
		}
		compared++
		if tooClose(normalise(a.SummaryZh), theirs) {
			t.Errorf("%s: summaryZh %q is SnowLuma's %q, or nearly", a.Name, a.SummaryZh, r.Summary)
		}
	}
	if compared < 100 {
		t.Errorf("only %d summaries compared: is the snapshot's layout still {actions: [{name, summary}]}?", compared)
	}
}

// normalise folds s for comparing prose: full-width forms to ASCII, lower
// case, and only letters and digits kept.
func normalise(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xFF01 && r <= 0xFF5E {
			r -= 0xFEE0
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// tooClose reports whether normalised a and b are equal or within a third
// of the longer one's length in edits.
func tooClose(a, b string) bool {
	longer := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	return a == b || editdist.Distance(a, b)*3 <= longer
}

func TestTooClose(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"撤回消息", "撤回消息", true},
		{normalise("撤回消息（需要权限）"), normalise("撤回消息(需要权限)"), true},
		{normalise("发送群消息，支持 CQ 码"), normalise("发送群消息；支持CQ码。"), true},
		{normalise("发送群消息，支持 CQ 码"), normalise("发送群聊消息，可用 CQ 码"), true},
		{"向群发送一条消息", "发送群消息", false},
		{"", "x", false},
	} {
		if got := tooClose(tc.a, tc.b); got != tc.want {
			t.Errorf("tooClose(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
