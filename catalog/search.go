package catalog

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/internal/editdist"
	"github.com/snowluma/snowluma-mcp/internal/quote"
)

// A Filter narrows a listing or a search. Zero fields match everything.
type Filter struct {
	Category string // canonical category name, already resolved
	ReadOnly *bool
	Stream   *bool
}

func (f Filter) match(a *Action) bool {
	return (f.Category == "" || a.Category == f.Category) &&
		(f.ReadOnly == nil || a.ReadOnly == *f.ReadOnly) &&
		(f.Stream == nil || a.Stream == *f.Stream)
}

// List returns the actions that pass f, in catalog order.
func (c *Catalog) List(f Filter) []*Action {
	var out []*Action
	for _, a := range c.actions {
		if f.match(a) {
			out = append(out, a)
		}
	}
	return out
}

// Matches is a search's answer: the actions found, best first, and how
// sure the search is of them.
type Matches struct {
	Actions []*Action
	// Weak is true when the best match rests on little: the query's
	// distinctive words matched nothing, or only a common word or filler
	// did, or the best action changes something and its act or object is
	// a guess (see guessedAct and namesDeed) or the query is a question
	// that asks for no change, or the best action only reads and the
	// query asks for something QQ has no action for or for a change the
	// action holds no word of. The first action is then a guess, not an
	// answer, and one that only reads.
	Weak bool
	// Category is the category most of the first matches belong to, the
	// one worth browsing when the match is weak; empty when none matched.
	Category string
}

// Search is the default search. It returns every action that passes f and
// whose name, an alias, or the English or Chinese summary contains query,
// ignoring case (the baseline substring match, so nothing it finds is ever
// lost), together with the actions the ranked search finds (see Match).
func (c *Catalog) Search(query string, f Filter) []*Action {
	return c.Match(query, f, false).Actions
}

// SearchKeywords is the keyword search: the ranked search of Match without
// the whole-query substring match, where the actions matching every word
// of the query come before those matching only some of them.
func (c *Catalog) SearchKeywords(query string, f Filter) []*Action {
	return c.Match(query, f, true).Actions
}

