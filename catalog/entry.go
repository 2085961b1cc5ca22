package catalog

import (
	"strings"
	"unicode/utf8"
)

// An Entry is the light form of an action that list and search answers
// carry, one per match: what ranks and tells actions apart, and nothing
// that holds its default. A model reads every entry of an answer, so each
// byte here is paid for on every call: the whole contract (category, full
// summary, parameters) is one get_action away, and the category is what
// the category filter and list_categories are for.
type Entry struct {
	Name string `json:"name"`
	// Summary is the summary's first clause (see ShortSummary).
	Summary string   `json:"summary"`
	Aliases []string `json:"aliases,omitempty"`
	// ReadOnly and Stream are present only when true.
	ReadOnly    bool  `json:"readOnly,omitempty"`
	Stream      bool  `json:"stream,omitempty"`
	Supported   *bool `json:"supported,omitempty"`
	Sensitive   bool  `json:"sensitive,omitempty"`
	Destructive bool  `json:"destructive,omitempty"`
	Send        bool  `json:"send,omitempty"`
}

// Entry returns b's light entry.
func (b *Brief) Entry() Entry {
	return Entry{Name: b.Name, Summary: ShortSummary(b.Summary), Aliases: b.Aliases, ReadOnly: b.ReadOnly, Stream: b.Stream,
		Supported: b.Supported, Sensitive: b.Sensitive, Destructive: b.Destructive, Send: b.Send}
}

// Bounds of ShortSummary.
const (
	// minClause is the shortest first clause worth cutting at: a shorter
	// one ("Unsupported: ...") says too little on its own.
	minClause = 24
	// maxShort is the most bytes of summary a light entry keeps before the
	// ellipsis.
	maxShort = 100
)

// ShortSummary returns the first clause of summary: the text up to the
// first ". ", "; " or ": " at or after minClause bytes, at most maxShort
// bytes and cut at a space, followed by "…" when anything was left out.
// A summary that is one short clause comes back whole.
func ShortSummary(summary string) string {
	cut := len(summary)
	for i := minClause; i+1 < len(summary); i++ {
		if c := summary[i]; (c == '.' || c == ';' || c == ':') && summary[i+1] == ' ' {
			cut = i
			break
		}
	}
	if cut > maxShort {
		cut = strings.LastIndexByte(summary[:maxShort], ' ')
		if cut <= 0 {
			cut = maxShort
			for !utf8.RuneStart(summary[cut]) {
				cut--
			}
		}
	}
	if cut == len(summary) {
		return summary
	}
	return strings.TrimRight(summary[:cut], " ,") + "…"
}
