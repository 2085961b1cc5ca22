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
	// Stopping or keeping someone from talking mutes them; from sending a
	// kind of content, it is a rule QQ has none of (see contentKinds).
	{forms("stop", "stopped", "stopped", "stopping"), fromParticles, "mute", true},
	{forms("keep", "kept", "kept", "keeping"), fromParticles, "mute", true},
	{forms("prevent"), fromParticles, "mute", true},
}

// fromParticles are the speaking that stopping someone from mutes.
var fromParticles = []string{"talking", "speaking", "chatting", "posting", "sending"}

// contentKinds are the kinds of content that other platforms let a chat
// forbid while its members still talk (Telegram's ChatPermissions
// can_send_photos, can_send_videos, can_send_audios, can_send_documents,
// can_add_web_page_previews; Discord's ATTACH_FILES and EMBED_LINKS
// permissions). QQ mutes a member or the whole group, never one kind of
// content, so stopping someone from sending one of them is the foreign
// contentrule (foreignWords), not a mute.
var contentKinds = map[string]bool{
	"photo": true, "photos": true, "picture": true, "pictures": true, "image": true, "images": true,
	"video": true, "videos": true, "link": true, "links": true, "sticker": true, "stickers": true,
	"file": true, "files": true, "gif": true, "gifs": true, "voice": true, "audio": true,
	"media": true, "attachment": true, "attachments": true, "document": true, "documents": true,
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
			if pv.from && j+1 < len(fields) && contentKinds[fields[j+1]] {
				fields[i] = "contentrule"
			}
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