// Match ranks the actions that pass f against query. The query is
// normalized (see Normalize), cut into words (white space and punctuation;
// unspaced Chinese into dictionary words, with character pairs for what no
// dictionary knows) and stripped of a request's filler (帮我, 一下, please,
// how do I). Each action is scored by BM25 over its names, summaries,
// parameters and category, and the score is scaled by how much of the query
// the action covers: an unknown word, a filler word or a typo lowers a
// score, it never empties the answer.
//
// The order: an exact name or alias first; then, with unsupported actions
// (stubs, no-ops, compatibility mocks) always after the rest, in keywords
// mode the actions matching every word first; then by score, a OneBot v11
// standard action a little above an extension; ties keep catalog order. An
// action whose name acts on something the query does not name ranks lower.
// A weak match (see Matches.Weak) never puts an action that changes
// something first (see the rule where Weak is set).
// Actions scoring under a fraction of the best are left out, except, in the
// default mode (keywords false), every substring match of the whole query.
func (c *Catalog) Match(query string, f Filter, keywords bool) Matches {
	query = quote.Prefix(query, MaxQueryRunes)
	whole := Normalize(query)
	if whole == "" {
		return Matches{}
	}
	ix := c.index()
	n := len(c.actions)
	words := whole
	if split := splitCamel(query); split != query {
		words = Normalize(split)
	}
	rephrased := rephrase(words)
	units := c.parse(rephrased, ix)
	raw := strings.ToLower(strings.TrimSpace(query))
	// The words a request does without are no part of it (see rephrase).
	said := raw
	if p, ok := dropWithout(" " + raw + " "); ok {
		said = strings.TrimSpace(p)
	}
	subs := needles(whole, raw)

	total := 0.0
	for _, u := range units {
		total += u.weight
	}
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	sc.reset(n)
	score, covered, named := sc.floats[:n], sc.floats[n:2*n], sc.floats[2*n:]
	matched, namedN := sc.ints[:n], sc.ints[n:]
	marks := sc.marks
	inName, seen := marks[:n], marks[n:]
	for _, u := range units {
		clear(marks)
		for _, t := range u.terms {
			if t.hint {
				continue
			}
			for _, d := range ix.inName[t.term] {
				if !inName[d] {
					inName[d] = true
					named[d] += u.weight
					namedN[d]++
				}
			}
		}
		for _, t := range u.terms {
			ps := ix.postings[t.term]
			w := t.weight * idf(len(ps), n)
			for _, p := range ps {
				d := p.doc
				tf := float64(p.tf)
				norm := 1 - bm25B + bm25B*ix.length[d]/ix.avgLen
				score[d] += w * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
				if !seen[d] && !t.hint {
					seen[d] = true
					covered[d] += u.coverage()
					matched[d]++
				}
			}
		}
	}
	// An action named in the query (an operator pasting get_msg into a
	// sentence) is what the sentence is about.
	mentioned := map[int32]bool{}
	for _, tok := range strings.FieldsFunc(whole, func(r rune) bool {
		return !(r == '_' || r == '.' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) {
		if d, ok := namedIn(ix, strings.Trim(tok, ".")); ok {
			mentioned[d] = true
		}
	}
	// The terms the query names, for the objects rule.
	asked := sc.asked
	clear(asked)
	for _, u := range units {
		for _, t := range u.terms {
			asked[t.term] = asked[t.term] || !t.hint
		}
	}
	// A private chat is one with a friend (私聊记录 is a friend's history):
	// naming it names the friend the action acts on.
	if asked[privateTerm] {
		asked[friendTerm] = true
	}
	probing := asksAbility(raw)
	question := asksQuestion(raw)
	var singular []string
	for _, u := range units {
		if u.word[0] < utf8.RuneSelf && stem(u.word) == u.word {
			singular = append(singular, u.word)
		}
	}
	var exactAlts []string
	if len(units) == 1 {
		exactAlts = units[0].alts
	}
	maxIDF := idf(0, n)
	found := sc.found[:0]
	best := 0.0
	for i, a := range c.actions {
		if !f.match(a) {
			continue
		}
		h := hit{a: a, supported: a.IsSupported(), index: i, covered: covered[i]}
		if namedN[i] > 0 {
			// The more of the name the query accounts for, the surer.
			precision := min(1, float64(namedN[i])/float64(max(1, ix.nameLen[i])))
			score[i] += nameBonus * named[i] * (precisionFloor + (1-precisionFloor)*precision)
		}
		nameSub := holds(ix.nameHay[i], subs)
		h.substring = !keywords && (nameSub || holds(ix.textHay[i], subs))
		h.nameSub = nameSub && utf8.RuneCountInString(whole) > 2
		if total > 0 {
			h.cov = covered[i] / total
		}
		h.all = len(units) > 0 && matched[i] == len(units)
		h.score = score[i] * (0.25 + 0.75*h.cov)
		if mentioned[int32(i)] {
			h.score += 2 * maxIDF
			h.cov = 1
		}
		if nameSub && utf8.RuneCountInString(whole) > 1 {
			// The whole query inside a name is strong evidence.
			h.score += maxIDF
		} else if h.substring && h.score == 0 {
			h.score = 0.1
		}
		if h.score == 0 {
			continue
		}
		h.exact = slices.Contains(ix.names[i], whole) || slices.Contains(ix.names[i], raw) ||
			slices.ContainsFunc(ix.names[i], func(n string) bool { return slices.Contains(exactAlts, n) })
		if ix.standard[i] {
			h.score *= standardBonus
		}
		// Prefer the object named: each thing the action's name acts on
		// that the query does not name costs a share of its score, and an
		// action that only reports whether something can be done is not
		// the answer to doing it.
		for _, o := range ix.objects[i] {
			if !asked[o] {
				h.score *= objectPenalty
			}
		}
		if ix.probe[i] && !probing {
			h.score *= probePenalty
		}
		// Of two names that match alike, the one with fewer words left over
		// is the more precise.
		h.score -= 0.01 * float64(ix.underscores[i])
		// A name that holds in the plural what the query asks for in the
		// singular ("kick member", set_group_kick_members) is the less
		// precise of two.
		for _, p := range ix.plurals[i] {
			if slices.Contains(singular, p) {
				h.score *= numberPenalty
			}
		}
		best = max(best, h.score)
		found = append(found, h)
	}
	cut := 0.4
	if keywords {
		cut = 0.2
	}
	// Pointers, not hits, are sorted: a hit is ten words.
	kept := sc.kept[:0]
	for i := range found {
		if h := &found[i]; h.exact || h.substring || h.score >= cut*best {
			kept = append(kept, h)
		}
	}
	// The order is total (the catalog index breaks ties), so an unstable
	// sort gives the same answer, faster.
	slices.SortFunc(kept, func(x, y *hit) int {
		switch {
		case x.exact != y.exact:
			return first(x.exact)
		case x.supported != y.supported:
			return first(x.supported)
		case keywords && x.all != y.all:
			return first(x.all)
		case x.score != y.score:
			if x.score > y.score {
				return -1
			}
			return 1
		}
		return x.index - y.index
	})
	m := Matches{Actions: make([]*Action, len(kept))}
	for i, h := range kept {
		m.Actions[i] = h.a
	}
	if len(kept) == 0 {
		return m
	}
	// A read that holds every word of a query of known words ("get
	// groups": synonyms, or English words the catalog holds; not Chinese
	// it knows only by character pairs) is an answer, however common the
	// words.
	plain := func() bool {
		return !slices.ContainsFunc(units, func(u unit) bool {
			_, syn := u.group()
			return u.guessed || !syn && (hasHan(u.word) || len(ix.postings[stem(u.word)]) == 0)
		}) && slices.ContainsFunc(units, func(u unit) bool {
			// and names a thing, not only a verb (查询 alone)
			g, ok := u.group()
			return !ok || !writeWords[synonyms[g][0]] && synonyms[g][0] != "get" && synonyms[g][0] != "list"
		})
	}
	var firm map[string]bool
	unsure := func(h *hit) bool {
		if h.exact {
			return false
		}
		if h.nameSub {
			// Part of a name is sure of a read, and a part typed as a name
			// is sure of a change only if it names the change's object:
			// create_group is no create_group_file_folder.
			if h.a.ReadOnly || !strings.ContainsAny(whole, "_.") {
				return false
			}
			if firm == nil {
				firm = firmTerms(units, rephrased)
			}
			return !namesDeed(ix, h.index, units, firm)
		}
		if (weak(h.cov, h.covered) && !(h.a.ReadOnly && h.cov == 1 && plain())) || readAnsweredByWrite(units, h.a) ||
			question && !h.a.ReadOnly && !saysAct(units) {
			// A question that asks for no change ("what's the group's
			// name") is not answered by one.
			return true
		}
		if firm == nil {
			firm = firmTerms(units, rephrased)
		}
		if h.a.ReadOnly {
			// A read is no answer to a request for what QQ has no action
			// for (a poll, a call) unless it holds the word, nor to a
			// request for a particular change it holds no word of
			// ("create a channel for announcements").
			return slices.ContainsFunc(foreignTerms, func(t string) bool { return firm[t] && !holdsTerm(ix.postings[t], h.index) }) ||
				!question && asksChangeNotHeld(ix, units, h.index) ||
				strings.Contains(h.a.Name, "translate") && translatesAway(said)
		}
		return h.a.Destructive && namedN[h.index] == 0 && !saysActOf(ix, units, h.index) || guessedAct(ix, units, asked, h.index) ||
			givesOwner(ix, units, said, h.index) ||
			!namesDeed(ix, h.index, units, firm) || unknownNoun(ix, said) || standingRule(said)
	}
	m.Weak = unsure(kept[0])
	if m.Weak {
		// Of the actions that match nearly as well, one the query names
		// with confidence is the answer a guess at the first is not: the
		// message a query asks to delete, not the essence entry it
		// happens to share words with. It is of the first's kind (a
		// change for a change, a read for a read) unless the query asks
		// to read and the first changes something.
		// A change must be asked for by a particular act (delete, remove),
		// not only by a generic one (set) or its object (pin).
		top := kept[0]
		reads := top.a.ReadOnly || readAnsweredByWrite(units, top.a) || question && !saysAct(units)
		for i := 1; i < min(promoteDepth, len(kept)); i++ {
			if h := kept[i]; h.supported && h.a.ReadOnly == reads && (reads || saysAct(units)) &&
				h.score >= promoteShare*top.score && !unsure(h) {
				copy(kept[1:i+1], kept[:i])
				kept[0] = h
				m.Actions[0] = h.a
				for j, h := range kept {
					m.Actions[j] = h.a
				}
				m.Weak = false
				break
			}
		}
	}
	if m.Weak && !m.Actions[0].ReadOnly {
		// A guess must not change anything: the first action that only
		// reads goes first, and when there is none, a guess is not worth
		// giving: only the whole query found verbatim is kept, since the
		// default mode never drops a substring match.
		j := slices.IndexFunc(m.Actions, func(a *Action) bool { return a.ReadOnly })
		if j < 0 {
			m.Actions = m.Actions[:0]
			for _, h := range kept {
				if h.substring {
					m.Actions = append(m.Actions, h.a)
				}
			}
		} else {
			a := m.Actions[j]
			copy(m.Actions[1:j+1], m.Actions[:j])
			m.Actions[0] = a
		}
	}
	m.Category = majorityCategory(kept[:min(5, len(kept))], func(h *hit) *Action { return h.a })
	return m
}

// namedIn returns the action a token of a query names: the token as it is
// (get_msg; getGroupList squashed, of 8 letters at least), the method
// after a receiver (Koishi's sender.getGroupList, bot.setGroupBan), or
// either without the suffix of a variant (go-cqhttp's _async and
// _rate_limited, coolq-sdk-rust's _v2).
func namedIn(ix *index, tok string) (int32, bool) {
	// A word alone must be long to be taken for a name; a separator, or
	// a receiver before it, says it is one.
	try := func(t string, method bool) (int32, bool) {
		d, ok := ix.named[t]
		return d, ok && (len(t) >= 5 && (method || strings.ContainsAny(t, "_.")) || len(t) >= 8)
	}
	cands := [2]string{tok}
	if i := strings.LastIndexByte(tok, '.'); i >= 0 {
		cands[1] = tok[i+1:]
	}
	for k, t := range cands {
		if t == "" {
			continue
		}
		if d, ok := try(t, k == 1); ok {
			return d, true
		}
		if base, ok := variantOf(t); ok {
			if d, ok := try(base, k == 1); ok {
				return d, true
			}
		}
		// A typed name without the prefix of an implementation's own
		// actions (NapCat's nc_, go-cqhttp's hidden _) names it.
		if strings.Contains(t, "_") {
			for _, pre := range []string{"nc_", "_"} {
				if d, ok := try(pre+t, k == 1); ok {
					return d, true
				}
			}
		}
	}
	return 0, false
}

// variantOf returns a name without the suffix that makes it a variant of
// another: _async, _rate_limited, or _v and a digit.
func variantOf(name string) (string, bool) {
	for _, suffix := range []string{"_async", "_rate_limited"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			return base, true
		}
	}
	if n := len(name); n > 3 && name[n-3] == '_' && name[n-2] == 'v' && isDigit(name[n-1]) {
		return name[:n-3], true
	}
	return "", false
}

// A hit is one action's standing in a search.
type hit struct {
	a                     *Action
	exact, supported, all bool
	substring, nameSub    bool
	cov, covered, score   float64
	index                 int
}

// A scratch is the working memory of one search of a catalog of n actions,
// kept between searches (index.scratch): allocating it for each search was
// half of the search's time and most of its garbage.
type scratch struct {
	// Per action: BM25 score, covered weight, weight of the words found in
	// a name; words matched and found in a name; and two scratch marks.
	floats []float64
	ints   []int
	marks  []bool
	asked  map[string]bool // the query's terms
	found  []hit           // the actions that scored, n at most
	kept   []*hit          // those kept, to be sorted
}

// reset makes s ready for a search of n actions: zeroed, with room for
// every action.
func (s *scratch) reset(n int) {
	if len(s.floats) != 3*n {
		s.floats, s.ints, s.marks = make([]float64, 3*n), make([]int, 2*n), make([]bool, 2*n)
		s.found, s.kept = make([]hit, 0, n), make([]*hit, 0, n)
		s.asked = map[string]bool{}
		return
	}
	clear(s.floats)
	clear(s.ints)
	clear(s.marks)
}

// nameBonus is what a query word found in an action's name or alias adds,
// as a share of the word's weight, on top of its BM25 score.
const nameBonus = 1.5

// precisionFloor is the share of nameBonus an action gets when the query
// accounts for none of its name's other words; the rest grows with the
// share of its name's words the query holds.

const precisionFloor = 0.25

// objectPenalty scales the score of an action for each object of its name
// the query does not name (see objectWords).
const objectPenalty = 0.8

// privateTerm, friendTerm and ownerTerm are the index terms of the
// private, friend and owner synonym groups.
var (
	privateTerm = groupTerm(synonymIndex["private"])
	friendTerm  = groupTerm(synonymIndex["friend"])
	ownerTerm   = groupTerm(synonymIndex["owner"])
)

// promoteDepth and promoteShare bound the actions a guess at the first
// may yield to: among the first promoteDepth, scoring at least
// promoteShare of the first's score.
const (
	promoteDepth = 5
	promoteShare = 0.5
)

// numberPenalty scales the score of an action whose name holds in the
// plural a word the query says in the singular.
const numberPenalty = 0.7

// probePenalty scales the score of a can_ probe for a query that does not
// ask whether something can be done: "send voice" is not can_send_record.
const probePenalty = 0.5

// asksQuestion reports whether a query, lower-cased, is a question about
// what is (what, which, who, is, are, how many), which asks to read, not
// how to do something (how do I).
func asksQuestion(q string) bool {
	first, rest, _ := strings.Cut(strings.TrimSpace(q), " ")
	if first == "have" && slices.ContainsFunc([]string{"the ", "my ", "our ", "this ", "that "}, func(p string) bool { return strings.HasPrefix(rest, p) }) {
		return false // have the bot send: a request, not a question
	}
	switch first {
	case "what", "what's", "whats", "which", "who", "who's", "whose", "where", "is", "are", "was", "were", "has", "have":
		return true
	case "how":
		return strings.HasPrefix(rest, "many ") || strings.HasPrefix(rest, "much ")
	}
	return false
}

// asksAbility reports whether a query, lower-cased, asks whether something
// can be done, the question the can_ probes answer.
func asksAbility(q string) bool {
	for _, w := range []string{"can ", "can't", "cannot", "whether", "able to", "能不能", "能否", "可以", "是否", "支持"} {
		if strings.Contains(q, w) {
			return true
		}
	}
	return false
}

// standardBonus scales the score of a OneBot v11 standard action: of two
// that match alike, the one most bots call.
const standardBonus = 1.05

// Thresholds of a weak match, calibrated on the development halves of the
// labelled queries (testdata/operator-queries.tsv, agent-queries.tsv): the
// share of the query's weight the best action covers and the least weight
// of the words it covers (a common word such as 群 or "get" alone weighs
// less), and a pair that together mark a partial match of little weight
// (a known act on an unknown object: 发个红包, "send a poll").
const (
	weakCoverage = 0.3
	weakWeight   = 2.0
	partCoverage = 0.6
	partWeight   = 3.5
)

// translatesAway reports whether a query asks for a translation into a
// language other than Chinese: QQ's translation (translate_en2zh) only
// turns English into Chinese.
func translatesAway(said string) bool {
	for _, lang := range otherLanguages {
		for _, into := range []string{"into ", "to ", "成", "为"} {
			if strings.Contains(said, into+lang) {
				return true
			}
		}
	}
	return strings.Contains(said, "中译") || strings.Contains(said, "from chinese")
}

// otherLanguages are the languages, in English and Chinese, that QQ's
// translation does not translate into.
var otherLanguages = []string{
	"english", "japanese", "korean", "french", "german", "spanish", "russian", "italian", "portuguese", "arabic",
	"英文", "英语", "日文", "日语", "韩文", "韩语", "法语", "法文", "德语", "德文", "西班牙语", "俄语", "俄文",
}

// givesOwner reports whether a query asks to give a group's ownership
// (hand the owner role over, 转让群主) and action d does not: QQ's bots
// have no action that transfers a group, and set_group_admin, which only
// the owner may call, makes admins.
func givesOwner(ix *index, units []unit, said string, d int) bool {
	head := func(h string) func(unit) bool {
		return func(u unit) bool { g, ok := u.group(); return ok && synonyms[g][0] == h }
	}
	owner := slices.IndexFunc(units, head("owner"))
	if owner < 0 || ix.acted[d][ownerTerm] {
		return false
	}
	// The owner set is the owner given (set the group owner); the owner
	// who sets something (群主设置管理员) gives nothing.
	set := slices.IndexFunc(units, func(u unit) bool { return head("set")(u) || u.word == "make" || u.word == "appoint" })
	return strings.Contains(said, "转让") || strings.Contains(said, "transfer") || strings.Contains(said, "ownership") ||
		set >= 0 && set < owner
}

// guessedAct reports whether action d, which changes something, is a guess
// at the query's act: the things its name acts on are all unnamed in the
// query (delete_group_file for "delete the channel"), or the query asks to
// change something in words d holds none of (set_group_portrait for
// "delete the chat photo"); set, send and add name no particular change,
// so they are not counted.
func guessedAct(ix *index, units []unit, asked map[string]bool, d int) bool {
	if objs := ix.objects[d]; len(objs) > 0 && !slices.ContainsFunc(objs, func(o string) bool { return asked[o] }) &&
		!slices.ContainsFunc(ix.deeds[d].heads, func(h string) bool { return impliedAsked(units, h) }) {
		return true
	}
	acts, held := 0, 0
	for _, u := range units {
		g, ok := u.group()
		if !ok || u.state || !writeWords[synonyms[g][0]] || genericActs[synonyms[g][0]] {
			continue
		}
		acts++
		if slices.ContainsFunc(u.terms, func(t queryTerm) bool { return !t.hint && (holdsTerm(ix.postings[t.term], d) || ix.acted[d][t.term]) }) {
			held++
		}
	}
	return acts > 0 && held == 0
}

// asksChangeNotHeld reports whether a query asks, in words it holds, for a
// particular change (not set, send or add, nor a state) and asks to read
// nothing, while action d holds no word of the change.
func asksChangeNotHeld(ix *index, units []unit, d int) bool {
	asked := false
	for _, u := range units {
		if searchWords[u.word] && !u.guessed {
			return false
		}
		g, ok := u.group()
		if !ok || u.guessed {
			continue
		}
		head := synonyms[g][0]
		switch {
		case head == "get" || head == "list" || u.state:
			return false
		case writeWords[head] && !genericActs[head] && !objectActs[head]:
			if holdsTerm(ix.postings[groupTerm(g)], d) {
				return false
			}
			asked = true
		}
	}
	return asked
}

// holdsTerm reports whether ps, a term's postings, lists action d.
func holdsTerm(ps []posting, d int) bool {
	return slices.ContainsFunc(ps, func(p posting) bool { return int(p.doc) == d })
}

// weak reports whether a best match covering cov of the query's weight,
// coveredWeight in absolute terms, is too little to trust.
func weak(cov, coveredWeight float64) bool {
	return cov < weakCoverage || coveredWeight < weakWeight || cov < partCoverage && coveredWeight < partWeight
}

// readAnsweredByWrite reports whether the query asks to read (获取, 查看,
// get, or a state such as banned) and says nothing of changing anything, while a is an action that
// changes something: 获取某人的QQ头像 is not set_qq_avatar.
func readAnsweredByWrite(units []unit, a *Action) bool {
	if a.ReadOnly {
		return false
	}
	read := false
	for _, u := range units {
		if searchWords[u.word] && !u.guessed {
			read = true
			continue
		}
		g, ok := u.group()
		if !ok {
			continue
		}
		if synonyms[g][0] == "get" || synonyms[g][0] == "list" || u.state {
			read = true // banned users are a list to read
		} else if writeWords[synonyms[g][0]] && !objectActs[synonyms[g][0]] {
			// A thing a change is named for (a card, a title) is no
			// request to change it: "find a member by their card".
			return false
		}
	}
	return read
}

// searchWords ask to find something, a read: "search messages" is not
// set_group_search, which makes a group findable.
var searchWords = map[string]bool{"search": true, "find": true, "lookup": true, "搜索": true, "查找": true}

// majorityCategory returns the category most of hits belong to, the
// first one on a tie.
func majorityCategory[H any](hits []H, action func(H) *Action) string {
	as := make([]*Action, len(hits))
	for i, h := range hits {
		as[i] = action(h)
	}
	best, bestN := "", 0
	for _, a := range as {
		k := 0
		for _, b := range as {
			if b.Category == a.Category {
				k++
			}
		}
		if k > bestN {
			best, bestN = a.Category, k
		}
	}
	return best
}

// index returns the search index, built on the first search.
func (c *Catalog) index() *index { return c.indexOnce() }

// first orders a pair that differs in one flag: the one holding it (x when
// xHas) first.
func first(xHas bool) int {
	if xHas {
		return -1
	}
	return 1
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// Closest returns up to n action names for a name that is not one: the
// names one edit away first (set_group_bam is set_group_ban), then the best
// matches of Search (so 禁言 and set_group_mute both lead to
// set_group_ban), then the other names Suggest finds by spelling.
func (c *Catalog) Closest(name string, n int) []string {
	out := []string{}
	if len(name) > MaxNameBytes {
		return out
	}
	add := func(s string) {
		if a, ok := c.Lookup(s); ok && len(out) < n && !slices.Contains(out, a.Name) {
			out = append(out, a.Name)
		}
	}
	near := c.suggest(name)
	for _, cd := range near {
		if cd.dist <= 1 {
			add(cd.name)
		}
	}
	for _, a := range c.Search(name, Filter{}) {
		add(a.Name)
	}
	for _, cd := range near {
		add(cd.name)
	}
	return out
}

// Suggest returns up to n action names or aliases close to name: those that
// contain it or that it contains, then the nearest by edit distance.
func (c *Catalog) Suggest(name string, n int) []string {
	out := []string{}
	for _, cd := range c.suggest(name) {
		if len(out) == n {
			break
		}
		out = append(out, cd.name)
	}
	return out
}

// A spelling is a name or alias and its distance from what was typed.
type spelling struct {
	name string
	dist int
}

// suggest returns the names and aliases close to name by spelling, nearest
// first (see Suggest).
func (c *Catalog) suggest(name string) []spelling {
	if len(name) > MaxNameBytes {
		return nil
	}
	q := strings.ToLower(name)
	type cand = spelling
	var cands []cand
	for key := range c.byName {
		k := strings.ToLower(key)
		d := editdist.Distance(q, k)
		if q != "" && (strings.Contains(k, q) || strings.Contains(q, k)) {
			d = min(d, 1+abs(utf8.RuneCountInString(k)-utf8.RuneCountInString(q))/4)
		}
		limit := max(2, utf8.RuneCountInString(q)/3)
		if d <= limit {
			cands = append(cands, cand{key, d})
		}
	}
	slices.SortFunc(cands, func(x, y cand) int {
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return strings.Compare(x.name, y.name)
	})
	return cands
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// splitCamel puts a space inside each lower-to-upper step of ASCII words
// (banChatMember, SetGroupBan): the method names of other platforms' APIs
// and of OneBot's SDKs are words too. Text without such a step comes back
// as it is.
func splitCamel(s string) string {
	at := -1
	for i := 1; i < len(s); i++ {
		if isUpper(s[i]) && (isLower(s[i-1]) || isDigit(s[i-1])) {
			at = i
			break
		}
	}
	if at < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:at])
	for i := at; i < len(s); i++ {
		if isUpper(s[i]) && (isLower(s[i-1]) || isDigit(s[i-1])) {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// rephrase rewrites the phrases of other platforms (see phrases) in a
// normalized query, whole words only.
func rephrase(q string) string {
	if !strings.ContainsFunc(q, func(r rune) bool { return r < utf8.RuneSelf && unicode.IsLetter(r) }) {
		return q
	}
	api, changed := apiWords(q)
	padded := " " + strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' {
			return ' '
		}
		return r
	}, api) + " "
	// A possessive says whose, which the words around it say too: a
	// member's nickname is a member nickname.
	for _, s := range []string{"'s ", "’s "} {
		if strings.Contains(padded, s) {
			padded = strings.ReplaceAll(padded, s, " ")
			changed = true
		}
	}
	if p, ok := dropWithout(padded); ok {
		padded, changed = p, true
	}
	if p, ok := banRemoves(padded); ok {
		padded, changed = p, true
	}
	if p, ok := phrasal(padded); ok {
		padded, changed = p, true
	}
	if ordered, ok := ofOrder(padded); ok {
		padded, changed = ordered, true
	}
	if q, ok := quantified(padded); ok {
		padded, changed = q, true
	}
	// A post that is acted on is a message (Mattermost's CreatePost,
	// DeletePost, PinPost): post after another act is no act.
	if i := strings.Index(padded, " post "); i > 0 {
		before := strings.Fields(padded[:i])
		if g, ok := synonymIndex[before[len(before)-1]]; ok && (writeWords[synonyms[g][0]] || synonyms[g][0] == "get") {
			padded, changed = padded[:i]+" message "+padded[i+len(" post "):], true
		}
	}
	// Only the phrases whose first word the query holds are tried, in
	// their order (one may make the words of a later one).
	for k := nextPhrase(padded, 0); k >= 0; k = nextPhrase(padded, k+1) {
		p := phrases[k]
		if from := " " + p[0] + " "; strings.Contains(padded, from) {
			padded = strings.ReplaceAll(padded, from, " "+p[1]+" ")
			changed = true
		}
	}
	// The groups one has joined are the groups one is in ("which groups
	// have I joined"): joined is no request to join.
	if strings.Contains(padded, " joined ") && slices.ContainsFunc(strings.Fields(padded), func(w string) bool {
		return isGroupWord(w) && stem(w) != w
	}) {
		padded, changed = strings.ReplaceAll(padded, " joined ", " "), true
	}
	if p, ok := chatWithSomeone(padded); ok {
		padded, changed = p, true
	}
	// The whole (or entire) group is the group, unless it is muted or
	// unmuted (the whole-group mute): "delete the whole channel" asks for
	// no mute.
	if (strings.Contains(padded, " whole ") || strings.Contains(padded, " entire ")) && !slices.ContainsFunc(strings.Fields(padded), func(w string) bool {
		g, ok := synonymIndex[w]
		if !ok {
			g, ok = synonymIndex[stem(w)]
		}
		if !ok {
			if b, _ := baseForm(w, func(b string) bool { _, ok := synonymIndex[b]; return ok }); b != "" {
				g, ok = synonymIndex[b]
			}
		}
		return ok && (synonyms[g][0] == "mute" || synonyms[g][0] == "unmute")
	}) {
		padded = strings.ReplaceAll(strings.ReplaceAll(padded, " whole ", " "), " entire ", " ")
		changed = true
	}
	// Sending a reaction adds it, whatever words come between (Milky's
	// send_group_message_reaction, Telegram's setMessageReaction).
	if i := strings.Index(padded, " send "); i >= 0 && reacts(padded[i:]) {
		padded, changed = padded[:i]+" add "+padded[i+len(" send "):], true
	}
	// To read is to get, unless what is read is marked so (mark as read,
	// unread): "read a message by id" is get_msg.
	if strings.Contains(padded, " read ") && !strings.Contains(padded, " mark") &&
		!strings.Contains(padded, " as read ") && !strings.Contains(padded, " unread ") {
		padded, changed = strings.ReplaceAll(padded, " read ", " get "), true
	}
	if !changed {
		return q
	}
	return strings.TrimSpace(padded)
}

// banRemoves rewrites another platform's ban as the kick it is. On
// Telegram (banChatMember), Discord (Create Guild Ban) and Matrix
// (/rooms/{roomId}/ban) a ban removes the member and keeps them from
// coming back, which QQ does with set_group_kick and reject_add_request;
// QQ's own ban (set_group_ban, 禁言) is a mute for a time. A ban is the
// other platforms' when it is from a group (not from talking), of a guild
// or a chat member, or for good, and no time is given.
func banRemoves(padded string) (string, bool) {
	if !strings.Contains(padded, " ban ") {
		return padded, false
	}
	fields := strings.Fields(padded)
	removes := false
	for i, f := range fields {
		switch {
		case durationWords[f] || isNumber(f):
			return padded, false
		case f == "from":
			k := i + 1
			for k < len(fields) && determiners[fields[k]] {
				k++
			}
			removes = removes || k < len(fields) && isGroupWord(fields[k])
		case f == "guild" || f == "rejoin" || f == "permanently" || f == "forever":
			removes = true
		case f == "back" && i > 0 && fields[i-1] == "come",
			f == "member" && i > 0 && fields[i-1] == "chat":
			removes = true
		}
	}
	if !removes {
		return padded, false
	}
	return strings.ReplaceAll(padded, " ban ", " kick "), true
}

// durationWords say for how long: a ban given a time is QQ's mute.
var durationWords = map[string]bool{
	"minute": true, "minutes": true, "min": true, "mins": true, "hour": true, "hours": true,
	"day": true, "days": true, "week": true, "weeks": true, "temporarily": true, "until": true,
}

// dropWithout removes from a padded query what it asks to do without or
// leaves out: "pin without notification" asks for no notice (Telegram's
// disable_notification), and "mute everyone except admins" for no admin,
// whom QQ's whole-group mute leaves speaking anyway. It reports whether
// anything was removed.
func dropWithout(padded string) (string, bool) {
	changed := false
	for _, marker := range []string{" without ", " except for ", " except "} {
		i := strings.Index(padded, marker)
		if i <= 0 {
			continue
		}
		rest := strings.Fields(padded[i+len(marker):])
		if len(rest) > 0 && (determiners[rest[0]] || rest[0] == "any") {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			rest = rest[1:]
		}
		padded, changed = padded[:i]+" "+strings.Join(rest, " ")+" ", true
	}
	return padded, changed
}

// quantified rewrites the quantifiers all and every of a padded query: to
// mute (or unmute) all is the whole group's mute, whatever the word for
// muting (ban all, silence everyone); all before things in the plural
// (within two words: "all available chats") says what the plural says,
// a list of them, and is dropped, so that it does not find the names that
// hold it (get_group_at_all_remain for "get all groups"). It reports
// whether anything changed.
func quantified(padded string) (string, bool) {
	if !strings.Contains(padded, " all ") && !strings.Contains(padded, " every") {
		return padded, false
	}
	fields := strings.Fields(padded)
	out := make([]string, 0, len(fields))
	changed := false
	for i, f := range fields {
		if f != "all" && f != "everyone" && f != "everybody" {
			out = append(out, f)
			continue
		}
		// Whom all covers must be everyone: "mute all new members" is no
		// whole-group mute.
		everyone := i+1 == len(fields) || slices.Contains([]string{"members", "users", "people", "participants", "everyone"}, fields[i+1]) ||
			isGroupWord(fields[i+1]) ||
			// everybody in the group
			i+2 < len(fields) && slices.Contains([]string{"in", "on", "across", "of"}, fields[i+1]) && isGroupWord(fields[i+2])
		if i > 0 && everyone {
			if g, ok := synonymIndex[fields[i-1]]; ok && (synonyms[g][0] == "mute" || synonyms[g][0] == "unmute") {
				out[len(out)-1] = synonyms[g][0]
				out = append(out, "everyone")
				changed = changed || f != "everyone" || fields[i-1] != synonyms[g][0]
				continue
			}
		}
		// Everyone shown or listed is the members: "show me everyone in
		// the group" asks for the member list, not the whole group's mute.
		if f != "all" && i > 0 {
			k := i - 1
			if k > 0 && (fields[k] == "me" || fields[k] == "us") {
				k--
			}
			if g, ok := synonymIndex[fields[k]]; ok && (synonyms[g][0] == "get" || synonyms[g][0] == "list") {
				out = append(out, "members")
				changed = true
				continue
			}
		}
		// and so is a list of everyone, which ofOrder turned round.
		if f != "all" && i+1 < len(fields) {
			if g, ok := synonymIndex[fields[i+1]]; ok && synonyms[g][0] == "list" {
				out = append(out, "members")
				changed = true
				continue
			}
		}
		if f == "all" && slices.ContainsFunc(fields[i+1:min(i+3, len(fields))], func(w string) bool { return isWord(w) && stem(w) != w }) {
			changed = true
			continue
		}
		out = append(out, f)
	}
	return " " + strings.Join(out, " ") + " ", changed
}

// nextPhrase returns the index of the first phrase from index from on
// whose first word is a word of padded, or -1.
func nextPhrase(padded string, from int) int {
	best := -1
	for rest := padded; rest != ""; {
		var w string
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			w, rest = rest[:i], rest[i+1:]
		} else {
			w, rest = rest, ""
		}
		for _, k := range phraseStarts[w] {
			if k >= from {
				if best < 0 || k < best {
					best = k
				}
				break
			}
		}
	}
	return best
}

