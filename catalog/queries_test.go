package catalog

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/internal/reference"
)

// operatorQuery is one labelled query of testdata/operator-queries.tsv.
type operatorQuery struct {
	query  string
	right  []string // any of them answers the query; none: no action does
	source string
	line   int
}

func loadOperatorQueries(t testing.TB, c *Catalog) []operatorQuery {
	t.Helper()
	return loadQueries(t, c, "testdata/operator-queries.tsv")
}

// loadQueries reads a file of labelled queries: a query, the right actions
// (or -) and a source, separated by tabs; # starts a comment line.
func loadQueries(t testing.TB, c *Catalog, path string) []operatorQuery {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []operatorQuery
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 || cols[0] == "" || cols[1] == "" || cols[2] == "" {
			t.Fatalf("%s:%d: want a query, the right actions (or -) and a source, separated by tabs", path, n)
		}
		if seen[cols[0]] {
			t.Fatalf("%s:%d: %q is there twice", path, n, cols[0])
		}
		seen[cols[0]] = true
		oq := operatorQuery{query: cols[0], source: cols[2], line: n}
		if cols[1] != "-" {
			oq.right = strings.Split(cols[1], ",")
		}
		for _, name := range oq.right {
			if _, ok := c.Lookup(name); !ok {
				t.Fatalf("%s:%d: %q is not an action", path, n, name)
			}
		}
		out = append(out, oq)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// splitSeed fixes the split of the labelled queries into a development
// half, on which synonyms and weights may be tuned, and a test half, which
// only measures. A query's half depends on the seed and its own text, so
// adding queries never moves the others.
const splitSeed = "snowluma-mcp search split 1"

// inTestHalf reports whether q belongs to the test half.
func inTestHalf(q string) bool {
	h := fnv.New64a()
	h.Write([]byte(splitSeed))
	h.Write([]byte(q))
	return h.Sum64()%2 == 1
}

// halves splits qs into the development and the test half.
func halves(qs []operatorQuery) (dev, test []operatorQuery) {
	for _, q := range qs {
		if inTestHalf(q.query) {
			test = append(test, q)
		} else {
			dev = append(dev, q)
		}
	}
	return dev, test
}

// answerable keeps the queries some action answers.
func answerable(qs []operatorQuery) []operatorQuery {
	return slices.DeleteFunc(slices.Clone(qs), func(q operatorQuery) bool { return len(q.right) == 0 })
}

// hitRates returns the share of queries whose first answer is right and
// whose first three answers hold a right one, and the queries missed at 3.
func hitRates(qs []operatorQuery, search func(string) []*Action) (top1, top3 float64, missed []string) {
	var one, three int
	for _, q := range qs {
		got := names(search(q.query))
		if len(got) > 0 && slices.Contains(q.right, got[0]) {
			one++
		}
		if slices.ContainsFunc(got[:min(3, len(got))], func(n string) bool { return slices.Contains(q.right, n) }) {
			three++
		} else {
			missed = append(missed, q.query+" → "+strings.Join(got[:min(3, len(got))], ","))
		}
	}
	return float64(one) / float64(len(qs)), float64(three) / float64(len(qs)), missed
}

// typeScriptSearch is NOT the product's search: it is the comparison docs/
// records, the TypeScript SnowLuma MCP server's search_actions as its
// behaviour is described (a case-insensitive substring match of the whole
// query over the name, the summary and the aliases, in catalog order), run
// over SnowLuma 1.11.1's own catalog, whose summaries that server serves.
func typeScriptSearch(t testing.TB) func(string) []*Action {
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
	return func(query string) []*Action {
		q := strings.ToLower(query)
		var out []*Action
		for _, r := range ref.Actions {
			hay := append([]string{r.Name, r.Summary}, r.Aliases...)
			if slices.ContainsFunc(hay, func(h string) bool { return strings.Contains(strings.ToLower(h), q) }) {
				out = append(out, &Action{Brief: Brief{Name: r.Name}})
			}
		}
		return out
	}
}

// TestSearchGeneralization holds the search to floors on the test half of
// the labelled queries, which no synonym or weight was tuned on: a right
// action first for at least 75% of them, among the first three for at
// least 90%. It logs both halves' figures in both modes, and the
// TypeScript server's on the same queries (go test -v -run
// Generalization), for docs/tools.md.
func TestSearchGeneralization(t *testing.T) {
	c := mustLoad(t)
	qs := loadOperatorQueries(t, c)
	if len(qs) < 300 {
		t.Fatalf("%d labelled queries, want at least 300", len(qs))
	}
	composed := 0
	for _, q := range qs {
		if q.source == "composed" || q.source == "issue 34" {
			composed++
		}
	}
	if 2*composed >= len(qs) {
		t.Errorf("%d of %d queries are composed; most must come from real text", composed, len(qs))
	}
	dev, test := halves(answerable(qs))
	if len(dev) < len(test)*2/3 || len(test) < len(dev)*2/3 {
		t.Fatalf("unbalanced split: %d dev, %d test", len(dev), len(test))
	}
	ts := typeScriptSearch(t)
	var test1, test3 float64
	for _, half := range []struct {
		name string
		qs   []operatorQuery
	}{{"dev", dev}, {"test", test}} {
		d1, d3, missed := hitRates(half.qs, func(q string) []*Action { return c.Search(q, Filter{}) })
		k1, k3, _ := hitRates(half.qs, func(q string) []*Action { return c.SearchKeywords(q, Filter{}) })
		s1, s3, _ := hitRates(half.qs, ts)
		t.Logf("%s half, %d queries: default top-1 %.1f%% top-3 %.1f%%; keywords top-1 %.1f%% top-3 %.1f%%; TypeScript substring top-1 %.1f%% top-3 %.1f%%",
			half.name, len(half.qs), 100*d1, 100*d3, 100*k1, 100*k3, 100*s1, 100*s3)
		if half.name == "dev" {
			for _, m := range missed {
				t.Logf("dev miss at 3: %s", m)
			}
		} else {
			test1, test3 = d1, d3
		}
	}
	if test1 < 0.75 {
		t.Errorf("test half top-1 %.1f%%, want at least 75%%", 100*test1)
	}
	if test3 < 0.90 {
		t.Errorf("test half top-3 %.1f%%, want at least 90%%", 100*test3)
	}
}

// TestWeakMatch checks honest confidence. A query no action answers must
// come back as a weak match (or with nothing), in at least 90% of the test
// half; a weak match never puts an action that changes something first,
// unless the whole query is found verbatim in it (the default mode keeps
// every such match). It logs how
// often a query some action answers is called weak.
func TestWeakMatch(t *testing.T) {
	c := mustLoad(t)
	qs := loadOperatorQueries(t, c)
	var none []operatorQuery
	for _, q := range qs {
		if len(q.right) == 0 {
			none = append(none, q)
		}
	}
	if len(none) < 20 {
		t.Fatalf("%d unanswerable queries, want at least 20", len(none))
	}
	dev, test := halves(none)
	for _, half := range []struct {
		name string
		qs   []operatorQuery
	}{{"dev", dev}, {"test", test}} {
		weak := 0
		for _, q := range half.qs {
			m := c.Match(q.query, Filter{}, false)
			if m.Weak || len(m.Actions) == 0 {
				weak++
			} else if half.name == "dev" {
				t.Logf("dev half: %q is not weak: %v", q.query, names(m.Actions[:min(3, len(m.Actions))]))
			}
		}
		share := float64(weak) / float64(len(half.qs))
		t.Logf("%s half: %d of %d unanswerable queries weak (%.0f%%)", half.name, weak, len(half.qs), 100*share)
		if half.name == "test" && share < 0.9 {
			t.Errorf("test half: %.0f%% of unanswerable queries weak, want at least 90%%", 100*share)
		}
	}
	falseWeak := 0
	all := answerable(qs)
	for _, q := range append(slices.Clone(qs), loadQueries(t, c, "testdata/agent-queries.tsv")...) {
		for _, keywords := range []bool{false, true} {
			m := c.Match(q.query, Filter{}, keywords)
			if m.Weak && len(m.Actions) > 0 && !m.Actions[0].ReadOnly && !verbatim(c, q.query, m.Actions[0]) {
				t.Errorf("%q: weak match led by %s, which changes something", q.query, m.Actions[0].Name)
			}
			if m.Weak && m.Category == "" {
				t.Errorf("%q: weak match without a category to browse", q.query)
			}
		}
	}
	for _, q := range all {
		if c.Match(q.query, Filter{}, false).Weak {
			falseWeak++
		}
	}
	t.Logf("answerable queries called weak: %d of %d (%.0f%%)", falseWeak, len(all), 100*float64(falseWeak)/float64(len(all)))
}

// searchFigures are one half's measures: the share of answerable queries
// answered first and among the first three, the share of answerable
// queries called weak, and the unanswerable queries answered by an
// unflagged action that changes something.
type searchFigures struct {
	answerable, unanswerable int
	top1, top3, falseWeak    float64
	unflaggedWrites          []string
	weakNone                 int // unanswerable queries weak or empty
	// misses describe the answerable queries not answered first or
	// called weak, and the unanswerable ones answered unflagged: shown
	// for a development half only.
	misses []string
}

// measure runs the default search over qs.
func measure(c *Catalog, qs []operatorQuery) searchFigures {
	var f searchFigures
	var one, three, weak int
	for _, q := range qs {
		m := c.Match(q.query, Filter{}, false)
		if len(q.right) == 0 {
			f.unanswerable++
			switch {
			case m.Weak || len(m.Actions) == 0:
				f.weakNone++
			case !m.Actions[0].ReadOnly:
				f.unflaggedWrites = append(f.unflaggedWrites, q.query+" → "+m.Actions[0].Name)
			default:
				f.misses = append(f.misses, fmt.Sprintf("unanswerable %q answered unflagged by %s", q.query, m.Actions[0].Name))
			}
			continue
		}
		f.answerable++
		got := names(m.Actions[:min(3, len(m.Actions))])
		first := len(got) > 0 && slices.Contains(q.right, got[0])
		if first {
			one++
		}
		in3 := slices.ContainsFunc(got, func(n string) bool { return slices.Contains(q.right, n) })
		if in3 {
			three++
		}
		if m.Weak {
			weak++
		}
		if !first || m.Weak {
			f.misses = append(f.misses, fmt.Sprintf("%q: got %v weak=%v in3=%v, want %v", q.query, got, m.Weak, in3, q.right))
		}
	}
	n := float64(max(1, f.answerable))
	f.top1, f.top3, f.falseWeak = float64(one)/n, float64(three)/n, float64(weak)/n
	return f
}

// The targets of issue 54 on each set's test half, and the floors the
// tests hold where a target is not reached. The search was tuned on the
// development halves only; on the test halves, which nothing was tuned on,
// it measured what the floors below hold (docs/tools.md records both
// halves). The rule is to report such a figure, not to tune on the test
// half until it passes: a floor may only rise.
const (
	targetTop1      = 0.85
	targetTop3      = 0.95
	targetFalseWeak = 0.05
)

// TestSearchTargets measures the default search on both halves of the
// operators' Chinese set and the agent-phrased set, logs every figure
// (go test -v -run Targets, for docs/tools.md) and holds each test half to
// the targets or, where a target is not reached, to the floor measured
// when the search was last tuned: top-1 and top-3 of the answerable
// queries, the share of them called weak, and the number of unanswerable
// requests answered by an unflagged action that changes something (the
// target is none).
func TestSearchTargets(t *testing.T) {
	c := mustLoad(t)
	type floors struct {
		top1, top3, falseWeak float64
		unflaggedWrites       int
	}
	for _, set := range []struct {
		file string
		min  floors // the test half's floors
	}{
		// Issue 54's third round measured once: 91.9/99.4/2.9% and 0
		// (Chinese); 89.2/91.6/7.2% and 0 (agent). The fourth round
		// (general rules and sourced vocabulary, tuned on the development
		// halves only): 94.8/99.4/1.7% and 0 (Chinese) and
		// 95.2/96.4/2.4% and 0 (agent): every target met.
		{"testdata/operator-queries.tsv", floors{targetTop1, targetTop3, targetFalseWeak, 0}},
		{"testdata/agent-queries.tsv", floors{targetTop1, targetTop3, targetFalseWeak, 0}},
		// Written blind to the search code (testdata/README.md). Its first
		// and only judgement as a whole, after the third round:
		// 85.7/91.1/8.9% and 4 of 39 unanswerable requests answered by an
		// unflagged write (before the third round 81.5/90.5/11.3% and 4).
		// From the fourth round on it is split like the others, and only
		// its development half is looked at. Its halves before the fourth
		// round: dev 85.9/90.6/9.4% and 2 of 24; test 85.5/91.6/8.4% and 2
		// of 15. After it: dev 97.6/100.0/1.2% and 0; test
		// 89.2/94.0/6.0% and 1, below the targets for top-3, the weak flag
		// and unflagged writes, so those floors are the measured figures.
		// The fifth round (general rules checked on its own probes,
		// probe_test.go): 89.2/94.0/4.8% and 1, the weak flag within its
		// target now. The sixth (standing rules, a phrase's head): 0
		// unflagged writes, that target met too; top-3 still 94.0%.
		{"testdata/agent-queries-heldout.tsv", floors{targetTop1, 0.939, targetFalseWeak, 0}},
		// A second set written blind (testdata/README.md), wider in its
		// platforms (Mattermost, Rocket.Chat, Zulip, LINE, Lark). Judged
		// whole after the fifth round: 73.5/83.7/13.5% and 9 of 47; its
		// development half was then looked at for the sixth round. Its
		// test half after that round: 75.5/83.3/10.8% and 3 of 19, below
		// every target: the floors are the measured figures. The seventh
		// (roles given and taken, other platforms' bans, ending the bot's
		// process, requests no action serves; its development half went
		// from 77.0/85.8/15.9% and 3 of 28 to 85.8/93.8/8.8% and 2):
		// 76.5/84.3/9.8% and 3.
		{"testdata/agent-queries-blind2.tsv", floors{0.764, 0.843, 0.099, 3}},
	} {
		dev, test := halves(loadQueries(t, c, set.file))
		for _, half := range []struct {
			name string
			qs   []operatorQuery
		}{{"dev", dev}, {"test", test}} {
			f := measure(c, half.qs)
			t.Logf("%s %s half: %d answerable: top-1 %.1f%% top-3 %.1f%% weak %.1f%%; %d unanswerable: %d weak or empty, %d answered by an unflagged write",
				set.file, half.name, f.answerable, 100*f.top1, 100*f.top3, 100*f.falseWeak, f.unanswerable, f.weakNone, len(f.unflaggedWrites))
			if half.name != "test" {
				// Only the development half's queries are ever shown.
				for _, u := range f.unflaggedWrites {
					t.Logf("%s dev half: unanswerable %s, unflagged, changes something", set.file, u)
				}
				for _, m := range f.misses {
					t.Logf("%s dev half: %s", set.file, m)
				}
				continue
			}
			if len(f.unflaggedWrites) > set.min.unflaggedWrites {
				t.Errorf("%s test half: %d unanswerable requests answered by an unflagged write, want at most %d",
					set.file, len(f.unflaggedWrites), set.min.unflaggedWrites)
			}
			if f.top1 < set.min.top1 {
				t.Errorf("%s test half: top-1 %.1f%%, want at least %.1f%%", set.file, 100*f.top1, 100*set.min.top1)
			}
			if f.top3 < set.min.top3 {
				t.Errorf("%s test half: top-3 %.1f%%, want at least %.1f%%", set.file, 100*f.top3, 100*set.min.top3)
			}
			if f.falseWeak > set.min.falseWeak {
				t.Errorf("%s test half: %.1f%% of answerable queries weak, want at most %.1f%%", set.file, 100*f.falseWeak, 100*set.min.falseWeak)
			}
		}
	}
}

// TestAgentQueries checks the agent-phrased set's make-up: at least 150
// queries, a third of them the English of other platforms (a source other
// than intent, onebot, zh or absent), 30 unanswerable, each with a source.
func TestAgentQueries(t *testing.T) {
	c := mustLoad(t)
	qs := loadQueries(t, c, "testdata/agent-queries.tsv")
	platform, none := 0, 0
	for _, q := range qs {
		kind, _, _ := strings.Cut(q.source, " ")
		switch {
		case len(q.right) == 0:
			none++
			if kind != "absent" {
				t.Errorf("%q: unanswerable, but its source is %q, not absent", q.query, q.source)
			}
		case kind == "absent":
			t.Errorf("%q: marked absent but answered by %v", q.query, q.right)
		case kind != "intent" && kind != "onebot" && kind != "zh":
			platform++
		}
	}
	if len(qs) < 150 || 3*platform < len(qs) || none < 30 {
		t.Errorf("%d queries, %d in other platforms' English, %d unanswerable; want at least 150, a third and 30", len(qs), platform, none)
	}
}

// TestAgentVocabulary checks that the terms collected from other
// platforms (testdata/agent-vocabulary.tsv) find one of the QQ actions
// each was mapped to among the first three, at least 95% of them: the
// synonyms and phrases they became are wired in. It logs the misses. A
// term no QQ action serves (-) must not be answered by an unflagged action
// that changes something.
func TestAgentVocabulary(t *testing.T) {
	c := mustLoad(t)
	terms := loadQueries(t, c, "testdata/agent-vocabulary.tsv")
	if len(terms) < 50 {
		t.Fatalf("%d terms, want at least 50", len(terms))
	}
	missed := 0
	for _, v := range terms {
		if len(v.right) == 0 {
			// No action does it: nothing that changes something may answer
			// it unflagged.
			if m := c.Match(v.query, Filter{}, false); !m.Weak && len(m.Actions) > 0 && !m.Actions[0].ReadOnly {
				t.Errorf("%q (%s): no QQ action does it, but %s, which changes something, answers it unflagged", v.query, v.source, m.Actions[0].Name)
			}
			continue
		}
		got := names(c.Search(v.query, Filter{}))
		got = got[:min(3, len(got))]
		if !slices.ContainsFunc(got, func(n string) bool { return slices.Contains(v.right, n) }) {
			missed++
			t.Logf("%q (%s): got %v, want one of %v", v.query, v.source, got, v.right)
		}
	}
	if 20*missed > len(terms) {
		t.Errorf("%d of %d terms miss, want at most 5%%", missed, len(terms))
	}
}

// verbatim reports whether the default mode's substring match finds query
// in a's name, aliases or summaries.
func verbatim(c *Catalog, query string, a *Action) bool {
	ix := c.index()
	i := slices.Index(c.actions, a)
	subs := needles(Normalize(quote.Prefix(query, MaxQueryRunes)), strings.ToLower(strings.TrimSpace(query)))
	return i >= 0 && (holds(ix.nameHay[i], subs) || holds(ix.textHay[i], subs))
}

// TestRewrites checks the two rewrites a query goes through before it is
// cut into words: camelCase method names split, other platforms' phrases
// replaced, whole words only.
func TestRewrites(t *testing.T) {
	for in, want := range map[string]string{
		"banChatMember":   "ban Chat Member",
		"SetGroupBan":     "Set Group Ban",
		"get_msg":         "get_msg",
		"HTTP":            "HTTP",
		"mp3File":         "mp3 File",
		"禁言群成员":           "禁言群成员",
		"setChatTitle v2": "set Chat Title v2",
	} {
		if got := splitCamel(in); got != want {
			t.Errorf("splitCamel(%q) = %q, want %q", in, got, want)
		}
	}
	// A word a synonym is spelt with is no plural, whatever its last letter.
	for w, want := range map[string]bool{"groups": true, "removes": true, "status": false, "details": false, "thumbs": false, "group": false} {
		if got := plural(w); got != want {
			t.Errorf("plural(%q) = %v, want %v", w, got, want)
		}
	}
	rephrases(t, map[string]string{
		"set chat title":                     "set group name",
		"edit_chat_photo":                    "edit group avatar",
		"unpin message":                      "remove essence message",
		"pin message":                        "pin message",
		"mute all members":                   "mute everyone members",
		"chatty title":                       "chatty title",
		"禁言":                                 "禁言",
		"a member's nickname":                "member card",
		"send a reaction":                    "add reaction",
		"read a message by id":               "get message by id",
		"mark messages as read":              "mark messages as read",
		"dm_user":                            "private message user",
		"check in":                           "signin",
		"the title of a group":               "group name",
		"number of members":                  "members number",
		"a list of the members of the group": "members group list",
		"get all groups":                     "get groups",
		"list all available chats":           "list available chats",
		"ban all users":                      "mute everyone users",
		"silence everyone":                   "mute everyone",
		"mark all as read":                   "mark all as read",
		"send chat action":                   "set input status",
		"list joined rooms":                  "list group list",
		"which groups have i joined":         "which groups have i",
		"who is in the group":                "member list of group",
	})
}
