package catalog

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/internal/editdist"
)

// A unit is one word of a query: the index terms that find it, and what
// covering it is worth. An action covers a unit when it holds any of its
// terms.
type unit struct {
	word   string
	terms  []queryTerm
	weight float64
	// alts are the word and its synonyms, for the exact-name rule.
	alts []string
	// guessed marks a word taken for the dictionary word or name word it
	// is one edit from: covering it counts for half.
	guessed bool
	// state marks an English past participle (banned users, pinned
	// messages): it names a state to read, not an act asked for.
	state bool
}

// A queryTerm is an index term and its share of its unit. across marks a
// character pair that spans the boundary to the next word; hint a term
// that only ranks: it neither covers its unit nor names anything (see
// pluralWeight).
type queryTerm struct {
	term         string
	weight       float64
	across, hint bool
}

// pluralWeight is the share of an English plural of a thing ("groups",
// "members"; not an act such as "removes") that the list synonym holds: asking for things in the plural is asking
// for a list of them, so of two actions that name the things, the one
// that lists them ranks first.
const pluralWeight = 0.5

// literalShare is the share of an English word in a synonym group that the
// word as spelt holds: the group speaks for it, so a summary that happens
// to say "Fetch" is no better an answer to "fetch" than one that says
// "Get" or "List".
const literalShare = 0.5

// acrossWeight is the share of its word that the character pairs spanning
// a word's boundary hold: they find a phrase written as such (群消息), but
// weigh less than the words.
const acrossWeight = 0.25

// unknownShare is the part of the rarest term's weight a word that no
// action holds counts for: it lowers every action's coverage alike, and a
// query that is mostly such words is a weak match.
const unknownShare = 0.6

