package catalog

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// The search index is a BM25 index over each action's words: the words of
// its name and aliases, of both summaries, of its parameters and of its
// category, each field weighted by how much a hit there says about the
// action. Chinese, written without spaces, is indexed twice: as the
// dictionary words it contains (through the synonym table, so that 禁言 and
// "mute" are one term) and as overlapping pairs of characters, so that a
// word no dictionary knows still finds the text it appears in.

// Field weights: a hit in a name says most, in a summary less, in a
// parameter or the category least.
const (
	weightName     = 3.0
	weightSummary  = 1.5
	weightParam    = 0.4
	weightCategory = 0.5
)

// BM25's constants: k1 bounds what repeating a term adds, b how much a long
// entry is discounted.
const (
	bm25K1 = 1.2
	bm25B  = 0.5
)

// A posting is one action's weighted count of one term.
type posting struct {
	doc int32
	tf  float32
}

// An index holds every action's terms and the text the substring match of
// the default mode reads.
type index struct {
	postings map[string][]posting
	// inName lists, for each term, the actions whose name or an alias
	// holds it: a query word found in a name counts once more, unsaturated.
	inName map[string][]int32
	// nameLen is the number of words in each action's name.
	nameLen []int
	// standard marks the OneBot v11 standard actions.
	standard []bool
	length   []float64 // each action's weighted term count
	avgLen   float64
	// names are each action's names (name, then aliases), lower-cased.
	names [][]string
	// nameHay and textHay are each action's names, and its summaries,
	// lower-cased and joined by NUL, for the substring match of the default
	// mode: one search of a joined string costs a fraction of one per
	// field, and no field holds NUL (see holds).
	nameHay, textHay []string
	// underscores counts the underscores of each action's name.
	underscores []int
	// plurals are, for each action, the singulars of the plural words of
	// its name (member for set_group_kick_members).
	plurals [][]string
	// named maps each name and alias, lower-cased and also with its
	// underscores and dots taken out (GetStrangerInfo), to its action.
	named map[string]int32
	// nameWords are the distinct words of every name and alias, for
	// spelling repair.
	nameWords []string
	// objects are, for each action, the index terms of the things its name
	// acts on (see objectWords); probe marks the actions that only report
	// whether something can be done (can_send_image).
	objects [][]string
	probe   []bool
	// deeds are the acts and objects of each action that changes
	// something, and described the index terms of each such action's
	// names and summaries (see namesDeed); nil for an action that only
	// reads. acted are the terms of its names and of the first clause of
	// each summary, where a summary says what the action does ("Remove
	// (kick) a member from a group"), not what else it touches
	// (", optionally refusing their future join requests"), and the acts
	// it does besides: a removal when it clears (see clears), the act a
	// switch parameter is named for (delete_friend's block).
	deeds       []deed
	destructive []bool
	described   []map[string]bool
	acted       []map[string]bool
	// scratch holds *scratch: the working memory of searches, reused.
	scratch sync.Pool
}