// phraseStarts maps the first word of each phrase to the indexes of the
// phrases it starts, in order.
var phraseStarts = func() map[string][]int {
	m := map[string][]int{}
	for k, p := range phrases {
		first, _, _ := strings.Cut(p[0], " ")
		m[first] = append(m[first], k)
	}
	return m
}()

// chatWithSomeone rewrites a chat, conversation or history with someone
// ("the chat with Bob", "history with my friend") as a private one: a
// group's chat is with no one in particular. Someone is a pronoun, a
// friend, or a word the synonyms do not hold (a name); the first such
// chat is rewritten. It reports whether anything changed.
func chatWithSomeone(padded string) (string, bool) {
	for _, head := range []string{"chat history", "chat", "conversation", "history"} {
		from := " " + head + " with "
		i := strings.Index(padded, from)
		if i < 0 {
			continue
		}
		rest := strings.Fields(padded[i+len(from):])
		if len(rest) > 0 && determiners[rest[0]] {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			continue
		}
		w := rest[0]
		_, known := synonymIndex[w]
		if _, ok := synonymIndex[stem(w)]; ok {
			known = true
		}
		if w == "him" || w == "her" || w == "them" || stem(w) == "friend" || !known && !isNumber(w) {
			with := " private with "
			if strings.HasSuffix(head, "history") {
				with = " private history with "
			}
			return padded[:i] + with + padded[i+len(from):], true
		}
	}
	return padded, false
}