// parse cuts a normalized query into units. English words (runs of ASCII
// letters and digits; an underscore or a dot separates words, so a name
// typed with a typo still yields its words) go through the synonym table,
// and a word no action holds is taken for the nearest word of an action name
// within one or two edits. A run of Chinese is cut into dictionary words
// (segmentHan); the character pairs of its non-filler stretches are terms
// too. Filler in either language, bare numbers and durations are dropped.
func (c *Catalog) parse(q string, ix *index) []unit {
	n := len(c.actions)
	var units []unit
	seen := map[string]bool{}
	finish := func(u unit) {
		if seen[u.word] || len(u.terms) == 0 {
			return
		}
		seen[u.word] = true
		u.weight = 0
		for _, t := range u.terms {
			if df := len(ix.postings[t.term]); df > 0 && !t.hint {
				u.weight = max(u.weight, idf(df, n))
			}
		}
		if u.weight == 0 {
			u.weight = unknownShare * idf(0, n)
		}
		units = append(units, u)
	}
	var word, han strings.Builder
	flushWord := func() {
		w := word.String()
		word.Reset()
		if len(w) < 2 || englishFiller[w] || isNumber(w) {
			return
		}
		guessed := false
		known := func(w string) bool {
			_, syn := synonymIndex[w]
			return syn || len(ix.postings[stem(w)]) > 0
		}
		state := false
		synonym := func(w string) bool { _, ok := synonymIndex[w]; return ok }
		if synonym(w) {
			// as it is
		} else if b, participle := baseForm(w, synonym); b != "" {
			w, state = b, participle // pinned is pin, whatever a summary says
		} else if !known(w) {
			if b, participle := baseForm(w, known); b != "" {
				w, state = b, participle
			} else {
				near := nearestWord(w, ix.nameWords)
				guessed, w = near != w, near
			}
		}
		u := englishUnit(w)
		if g, ok := u.group(); ok && plural(w) && len(units) > 0 && writeWords[synonyms[g][0]] {
			// An act in the plural after other words is a thing: "show the
			// bans". First, it is a description's verb: "Removes a user".
			state = true
		}
		u.guessed, u.state = guessed, state
		finish(u)
	}
	flushHan := func() {
		for _, u := range hanUnits(han.String(), ix) {
			finish(u)
		}
		han.Reset()
	}
	for _, r := range q {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			han.WriteRune(r)
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			flushHan()
			word.WriteRune(r)
		case r == '@' && han.Len() == 0:
			// "@全体": the at sign belongs to the Chinese that follows.
			flushWord()
			han.WriteRune(r)
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	givenOrTaken(units)
	return units
}

// givenOrTaken rewrites the act done to a role: a role is given and taken
// by setting it, so adding, removing, revoking or recalling an admin
// (添加管理员, 把他的管理员撤了, remove admin) asks for the setting act,
// as group-admin plugins' commands do (kivibot-plugin-group-manager's
// 管理+ and 管理-, nonebot set_admin's 管理 with 添加 and 删除, Koishi
// plugins' 设置 and 取消管理 calling setGroupAdmin with enable on or off).
func givenOrTaken(units []unit) {
	role := slices.ContainsFunc(units, func(u unit) bool {
		g, ok := u.group()
		return ok && synonyms[g][0] == "admin"
	})
	// The role is what is acted on only when nothing else is named: 撤回
	// 管理员发的消息 recalls a message.
	other := slices.ContainsFunc(units, func(u unit) bool {
		g, ok := u.group()
		return ok && !roleActs[synonyms[g][0]] && !roleWords[synonyms[g][0]]
	})
	if !role || other {
		return
	}
	set := synonymIndex["set"]
	for i, u := range units {
		g, ok := u.group()
		if !ok || !roleActs[synonyms[g][0]] {
			continue
		}
		// The word keeps its weight (it is as particular a request as it
		// was) and is covered by the setting act too. A role recalled
		// (撤) is revoked: no message is.
		terms := slices.Clone(u.terms)
		if synonyms[g][0] == "recall" {
			cancel := synonymIndex["cancel"]
			units[i].word, units[i].alts = "cancel", synonyms[cancel]
			terms = groupTerms(cancel)
		}
		units[i].terms = append(terms, groupTerms(set)...)
	}
}

// roleActs are the synonym groups (by their first word) of the acts that
// give or take a role.
var roleActs = map[string]bool{"add": true, "delete": true, "recall": true, "cancel": true}

// roleWords are the synonym groups, besides the acts, of a request to give
// or take a role: the role, the set act, and whose and where it is.
var roleWords = map[string]bool{"admin": true, "set": true, "group": true, "member": true}

// plural reports whether w is an English plural (or third person) of a
// synonym: its singular is one and it is not one itself (status, thumbs
// and details are synonyms as they are spelt).
func plural(w string) bool {
	_, listed := synonymIndex[w]
	_, single := synonymIndex[stem(w)]
	return !listed && single && stem(w) != w
}

// baseForm returns the word an English past or -ing form is made from
// (banned, muted, pinned, uploading), when known holds it, or "", and
// whether w is the past form.
func baseForm(w string, known func(string) bool) (string, bool) {
	for _, suffix := range []string{"ed", "ing"} {
		b, ok := strings.CutSuffix(w, suffix)
		if !ok || len(b) < 2 {
			continue
		}
		cands := [3]string{b, b + "e"}
		if n := len(b); b[n-1] == b[n-2] {
			cands[2] = b[:n-1] // banned, pinning
		}
		for _, c := range cands {
			if c != "" && known(c) {
				return c, suffix == "ed"
			}
		}
	}
	return "", false
}

// englishUnit is the unit of an English word: the word (singular) and its
// synonym group.
func englishUnit(w string) unit {
	u := unit{word: w, alts: []string{w}, terms: []queryTerm{{term: stem(w), weight: 1}}}
	g, ok := synonymIndex[w]
	if !ok {
		g, ok = synonymIndex[stem(w)]
	}
	if ok {
		u.terms[0].weight = literalShare
		u.terms = append(u.terms, groupTerms(g)...)
		u.alts = synonyms[g]
		if head := synonyms[g][0]; plural(w) && !writeWords[head] && head != "get" && head != "list" {
			// Messages are listed by their history.
			list := "list"
			if head == "message" {
				list = "history"
			}
			u.terms = append(u.terms, queryTerm{term: groupTerm(synonymIndex[list]), weight: pluralWeight, hint: true})
		}
	}
	return u
}

// groupTerms are the query terms of synonym group g: its own, and for the
// undoing of an act (unmute, unban) half the act's, since one action
// usually does both (set_group_ban with a duration of 0 unmutes).
func groupTerms(g int) []queryTerm {
	ts := []queryTerm{{term: groupTerm(g), weight: 1}}
	if head := synonyms[g][0]; strings.HasPrefix(head, "un") {
		if base, ok := synonymIndex[head[2:]]; ok {
			ts = append(ts, queryTerm{term: groupTerm(base), weight: undoWeight})
		}
	}
	return ts
}

// undoWeight is the share of an undoing word that the act it undoes holds.
const undoWeight = 0.5

// hanUnits returns the units of a run of Chinese: one per dictionary term
// (a compound stands for several) and one per stretch of characters the
// dictionary does not know, each with the character pairs that start in it,
// fillers left out.
func hanUnits(run string, ix *index) []unit {
	pieces := segmentHan(joinSeparable(run))
	// What follows "change it to" is the new value, not the request:
	// 把群名改成测试群 asks to set the group name.
	if i := slices.IndexFunc(pieces, func(p piece) bool { return valueVerbs[p.text] }); i >= 0 {
		pieces = pieces[:i+1]
	}
	var units []unit
	// Pairs never span a filler: 把他踢了 gives no pair 他踢.
	for i := 0; i < len(pieces); {
		if pieces[i].filler {
			i++
			continue
		}
		j := i
		for j < len(pieces) && !pieces[j].filler {
			j++
		}
		stretch := pieces[i:j]
		var text []rune
		var starts []int // the rune each piece starts at
		for _, p := range stretch {
			starts = append(starts, len(text))
			text = append(text, []rune(p.text)...)
		}
		for k, p := range stretch {
			end := len(text) - 1
			if k+1 < len(stretch) {
				end = starts[k+1]
			}
			var pairs []string
			from := starts[k]
			if p.known {
				// Inside a dictionary word its synonym group already
				// matches; only the pair across the next boundary adds.
				from = max(from, end-1)
				if k+1 == len(stretch) {
					from = end
				}
			}
			for r := from; r < end; r++ {
				if pair := string(text[r : r+2]); strings.Count(pair, "@") == 0 {
					pairs = append(pairs, pair)
				}
			}
			if p.known {
				for ti, t := range p.terms {
					u := unit{word: t, alts: []string{t}, guessed: p.guessed}
					if g, ok := synonymIndex[t]; ok {
						u.terms = append(u.terms, groupTerms(g)...)
						u.alts = synonyms[g]
					} else {
						u.terms = append(u.terms, pairTerms(t, 1)...)
					}
					if ti == 0 {
						for _, pr := range pairs {
							u.terms = append(u.terms, queryTerm{term: pr, weight: acrossWeight / float64(len(pairs)), across: true})
						}
					}
					units = append(units, u)
				}
				continue
			}
			if len(pairs) == 0 {
				continue // a lone unknown character says nothing
			}
			u := unit{word: p.text}
			for _, pr := range pairs {
				u.terms = append(u.terms, queryTerm{term: pr, weight: 1 / float64(len(pairs))})
			}
			units = append(units, u)
		}
		i = j
	}
	return units
}

// valueVerbs are the Chinese verbs after which a command names the new
// value (改成, 改为, 换成: change to), whose words say nothing of the
// action; 设为 is left out, since what follows it is a kind (设为精华,
// 设为管理员).
var valueVerbs = map[string]bool{"改成": true, "改为": true, "换成": true, "修改为": true}

// pairTerms returns the character pairs of s as terms sharing weight w.
func pairTerms(s string, w float64) []queryTerm {
	rs := []rune(strings.TrimPrefix(s, "@"))
	var out []queryTerm
	for i := 0; i+1 < len(rs); i++ {
		out = append(out, queryTerm{term: string(rs[i : i+2]), weight: w / float64(len(rs)-1)})
	}
	return out
}

// A piece is one cut of a run of Chinese: a dictionary word (known, with
// the terms it stands for; none for a filler) or characters the dictionary
// does not know.
type piece struct {
	text                   string
	terms                  []string
	known, filler, guessed bool
}

// segmentHan cuts a run of Chinese characters into the fewest pieces, where
// a piece is a word of the dictionary (a synonym, a compound or a filler
// word) or a character the dictionary does not know, which costs more.
// Consecutive unknown characters come back as one piece, unless one
// character away from a dictionary word (禁严 for 禁言), which it then is.
func segmentHan(s string) []piece {
	rs := []rune(s)
	n := len(rs)
	const unknown = 2
	cost := make([]int, n+1)
	from := make([]int, n+1) // start of the piece that ends at i
	for i := 1; i <= n; i++ {
		cost[i] = cost[i-1] + unknown
		from[i] = i - 1
		for l := 2; l <= min(i, maxWordRunes); l++ {
			if _, ok := hanDictionary[string(rs[i-l:i])]; ok && cost[i-l]+1 <= cost[i] {
				cost[i] = cost[i-l] + 1
				from[i] = i - l
			}
		}
		if _, ok := hanDictionary[string(rs[i-1])]; ok && cost[i-1]+1 < cost[i] {
			cost[i] = cost[i-1] + 1
			from[i] = i - 1
		}
	}
	var cuts []string
	for i := n; i > 0; i = from[i] {
		cuts = append(cuts, string(rs[from[i]:i]))
	}
	slices.Reverse(cuts)
	var pieces []piece
	var rest strings.Builder
	flush := func() {
		if rest.Len() == 0 {
			return
		}
		t := rest.String()
		rest.Reset()
		if w := nearestHanWord(t); w != t {
			pieces = append(pieces, piece{text: t, terms: []string{w}, known: true, guessed: true})
			return
		}
		pieces = append(pieces, piece{text: t})
	}
	for _, p := range cuts {
		terms, ok := hanDictionary[p]
		if !ok {
			rest.WriteString(p)
			continue
		}
		flush()
		pieces = append(pieces, piece{text: p, terms: terms, known: true, filler: len(terms) == 0})
	}
	flush()
	return pieces
}

// nearestWord returns the word of words nearest to w (one edit for a word
// of four to six letters, two from seven), or w itself when none is that
// close.
func nearestWord(w string, words []string) string {
	n := utf8.RuneCountInString(w)
	if n < 4 || len(w) > MaxNameBytes {
		return w
	}
	limit := 1
	if n >= 7 {
		limit = 2
	}
	best, bestDist := w, limit+1
	for _, part := range words {
		if d := editdist.Distance(w, part); d < bestDist || (d == bestDist && d <= limit && part < best) {
			best, bestDist = part, d
		}
	}
	if bestDist > limit {
		return w
	}
	return best
}

// nearestHanWord returns the first dictionary word (in sorted order) of the
// same length as t that differs from it in one character, or t when there is
// none: 禁严 is taken for 禁言.
func nearestHanWord(t string) string {
	rt := []rune(t)
	if len(rt) < 2 {
		return t
	}
	for _, w := range hanWords {
		rw := []rune(w)
		if len(rw) != len(rt) {
			continue
		}
		diff := 0
		for i := range rw {
			if rw[i] != rt[i] {
				diff++
			}
		}
		if diff == 1 {
			if known := hanDictionary[w]; len(known) == 1 {
				return known[0]
			}
		}
	}
	return t
}

// group returns the synonym group of u's word, as spelt or in the
// singular (removes is remove, messages is message).
func (u unit) group() (int, bool) {
	if g, ok := synonymIndex[u.word]; ok {
		return g, true
	}
	g, ok := synonymIndex[stem(u.word)]
	return g, ok
}

// coverage is what covering u is worth: its weight, half of it for a
// guessed word.
func (u unit) coverage() float64 {
	if u.guessed {
		return u.weight / 2
	}
	return u.weight
}

// joinSeparable undoes two ways colloquial Chinese spreads a verb over
// more characters than the dictionary word: a separable verb-object word
// (离合词) split by an aspect particle, a measure word or a demonstrative
// (禁个言, 点个赞, 退了这个群 for 禁言, 点赞, 退群), and a one-character
// verb said twice to soften it (看看, 查一查 for 看, 查). Both are the
// grammar references' rules (the Chinese Grammar Wiki's "Separable verb"
// and "Verb reduplication" pages, resources.allsetlearning.com); only
// dictionary words are joined, so the rest of the run is left as it is.
func joinSeparable(run string) string {
	var b strings.Builder // written only once something is joined
	done := 0             // the bytes of run already in b
	for i := 0; i < len(run); {
		v, n := utf8.DecodeRuneInString(run[i:])
		next := i + n
		skip := -1 // the end of what stands for v alone, when joined
		var obj string
		if verbChar(v) {
			// A one-character verb twice, or with 一 between: one verb.
			rest := run[next:]
			if r, m := utf8.DecodeRuneInString(rest); r == v {
				skip = next + m
			} else if r == '一' {
				if r2, m2 := utf8.DecodeRuneInString(rest[m:]); r2 == v {
					if _, word := hanDictionary[run[i:next+m+m2]]; !word {
						skip = next + m + m2
					}
				}
			}
		}
		if skip < 0 && separableFirst[v] {
			for _, infix := range separableInfixes {
				if rest, ok := strings.CutPrefix(run[next:], infix); ok {
					if r, m := utf8.DecodeRuneInString(rest); m > 0 && separable[string(v)+string(r)] {
						skip, obj = len(run)-len(rest)+m, string(r)
						break
					}
				}
			}
		}
		if skip < 0 {
			i = next
			continue
		}
		b.WriteString(run[done:next])
		b.WriteString(obj)
		done, i = skip, skip
	}
	if done == 0 {
		return run
	}
	b.WriteString(run[done:])
	return b.String()
}

// separableInfixes are what comes between the verb and the object of a
// separable word, longest first: an aspect particle (了, 过), a measure
// word (个, 一下) and a demonstrative (这个, 那个).
var separableInfixes = []string{"了这个", "了那个", "一下这个", "一下", "一个", "了个", "这个", "那个", "个", "了", "过"}

// separable are the dictionary's two-character words of an act (禁言,
// 点赞, 退群, 改名, 签到, 拉黑): a split form is joined only into one of
// them.
var separable = func() map[string]bool {
	m := map[string]bool{}
	for _, g := range synonyms {
		if !writeWords[g[0]] {
			continue
		}
		for _, w := range g {
			if hasHan(w) && utf8.RuneCountInString(w) == 2 {
				m[w] = true
			}
		}
	}
	return m
}()

// verbChar reports whether r alone is a dictionary word of an act or of
// reading (删, 看, 查): the verbs said twice to soften them.
func verbChar(r rune) bool {
	g, ok := synonymIndex[string(r)]
	return ok && (writeWords[synonyms[g][0]] || synonyms[g][0] == "get")
}

// separableFirst are the first characters of the separable words.
var separableFirst = func() map[rune]bool {
	m := map[rune]bool{}
	for w := range separable {
		r, _ := utf8.DecodeRuneInString(w)
		m[r] = true
	}
	return m
}()
