package catalog

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// operatorQuery is one labelled query of testdata/operator-queries.tsv.
type operatorQuery struct {
	query string
	right []string // any of them answers the query
	line  int
}

func loadOperatorQueries(t testing.TB, c *Catalog) []operatorQuery {
	t.Helper()
	f, err := os.Open("testdata/operator-queries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []operatorQuery
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, right, ok := strings.Cut(line, "\t")
		if !ok || q == "" || right == "" {
			t.Fatalf("operator-queries.tsv:%d: want a query, a tab and the right actions", n)
		}
		oq := operatorQuery{query: q, right: strings.Split(right, ","), line: n}
		for _, name := range oq.right {
			if _, ok := c.Lookup(name); !ok {
				t.Fatalf("operator-queries.tsv:%d: %q is not an action", n, name)
			}
		}
		out = append(out, oq)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// hitRates returns the share of queries whose first answer is right and
// whose first three answers hold a right one, and the queries missed at 1
// and at 3.
func hitRates(qs []operatorQuery, search func(string) []*Action) (top1, top3 float64, missed1, missed []string) {
	var one, three int
	for _, q := range qs {
		got := names(search(q.query))
		if len(got) > 0 && slices.Contains(q.right, got[0]) {
			one++
		}
		if len(got) == 0 || !slices.Contains(q.right, got[0]) {
			missed1 = append(missed1, q.query)
		}
		if slices.ContainsFunc(got[:min(3, len(got))], func(n string) bool { return slices.Contains(q.right, n) }) {
			three++
		} else {
			missed = append(missed, q.query+" → "+strings.Join(got[:min(3, len(got))], ","))
		}
	}
	return float64(one) / float64(len(qs)), float64(three) / float64(len(qs)), missed1, missed
}

// typeScriptSubstring is NOT the product's search: it is the comparison the
// README records, the TypeScript SnowLuma MCP server's search as its
// behaviour is described (a case-insensitive substring match of the whole
// query over the name, the Chinese summary and the aliases, in catalog
// order), run over this catalog.
func typeScriptSubstring(c *Catalog, query string) []*Action {
	q := strings.ToLower(query)
	var out []*Action
	for _, a := range c.actions {
		hay := append([]string{a.Name, a.SummaryZh}, a.Aliases...)
		if slices.ContainsFunc(hay, func(h string) bool { return strings.Contains(strings.ToLower(h), q) }) {
			out = append(out, a)
		}
	}
	return out
}

// TestOperatorQueries holds the search to floors on the labelled operator
// queries: in the default mode a right action first for at least 75% of
// them and among the first three for at least 90%. It logs the figures of
// both modes and of the TypeScript server's substring search (go test -v
// -run OperatorQueries) for the README.
func TestOperatorQueries(t *testing.T) {
	c := mustLoad(t)
	qs := loadOperatorQueries(t, c)
	if len(qs) < 100 {
		t.Fatalf("%d labelled queries, want at least 100", len(qs))
	}
	top1, top3, missed1, missed := hitRates(qs, func(q string) []*Action { return c.Search(q, Filter{}) })
	k1, k3, _, _ := hitRates(qs, func(q string) []*Action { return c.SearchKeywords(q, Filter{}) })
	ts1, ts3, _, _ := hitRates(qs, func(q string) []*Action { return typeScriptSubstring(c, q) })
	t.Logf("%d queries: default top-1 %.0f%% top-3 %.0f%%; keywords top-1 %.0f%% top-3 %.0f%%; TypeScript substring (comparison) top-1 %.0f%% top-3 %.0f%%",
		len(qs), 100*top1, 100*top3, 100*k1, 100*k3, 100*ts1, 100*ts3)
	t.Logf("default mode not first: %s", strings.Join(missed1, ", "))
	for _, m := range missed {
		t.Logf("default mode misses at 3: %s", m)
	}
	if top1 < 0.75 {
		t.Errorf("default mode top-1 %.1f%%, want at least 75%%", 100*top1)
	}
	if top3 < 0.90 {
		t.Errorf("default mode top-3 %.1f%%, want at least 90%%", 100*top3)
	}
}