// isNumber reports whether w is made of digits: a duration's count, or a
// group or QQ number, which says nothing of who.
func isNumber(w string) bool {
	return w != "" && strings.Trim(w, "0123456789") == ""
}

// isGroupWord reports whether w is a word for a group, in the singular or
// the plural.
func isGroupWord(w string) bool {
	g, ok := synonymIndex[stem(w)]
	return ok && synonyms[g][0] == "group"
}

// reacts reports whether a padded query names a reaction as such (an
// emoji alone may be sent in a message).
func reacts(padded string) bool {
	return slices.ContainsFunc(strings.Fields(padded), func(w string) bool { return stem(w) == "reaction" })
}

// ofOrder rewrites "the title of a group" as "group title", the order the
// phrases (and other platforms' method names) use, and drops articles
// ("send a reaction" is the phrase "send reaction"); padded is a query
// with a space at each end. It reports whether anything changed.
func ofOrder(padded string) (string, bool) {
	if !strings.Contains(padded, " of ") && !strings.Contains(padded, " a ") &&
		!strings.Contains(padded, " an ") && !strings.Contains(padded, " the ") {
		return padded, false
	}
	fields := strings.Fields(padded)
	out := make([]string, 0, len(fields))
	changed := false
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "a" || f == "an" || f == "the":
			changed = true
			continue
		case f == "of" && len(out) > 0 && isWord(out[len(out)-1]):
			j := i + 1
			for j < len(fields) && (fields[j] == "a" || fields[j] == "an" || fields[j] == "the") {
				j++
			}
			if j < len(fields) && isWord(fields[j]) {
				last := len(out) - 1
				out = append(out, out[last])
				out[last] = fields[j]
				i = j
				changed = true
				continue
			}
		}
		out = append(out, f)
	}
	return " " + strings.Join(out, " ") + " ", changed
}