func (c *Catalog) buildIndex() *index {
	n := len(c.actions)
	ix := &index{scratch: sync.Pool{New: func() any { return new(scratch) }}, postings: map[string][]posting{}, inName: map[string][]int32{}, named: map[string]int32{}, length: make([]float64, n), nameLen: make([]int, n), standard: make([]bool, n), names: make([][]string, n), objects: make([][]string, n), probe: make([]bool, n), deeds: make([]deed, n), destructive: make([]bool, n), described: make([]map[string]bool, n), acted: make([]map[string]bool, n), nameHay: make([]string, n), textHay: make([]string, n), underscores: make([]int, n), plurals: make([][]string, n)}
	seenWord := map[string]bool{}
	for i, a := range c.actions {
		ix.standard[i] = onebot11[a.Name]
		tf := map[string]float64{}
		add := func(term string, w float64) { tf[term] += w }
		nameTerms := map[string]bool{}
		addName := func(term string, w float64) {
			add(term, w)
			if !nameTerms[term] {
				nameTerms[term] = true
				ix.inName[term] = append(ix.inName[term], int32(i))
			}
		}
		names := append([]string{strings.ToLower(a.Name)}, lowerAll(a.Aliases)...)
		ix.names[i] = names
		ix.nameHay[i] = hay(names...)
		ix.underscores[i] = strings.Count(a.Name, "_")
		for _, w := range words(names[0]) {
			if s := stem(w); s != w {
				ix.plurals[i] = append(ix.plurals[i], s)
			}
		}
		ix.nameLen[i] = len(words(names[0]))
		ix.probe[i] = strings.HasPrefix(names[0], "can_")
		for _, w := range words(names[0]) {
			if !objectWords[w] {
				continue
			}
			term := stem(w)
			if g, ok := synonymIndex[w]; ok {
				term = groupTerm(g)
			} else if g, ok := synonymIndex[term]; ok {
				term = groupTerm(g)
			}
			if !slices.Contains(ix.objects[i], term) {
				ix.objects[i] = append(ix.objects[i], term)
			}
		}
		var desc map[string]bool
		if !a.ReadOnly {
			ix.deeds[i] = deedOf(a.Name)
			ix.destructive[i] = a.Destructive
			desc = map[string]bool{}
			ix.described[i] = desc
			add0, addName0 := add, addName
			add = func(term string, w float64) { desc[term] = true; add0(term, w) }
			addName = func(term string, w float64) { desc[term] = true; addName0(term, w) }
			acted := map[string]bool{}
			ix.acted[i] = acted
			mark := func(term string, _ float64) { acted[term] = true }
			for _, name := range append([]string{strings.ToLower(a.Name)}, lowerAll(a.Aliases)...) {
				if g, ok := synonymIndex[name]; ok {
					acted[groupTerm(g)] = true
				}
				for _, w := range words(name) {
					addEnglish(mark, w, 0)
				}
			}
			zh, _ := fold(a.SummaryZh)
			addText(mark, firstClause(strings.ToLower(a.Summary)), 0)
			addText(mark, firstClause(zh), 0)
			for _, p := range a.Params {
				// A switch named for an act (delete_friend's block) does it.
				if g, ok := synonymIndex[p.Name]; ok && writeWords[synonyms[g][0]] && strings.Contains(string(p.Schema), `"boolean"`) {
					acted[groupTerm(g)] = true
				}
			}
			if clears(a) {
				// Setting a value empty removes it: clearing a title is
				// set_group_special_title's act too, found as a
				// parameter's words are.
				acted[groupTerm(synonymIndex["delete"])] = true
				add(groupTerm(synonymIndex["delete"]), weightParam)
			}
		}
		for _, name := range names {
			ix.named[name] = int32(i)
			ix.named[squash(name)] = int32(i)
			if undoes(a, name) {
				// A switch is turned off by the same action: OneBot has no
				// unset_group_admin, set_group_admin with enable false is it
				// (Telegram's unpin and unban pair each act with its undoing).
				ix.named["un"+name] = int32(i)
				ix.named["un"+squash(name)] = int32(i)
			}
			if g, ok := synonymIndex[name]; ok {
				addName(groupTerm(g), weightName)
			}
			for _, w := range words(name) {
				addEnglish(addName, w, weightName)
				if !seenWord[w] {
					seenWord[w] = true
					ix.nameWords = append(ix.nameWords, w)
				}
			}
		}
		zh, _ := fold(a.SummaryZh)
		ix.textHay[i] = hay(strings.ToLower(a.Summary), strings.ToLower(a.SummaryZh), zh)
		addText(add, strings.ToLower(a.Summary), weightSummary)
		addText(add, zh, weightSummary)
		if desc != nil {
			// Only the names and summaries describe what an action does.
			add = func(term string, w float64) { tf[term] += w }
		}
		if composes(a) {
			// What a message can hold (OneBot v11's segment types) is what
			// sending one can send, as surely as its summary says it: "send
			// a sticker" is send_msg, not the account's saved stickers.
			for _, w := range segmentWords {
				addEnglish(add, w, weightSummary)
			}
		}
		for _, p := range a.Params {
			for _, w := range words(p.Name) {
				addEnglish(add, w, weightParam)
			}
			addText(add, strings.ToLower(p.Description), weightParam)
		}
		category, _ := fold(a.Category)
		addText(add, category, weightCategory)
		addText(add, strings.ToLower(a.CategoryLabel), weightCategory)
		for term, w := range tf {
			ix.postings[term] = append(ix.postings[term], posting{int32(i), float32(w)})
			ix.length[i] += w
		}
	}
	for _, l := range ix.length {
		ix.avgLen += l
	}
	ix.avgLen /= float64(max(1, n))
	return ix
}

// clears reports whether a, which changes something, says that an empty
// value removes what it sets ("an empty title removes it"), or is a switch
// whose false undoes it ("false to revoke admin", "false removes the
// reaction"): such a change is a removal too.
func clears(a *Action) bool {
	texts := []string{a.Summary}
	for _, p := range a.Params {
		texts = append(texts, p.Description)
	}
	for _, t := range texts {
		for _, clause := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return strings.ContainsRune(",;:.", r) }) {
			if strings.Contains(clause, "empty") && (strings.Contains(clause, "removes") || strings.Contains(clause, "clears")) ||
				strings.HasPrefix(strings.TrimSpace(clause), "false to ") || strings.HasPrefix(strings.TrimSpace(clause), "false removes") {
				return true
			}
		}
	}
	return false
}

// firstClause returns a summary up to its first comma, semicolon, colon
// or full stop, in either script: the clause that says what an action does.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ",;:，；：。"); i >= 0 {
		return s[:i]
	}
	return strings.TrimSuffix(s, ".")
}

