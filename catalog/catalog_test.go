package catalog

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

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
			if !strings.ContainsFunc(a.SummaryZh, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
				t.Errorf("summaryZh %q is not Chinese", a.SummaryZh)
			}
			if a.CategoryLabel == "" {
				t.Error("categoryLabel is empty")
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

// TestSafetyFlags pins the actions the safety policy fences: the ones the
// README names must carry their flag, and the flags agree with readOnly.
func TestSafetyFlags(t *testing.T) {
	c := mustLoad(t)
	want := map[string][]string{
		"sensitive":   {"get_cookies", "get_credentials", "get_csrf_token", "get_clientkey", "get_rkey", "get_rkey_server", "request_decrypt_key", "send_packet"},
		"destructive": {"set_group_kick", "set_group_kick_members", "set_group_leave", "delete_friend", "set_group_whole_ban", "set_group_ban", "delete_msg", "delete_group_file", "delete_group_folder", "delete_group_file_folder", "_del_group_notice", "del_group_album_media", "delete_qzone_msg", "delete_custom_face", "delete_flash_file", "bot_exit", "send_packet"},
		"send":        {"send_msg", "send_group_msg", "send_private_msg", "send_forward_msg", "send_group_forward_msg", "send_private_forward_msg", "forward_friend_single_msg", "forward_group_single_msg", "friend_poke", "group_poke", "send_poke", "send_like", "send_flash_msg", "send_group_ai_record", "upload_group_file", "upload_private_file", "_send_group_notice", "send_qzone_msg", "comment_qzone"},
	}
	flag := func(a *Action, f string) bool {
		switch f {
		case "sensitive":
			return a.Sensitive
		case "destructive":
			return a.Destructive
		}
		return a.Send
	}
	for f, names := range want {
		got := 0
		for _, a := range c.Actions() {
			if flag(a, f) {
				got++
				if !slices.Contains(names, a.Name) {
					t.Errorf("%s is flagged %s but not listed here (and in the README)", a.Name, f)
				}
			}
		}
		for _, n := range names {
			a, ok := c.Lookup(n)
			if !ok || !flag(a, f) {
				t.Errorf("%s: want flag %s", n, f)
			}
		}
		if got != len(names) {
			t.Errorf("%s: %d flagged, %d listed", f, got, len(names))
		}
	}
	b, _ := json.Marshal(mustAction(t, c, "get_status").Brief)
	if strings.Contains(string(b), "sensitive") || strings.Contains(string(b), "destructive") {
		t.Errorf("unflagged brief shows flags: %s", b)
	}
	b, _ = json.Marshal(mustAction(t, c, "set_group_kick").Brief)
	if !strings.Contains(string(b), `"destructive":true`) {
		t.Errorf("flagged brief hides its flag: %s", b)
	}
}

func mustAction(t *testing.T, c *Catalog, name string) *Action {
	t.Helper()
	a, ok := c.Lookup(name)
	if !ok {
		t.Fatalf("no action %s", name)
	}
	return a
}

func TestReadOnlyFlagConflict(t *testing.T) {
	c := &Catalog{byName: map[string]*Action{}}
	for _, a := range []*Action{{Brief: Brief{Name: "a", ReadOnly: true, Destructive: true}}, {Brief: Brief{Name: "b", ReadOnly: true, Send: true}}} {
		if err := c.add(a); err == nil {
			t.Errorf("%s: a read-only action flagged as a write was accepted", a.Name)
		}
	}
}

func TestSupportedOnlyFalse(t *testing.T) {
	yes := true
	c := &Catalog{byName: map[string]*Action{}}
	if err := c.add(&Action{Brief: Brief{Name: "a", Supported: &yes}}); err == nil {
		t.Error("supported: true accepted; only false may be written")
	}
}

// TestEncodings: the precomputed JSON of every action, brief and
// categories is compact and holds exactly what encoding the values holds.
func TestEncodings(t *testing.T) {
	c := mustLoad(t)
	same := func(name string, got []byte, err error, v any) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var compacted bytes.Buffer
		if err := json.Compact(&compacted, got); err != nil || !bytes.Equal(compacted.Bytes(), got) {
			t.Errorf("%s: not compact JSON (%v)", name, err)
		}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !jsonEqual(g, w) {
			t.Errorf("%s: encodes\n%s\nwant\n%s", name, got, want)
		}
	}
	for _, a := range c.Actions() {
		full, err := a.JSON()
		same(a.Name, full, err, a)
		brief, err := a.BriefJSON()
		same(a.Name+" brief", brief, err, a.Brief.Entry())
		if again, _ := a.JSON(); &again[0] != &full[0] {
			t.Errorf("%s: encoded anew", a.Name)
		}
	}
	cats, err := c.CategoriesJSON()
	same("categories", cats, err, c.Categories())
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestShortSummary checks the light entry's summary: the first clause past
// minClause, cut at a space within maxShort, marked with an ellipsis
// whenever something was left out, and a whole one-clause summary kept.
func TestShortSummary(t *testing.T) {
	long := strings.Repeat("word ", 40)
	for _, tc := range []struct{ in, want string }{
		{"Send a message to a group.", "Send a message to a group."},
		{"Fetch one stored message by its message id", "Fetch one stored message by its message id"},
		{"Unsupported: word segmentation is not implemented; every call fails.", "Unsupported: word segmentation is not implemented…"},
		{"Delete one group announcement, named by fid. The account must be an admin.", "Delete one group announcement, named by fid…"},
		{long, strings.TrimSpace(long[:strings.LastIndexByte(long[:maxShort], ' ')]) + "…"},
		{strings.Repeat("禁", 60), strings.Repeat("禁", maxShort/3) + "…"},
	} {
		if got := ShortSummary(tc.in); got != tc.want {
			t.Errorf("ShortSummary(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range c.Actions() {
		s := ShortSummary(a.Summary)
		if s != a.Summary && (!strings.HasSuffix(s, "…") || !strings.HasPrefix(a.Summary, strings.TrimSuffix(s, "…"))) {
			t.Errorf("%s: %q is not a marked prefix of %q", a.Name, s, a.Summary)
		}
		if len(s) > maxShort+len("…") {
			t.Errorf("%s: short summary of %d bytes", a.Name, len(s))
		}
	}
}

// TestRuntimeAgreesOnExamples checks every catalog inputSchema with the
// runtime validator too: it compiles, and every example passes.
func TestRuntimeAgreesOnExamples(t *testing.T) {
	c := mustLoad(t)
	for _, a := range c.Actions() {
		for i, ex := range a.Examples {
			errs, err := a.CheckParams(ex.Params)
			if err != nil {
				t.Fatalf("%s: %v", a.Name, err)
			}
			if errs != nil {
				t.Errorf("%s example %d: %v", a.Name, i, errs)
			}
		}
	}
}
