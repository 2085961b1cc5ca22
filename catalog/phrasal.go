package catalog

import (
	"slices"
	"strings"
)

// A phrasalVerb is an English verb and a particle that together mean one
// of the acts QQ's actions perform, whether the particle follows the verb
// ("kick out the spammer") or its object ("kick the spammer out"): the act
// replaces the verb, and the particle, which alone means something else
// (out, back, up, in), is dropped; letting someone talk again, an
// idiom, not a phrasal verb, lifts a mute, making someone say sends, and stopping or keeping them from
// talking mutes them. The meanings are the phrasal verbs'
// entries in the Cambridge English Dictionary's phrasal-verb pages and
// Wiktionary's "English phrasal verbs" category, read for the acts of
// synonyms: take back and pull back withdraw what was said (a recall),
// kick, throw, boot, chuck and turf out expel (a kick), shut up silences
// (a mute), let in admits (approving a request to join), turn and switch
// on or off enable or disable, turn down refuses (a rejection, answered as
// an approval is), put up posts a notice (send), wipe out deletes, hand
// over and give grant, take away removes, pull up and look up find (get), take down and pull down delete, find
// out and figure out get,
// sign out leaves, boot from expels as boot out does.
type phrasalVerb struct {
	verbs     []string // the verb's forms
	particles []string
	act       string // the words that replace the verb
	// from marks a verb whose particle must follow from and someone:
	// "stop everyone from talking" mutes, "stop posting" does not.
	from bool
}

var phrasalVerbs = []phrasalVerb{
	{forms("take", "took", "taken", "taking"), []string{"back"}, "recall", false},
	{forms("pull"), []string{"back"}, "recall", false},
	{forms("kick"), []string{"out"}, "kick", false},
	{forms("throw", "threw", "thrown"), []string{"out"}, "kick", false},
	{forms("boot"), []string{"out", "from"}, "kick", false},
	{forms("chuck"), []string{"out"}, "kick", false},
	{forms("turf"), []string{"out"}, "kick", false},
	{forms("shut", "shut", "shut", "shutting"), []string{"up"}, "mute", false},
	{forms("let", "let", "let", "letting"), []string{"in"}, "approve join request", false},
	// Letting someone talk or speak again lifts a mute, and stopping or keeping them from
	// talking mutes them.
	{forms("let", "let", "let", "letting"), []string{"talk", "speak", "chat"}, "unmute", false},
	{forms("turn"), []string{"on"}, "enable", false},
	{forms("switch"), []string{"on"}, "enable", false},
	{forms("turn"), []string{"off"}, "disable", false},
	{forms("switch"), []string{"off"}, "disable", false},
	{forms("shut", "shut", "shut", "shutting"), []string{"off"}, "disable", false},
	{forms("shut", "shut", "shut", "shutting"), []string{"down"}, "shutdown", false},
	{forms("turn"), []string{"down"}, "reject", false},
	{forms("put", "put", "put", "putting"), []string{"up"}, "post", false},
	{forms("wipe"), []string{"out", "off", "away"}, "delete", false},
	{forms("hand"), []string{"over"}, "grant", false},
	{forms("take", "took", "taken", "taking"), []string{"away", "off"}, "remove", false},
	{forms("pull"), []string{"up"}, "get", false},
	{forms("take", "took", "taken", "taking"), []string{"down"}, "delete", false},
	{forms("pull"), []string{"down"}, "delete", false},
	{forms("find", "found", "found", "finding"), []string{"out"}, "get", false},
	{forms("figure"), []string{"out"}, "get", false},
	// Making or having someone say something is sending a message.
	{forms("make", "made", "made", "making"), []string{"say"}, "send message", false},
	{forms("have", "had", "had", "having"), []string{"say"}, "send message", false},
	{forms("look"), []string{"up"}, "get", false},
	{forms("sign", "signed", "signed", "signing"), []string{"out"}, "leave", false},
	// Stopping or keeping someone from talking mutes them.
	{forms("stop", "stopped", "stopped", "stopping"), []string{"talking", "speaking", "chatting", "posting"}, "mute", true},
	{forms("keep", "kept", "kept", "keeping"), []string{"talking", "speaking", "chatting", "posting"}, "mute", true},
	{forms("prevent"), []string{"talking", "speaking", "chatting", "posting"}, "mute", true},
}

// phrasalReach is how many words may stand between a phrasal verb and its
// particle: its object ("kick that spammer out", "let the new member in").
const phrasalReach = 3

// forms returns a regular English verb's forms (base, -s, -ed, -ing), or
// the base and the irregular forms given.
func forms(base string, irregular ...string) []string {
	if len(irregular) > 0 {
		return append([]string{base, base + "s"}, irregular...)
	}
	ed, ing := base+"ed", base+"ing"
	if strings.HasSuffix(base, "e") {
		ed, ing = base+"d", base[:len(base)-1]+"ing"
	}
	return []string{base, base + "s", ed, ing}
}

// phrasal rewrites the phrasal verbs of a padded query (see phrasalVerbs)
// as their acts. It reports whether anything changed.
func phrasal(padded string) (string, bool) {
	changed := false
	// To get rid of something is to remove it; of would otherwise be read
	// as the of of "the name of the group".
	for _, rid := range []string{" get rid of ", " got rid of ", " getting rid of "} {
		if strings.Contains(padded, rid) {
			padded, changed = strings.ReplaceAll(padded, rid, " remove "), true
		}
	}
	if !changed && !holdsPhrasalVerb(padded) {
		return padded, false
	}
	fields := strings.Fields(padded)
	for i := 0; i < len(fields); i++ {
		for _, k := range phrasalByVerb[fields[i]] {
			pv := phrasalVerbs[k]
			j := i + 1
			for ; j < len(fields) && j <= i+1+phrasalReach; j++ {
				if slices.Contains(pv.particles, fields[j]) {
					break
				}
			}
			if j >= len(fields) || j > i+1+phrasalReach || pv.from && (j < i+3 || fields[j-1] != "from") {
				continue
			}
			fields[i] = pv.act
			fields = append(fields[:j], fields[j+1:]...)
			changed = true
			break
		}
	}
	if !changed {
		return padded, false
	}
	return " " + strings.Join(fields, " ") + " ", true
}

// phrasalByVerb maps each form of a phrasal verb to its entries in
// phrasalVerbs, in order.
var phrasalByVerb = func() map[string][]int {
	m := map[string][]int{}
	for k, pv := range phrasalVerbs {
		for _, v := range pv.verbs {
			if !slices.Contains(m[v], k) {
				m[v] = append(m[v], k)
			}
		}
	}
	return m
}()

// holdsPhrasalVerb reports whether a padded query holds a phrasal verb's
// form, without cutting it into words.
func holdsPhrasalVerb(padded string) bool {
	for rest := padded; rest != ""; {
		var w string
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			w, rest = rest[:i], rest[i+1:]
		} else {
			w, rest = rest, ""
		}
		if _, ok := phrasalByVerb[w]; ok {
			return true
		}
	}
	return false
}