// hay joins fields for holds, dropping any NUL a field holds.
func hay(fields ...string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(0)
		}
		b.WriteString(strings.ReplaceAll(f, "\x00", ""))
	}
	return b.String()
}

// needles are what the substring match looks for: the normalized query
// and, when normalizing changed it, the query as typed. A string holding
// NUL is in no field of a hay, so it is not looked for.
func needles(whole, raw string) []string {
	var out []string
	for _, q := range []string{whole, raw} {
		if q != "" && strings.IndexByte(q, 0) < 0 && !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}

// holds reports whether one of the fields joined in hay contains one of
// needles.
func holds(hay string, needles []string) bool {
	return slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(hay, n) })
}

// squash takes the underscores and dots out of a name.
func squash(name string) string {
	return strings.NewReplacer("_", "", ".", "").Replace(name)
}

// groupTerm is the index term of synonym group g.
func groupTerm(g int) string { return "#" + strconv.Itoa(g) }

// addText adds the terms of a piece of text: its English words, the
// dictionary words of its Chinese, and the Chinese character pairs.
func addText(add func(string, float64), text string, w float64) {
	text = identifier.ReplaceAllString(text, " ")
	for _, word := range words(text) {
		addEnglish(add, word, w)
	}
	for _, run := range hanRuns(text) {
		rs := []rune(run)
		for j := 0; j+1 < len(rs); j++ {
			add(string(rs[j:j+2]), w)
		}
	}
	// A synonym's Chinese word anywhere in the text counts as its group.
	if !hasHan(text) {
		return
	}
	for word, g := range hanSynonyms {
		if strings.Contains(text, word) {
			add(groupTerm(g), w)
		}
	}
}

// identifier matches a snake_case name inside prose ("from
// get_group_list"): a reference to another action, whose words say
// nothing about this one.
var identifier = regexp.MustCompile(`[a-z0-9]+(?:_[a-z0-9]+)+`)

// addEnglish adds one English word, its singular, and its synonym group.
func addEnglish(add func(string, float64), word string, w float64) {
	s := stem(word)
	add(s, w)
	if g, ok := synonymIndex[word]; ok {
		add(groupTerm(g), w)
	} else if g, ok := synonymIndex[s]; ok {
		add(groupTerm(g), w)
	}
}

// stem reduces an English plural to its singular, crudely: enough for
// "messages" to find "message".
func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// words returns the runs of ASCII letters and digits in s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	})
}

// hanRuns returns the runs of Chinese characters in s.
func hanRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.Is(unicode.Han, r) })
}

// idf is the inverse document frequency of a term found in df of n
// actions; a term found nowhere gets the rarest term's weight.
func idf(df, n int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// hanSynonyms maps every Chinese word of the synonym table to its group.
var hanSynonyms = func() map[string]int {
	m := map[string]int{}
	for w, g := range synonymIndex {
		if hasHan(w) {
			m[w] = g
		}
	}
	return m
}()

// objectWords are the words of action names that name the thing acted on
// rather than the act: of two actions that match a query alike, the one
// whose object the query does not name (rename_group_file for "rename the
// group", delete_essence_msg for "delete a message") is the worse answer.
var objectWords = map[string]bool{
	"file": true, "files": true, "folder": true, "album": true, "media": true,
	"essence": true, "qzone": true, "flash": true, "fileset": true, "notice": true,
	"todo": true, "face": true, "forward": true, "record": true, "video": true,
	"image": true, "avatar": true, "portrait": true, "card": true, "title": true,
	"remark": true, "longnick": true, "collection": true, "cache": true,
	"stream": true, "rkey": true, "honor": true, "ai": true, "ark": true,
	"friend": true, "friends": true, "stranger": true, "poke": true, "emoji": true,
	"reaction": true, "whole": true,
}

// segmentWords are the OneBot v11 message segment types a sent message can
// hold (https://github.com/botuniverse/onebot-11, message/segment.md).
// Other platforms name two of them otherwise: an at is a mention
// (Telegram's MessageEntity type "mention", Discord's mentions), a reply
// quotes (Telegram's ReplyParameters.quote).
var segmentWords = []string{"text", "image", "record", "video", "face", "at", "reply", "mention", "quote"}

// composes reports whether a sends a message it composes from segments: it
// takes a message and no forward nodes.
func composes(a *Action) bool {
	has := func(name string) bool {
		return slices.ContainsFunc(a.Params, func(p Param) bool { return p.Name == name })
	}
	return a.Send && has("message") && !has("messages")
}

// undoes reports whether the action named name (set_group_admin) is also its
// own undoing: a set_ action with a boolean switch (enable, is_set, set)
// that turns what it sets off.
func undoes(a *Action, name string) bool {
	if !strings.HasPrefix(name, "set") {
		return false
	}
	return slices.ContainsFunc(a.Params, func(p Param) bool {
		return (p.Name == "enable" || p.Name == "is_set" || p.Name == "set") && strings.Contains(string(p.Schema), `"boolean"`)
	})
}