// isWord reports whether s is an English word: ASCII letters only.
func isWord(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !isLower(byte(r)) || r >= utf8.RuneSelf })
}

// impliedAsked reports whether a query names an object, whose synonym
// group's first word is head, by an act that is done to it (see impliedBy).
func impliedAsked(units []unit, head string) bool {
	return slices.ContainsFunc(units, func(u unit) bool {
		g, ok := u.group()
		return ok && !u.guessed && slices.Contains(impliedBy[head], synonyms[g][0])
	})
}

// unknownNoun reports whether a query, lower-cased, names a thing no
// action knows: a word after a determiner (the sidebar, a webhook) that
// no action's text holds, nor the synonym table, nor the filler, and that
// heads its phrase (the query ends or a preposition follows). A change is
// no confident answer to a request about such a thing: what it asks to
// change is not something QQ's actions change. Names of people take no
// determiner, and a word before another ("the spam message") is the
// next word's modifier, as is a possessive (the bot's name), so none
// counts.
func unknownNoun(ix *index, raw string) bool {
	// The words of raw, read in turn without cutting it up: letters and
	// apostrophes.
	rest := raw
	next := func() string {
		isIn := func(r rune) bool { return isLower(byte(r)) && r < utf8.RuneSelf || r == '\'' }
		i := strings.IndexFunc(rest, isIn)
		if i < 0 {
			rest = ""
			return ""
		}
		rest = rest[i:]
		j := strings.IndexFunc(rest, func(r rune) bool { return !isIn(r) })
		if j < 0 {
			j = len(rest)
		}
		w := rest[:j]
		rest = rest[j:]
		return w
	}
	// A phrase opens at a determiner and its head is its last word, the
	// one before the query's end or a preposition: the others modify it
	// (the chat wallpaper is a wallpaper).
	open := false
	for w := next(); w != ""; {
		after := next()
		switch {
		case determiners[w]:
			open = true
		case open && (after == "" || prepositions[after]):
			if len(w) >= 3 && !englishFiller[w] && isWord(w) && unknownWord(ix, w) {
				return true
			}
			open = false
		case open && (englishFiller[w] || prepositions[w] || phraseClosers[w]):
			// A name or a clause follows (the folder called old stuff).
			open = false
		}
		w = after
	}
	return false
}

// phraseClosers end a noun phrase before its last word: what follows
// names it or says more of it.
var phraseClosers = map[string]bool{"called": true, "named": true, "titled": true, "labeled": true, "labelled": true,
	"which": true, "who": true, "whose": true, "where": true, "when": true, "that": true, "and": true, "or": true, "but": true}

// standingRule reports whether a query, lower-cased, asks for a rule the
// bot should keep (automatically, whenever, every night, anyone who,
// 自动, 每天, 定时) rather than for one act now. Such automation is what
// bot frameworks' plugins do (a keyword filter, a scheduled mute); no
// action of SnowLuma's keeps a rule, so an action that changes something
// is no confident answer to one.
func standingRule(raw string) bool {
	for _, s := range standingWords {
		i := strings.Index(raw, s)
		if i < 0 {
			continue
		}
		// Whoever is in a state now ("everyone who is muted") is a
		// description of whom to read, not a rule: a rule's clause acts
		// ("anyone who posts a link").
		if strings.HasSuffix(s, " who") {
			next, _, _ := strings.Cut(strings.TrimSpace(raw[i+len(s):]), " ")
			if stateVerbs[next] {
				continue
			}
		}
		return true
	}
	return false
}

// stateVerbs are the English verbs after which a relative clause says what
// someone is or has, not what they do.
var stateVerbs = map[string]bool{"is": true, "are": true, "was": true, "were": true, "has": true, "have": true, "had": true, "currently": true}

// standingWords mark a standing rule: English as words in a phrase
// (padded with spaces in the query), Chinese as they are written.
var standingWords = []string{
	"automatically", "auto-", "whenever", "anyone who", "anybody who", "everyone who", "everybody who",
	"every time", "each time", "every day", "every night", "every morning", "every evening", "every week",
	"every hour", "every minute", "each day", "each night", "each morning", "each week",
	"自动", "每天", "每晚", "每周", "每小时", "每隔", "定时", "每当", "凡是",
}

// unknownWord reports whether an English word is in neither the synonym
// table nor any action's text.
func unknownWord(ix *index, w string) bool {
	if _, syn := synonymIndex[w]; syn {
		return false
	}
	if _, syn := synonymIndex[stem(w)]; syn {
		return false
	}
	return len(ix.postings[stem(w)]) == 0 && len(ix.postings[w]) == 0
}

// determiners are the English words before a noun that say which one.
var determiners = map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "my": true, "our": true, "your": true, "his": true, "her": true, "their": true, "its": true}

// prepositions are the English words that may follow a noun phrase's head.
var prepositions = map[string]bool{"to": true, "in": true, "on": true, "for": true, "from": true, "with": true, "at": true, "of": true, "into": true, "by": true, "about": true}

// saysActOf reports whether a query asks, in words it holds, for a
// particular change that action d performs though its name does not say
// it: a switch of its own (delete_friend's block for 拉黑) or the act of
// the first clause of its summary.
func saysActOf(ix *index, units []unit, d int) bool {
	return slices.ContainsFunc(units, func(u unit) bool {
		g, ok := u.group()
		if !ok || u.guessed || u.state {
			return false
		}
		head := synonyms[g][0]
		return writeWords[head] && !genericActs[head] && !objectActs[head] && ix.acted[d][groupTerm(g)]
	})
}
