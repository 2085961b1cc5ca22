package catalog

import (
	"slices"
	"strings"
)

// An action that changes something may answer a query with confidence only
// when the query names what the action does and what it does it to: its
// act (ban, kick, recall, upload; set, send and add are any change) and its
// object (the name of set_group_name, the request of set_group_add_request,
// the file of upload_group_file). Both are read from the action's name, so
// the rule holds for every action, present and future, without a list per
// action; the things other platforms act on that QQ has no action for (a
// chat's description, slow mode, notifications, threads, roles) are the
// one table (foreignWords), since no name here holds them.

// A deed is what a changing action's name says it does: its acts and its
// objects, as index terms, with the synonym group's first word of each
// object (heads) for impliedBy.
type deed struct {
	acts, objects, heads []string
	actHeads             []string // the first word of each act's group
	// generic are the acts of the name that name no particular change
	// (set, send, add; see genericActs), by their synonym group's first
	// word.
	generic []string
}

// scopeWords are the words of action names that say where an action acts
// (in a group, on the account), not on what: a query need not name them.
var scopeWords = map[string]bool{
	"group": true, "qq": true, "self": true, "private": true, "qun": true,
	"to": true, "as": true, "of": true, "by": true, "all": true, "single": true,
	"front": true, "nc": true, "ex": true, "do": true, "get": true, "can": true,
	// bot_exit ends the bot's own process: the bot is who, as qq and
	// self are.
	"bot": true,
}

// objectActs are the write words of action names that are the object, not
// the act, of the action that holds them: the title of
// set_group_special_title, the forward of send_forward_msg.
var objectActs = map[string]bool{
	"title": true, "card": true, "essence": true, "remark": true, "forward": true,
	"record": true, "whole": true, "like": true, "poke": true, "todo": true,
}

// actNamedBy maps an act to the words of another act that name it: sending
// a file is uploading it (the compound 发文件 is 上传 文件).
var actNamedBy = map[string][]string{"upload": {"send"}}

// impliedBy maps an object to the acts that name it by their meaning:
// sending, recalling or forwarding is done to a message, kicking and
// muting to a member, approving to a request, uploading and
// downloading to a file, blocking to a friend (拉黑 is delete_friend's
// block). A query holding the act
// names the object.
var impliedBy = map[string][]string{
	"message": {"send", "recall", "forward", "read"},
	"member":  {"kick", "mute", "unmute"},
	"request": {"approve"},
	"file":    {"upload", "download"},
	"friend":  {"block"},
}

// deedOf reads the acts and objects of an action's name.
func deedOf(name string) deed {
	var d deed
	msg := false
	addObject := func(term, head string) {
		if !slices.Contains(d.objects, term) {
			d.objects, d.heads = append(d.objects, term), append(d.heads, head)
		}
	}
	for _, w := range words(strings.ToLower(name)) {
		if scopeWords[w] {
			continue
		}
		term, head := stem(w), ""
		if g, ok := synonymIndex[w]; ok {
			term, head = groupTerm(g), synonyms[g][0]
		} else if g, ok := synonymIndex[stem(w)]; ok {
			term, head = groupTerm(g), synonyms[g][0]
		}
		switch {
		case head == "message":
			msg = true
		case writeWords[head] && !objectActs[head]:
			if genericActs[head] {
				d.generic = append(d.generic, head)
			} else if !slices.Contains(d.acts, term) {
				d.acts, d.actHeads = append(d.acts, term), append(d.actHeads, head)
			}
		default:
			addObject(term, head)
		}
	}
	// A whole name in the synonym table (delete_msg is a recall) is an act.
	if g, ok := synonymIndex[strings.ToLower(name)]; ok && writeWords[synonyms[g][0]] && !slices.Contains(d.acts, groupTerm(g)) {
		d.acts, d.actHeads = append(d.acts, groupTerm(g)), append(d.actHeads, synonyms[g][0])
	}
	if msg && len(d.objects) == 0 {
		addObject(groupTerm(synonymIndex["message"]), "message")
	}
	return d
}

// foreignWords name what other chat platforms' bots act on, or do, that
// QQ offers no action for (testdata/agent-vocabulary.tsv lists each with
// its source): a query naming one is not answered with confidence by an
// action whose name and summary do not hold it.
var foreignWords = []string{
	// A chat's description, topic or purpose (Telegram setChatDescription;
	// Slack conversations.setTopic, setPurpose; Discord's channel topic).
	"description", "topic", "purpose",
	// Slow mode (Discord's rate_limit_per_user, Telegram's slow_mode_delay).
	"slowmode",
	// Notification settings (Discord's default_message_notifications).
	"notification",
	// Threads and forum topics (Discord threads, Slack conversations.replies,
	// Telegram createForumTopic and message_thread_id).
	"thread", "forum",
	// Roles and permission overwrites (Discord addRoleToMember).
	"role",
	// Polls (Telegram sendPoll, stopPoll), red packets (go-cqhttp, whose
	// maintainers will not send or claim them: Mrs4s/go-cqhttp#1579; none of
	// SnowLuma's actions does) and webhooks.
	"poll", "vote", "survey", "quiz", "redpacket", "webhook",
	// Inviting someone (Slack conversations.invite; Telegram's invite
	// links), archiving a conversation and scheduling a message (Slack
	// conversations.archive, chat.scheduleMessage), reminders (Slack
	// reminders.add). Editing a sent message (Telegram editMessageText,
	// Slack chat.update) is a change (set) that no action sending messages
	// makes: the generic acts must agree (see sameGeneric).
	"invite", "archive", "schedule", "scheduled", "reminder",
	// Telegram's sticker sets (setChatStickerSet, addStickerToSet,
	// createNewStickerSet), the edits of a sent message (editMessageText,
	// editMessageMedia; Slack's chat.update, "Update Message"), and the
	// answers to a callback or an inline query (answerCallbackQuery,
	// answerInlineQuery), https://core.telegram.org/bots/api.
	"stickerset", "editmessage", "callbackquery", "inlinequery",
	// Payments (Telegram's sendInvoice; money moves in QQ no more than red
	// packets do).
	"payment", "money", "invoice",
	// Calls and live streams (Discord's voice and stage channels, Slack
	// huddles; QQ's 语音通话 and 直播): no action starts or joins one.
	"voicecall", "livestream",
	// The rest of the platforms' method families QQ has no action for:
	// Slack's bookmarks.*, dnd.* (snooze), workflows.*, views.open (a
	// modal), chat.unfurl; Telegram's sendVenue, sendGame,
	// getUserChatBoosts, setChatMenuButton; Discord's audit log, auto
	// moderation and stage instances; LINE Messaging API's narrowcast and
	// multicast; Lark's calendar and video meetings; Zulip's drafts; a
	// shared screen. (Dice and locations are message segments QQ sends,
	// so they are not here.)
	"bookmark", "snooze", "dnd", "workflow", "modal", "unfurl", "venue", "game", "boost",
	"menu", "audit", "automod", "stage", "narrowcast", "multicast", "calendar", "meeting",
	"draft", "screen",
	// A rule against one kind of content (photos, links, stickers) while
	// members still talk (see contentKinds): QQ's mutes silence a member
	// or the whole group.
	"contentrule",
}

// namesDeed reports whether a query, whose firmly named terms (not spelling
// guesses) are firm and whose units are units, names action d's act and
// object. An action that only reads is always named.
func namesDeed(ix *index, d int, units []unit, firm map[string]bool) bool {
	dd := ix.deeds[d]
	for _, t := range foreignTerms {
		if firm[t] && !ix.described[d][t] {
			return false
		}
	}
	// The act: one of the action's own, or a change the query asks for in
	// words the action's name or the first clause of its summary holds
	// (remove for a kick, change for a rename), or none asked at all (a
	// query of nouns).
	if len(dd.acts)+len(dd.generic) > 0 && !slices.ContainsFunc(dd.acts, func(t string) bool { return firm[t] }) {
		asked, held := false, false
		for _, u := range units {
			g, ok := u.group()
			if !ok || u.guessed || u.state || !writeWords[synonyms[g][0]] || objectActs[synonyms[g][0]] {
				continue
			}
			asked = true
			if slices.ContainsFunc(dd.actHeads, func(a string) bool { return slices.Contains(actNamedBy[a], synonyms[g][0]) }) {
				held = true
			}
			// A generic act (set, send) names the change of an action
			// whose name says no more, or a state it switches on a thing
			// it names (开全体禁言 sets the whole group's mute); "set" is
			// no kick, and "set the group" no mute.
			if head := synonyms[g][0]; genericActs[head] &&
				(len(dd.acts) == 0 || len(dd.objects) > 0 && !slices.ContainsFunc(dd.actHeads, func(a string) bool { return !switchActs[a] })) &&
				slices.ContainsFunc(dd.generic, func(h string) bool { return sameGeneric(h, head) }) ||
				!genericActs[head] && ix.acted[d][groupTerm(g)] {
				held = true
			}
		}
		if asked && !held {
			return false
		}
	}
	// An action that destroys something needs its act said: a query of
	// nouns ("bots info") does not ask to shut anything down.
	if ix.destructive[d] && !slices.ContainsFunc(dd.acts, func(t string) bool { return firm[t] }) &&
		!slices.ContainsFunc(units, func(u unit) bool {
			g, ok := u.group()
			return ok && !u.guessed && !u.state && writeWords[synonyms[g][0]] && !objectActs[synonyms[g][0]]
		}) {
		return false
	}
	// The objects: one of them named or implied by an act the query names
	// (a folder of the group's files is named by "folder"), and a request
	// always: answering someone's request to join or befriend is not adding
	// a member or a friend.
	nameOf := func(k int) bool {
		return firm[dd.objects[k]] || slices.ContainsFunc(units, func(u unit) bool {
			g, ok := u.group()
			return ok && !u.guessed && slices.Contains(impliedBy[dd.heads[k]], synonyms[g][0])
		})
	}
	some := len(dd.objects) == 0
	for k := range dd.objects {
		switch {
		case nameOf(k):
			some = true
		case dd.heads[k] == "request":
			return false
		}
	}
	return some
}

// firmTerms are the terms a query names in words it holds, not through a
// spelling guess (slow is not show) nor as a state (banned is no ban),
// and the foreign words among the words as typed.
func firmTerms(units []unit, query string) map[string]bool {
	firm := map[string]bool{}
	for _, u := range units {
		if u.guessed {
			continue
		}
		if g, ok := u.group(); ok && u.state && writeWords[synonyms[g][0]] && !objectActs[synonyms[g][0]] {
			continue // banned names no ban
		}
		for _, t := range u.terms {
			if !t.across && !t.hint {
				firm[t.term] = true
			}
		}
	}
	for _, u := range units {
		if slices.Contains(foreignTerms, u.word) {
			firm[u.word] = true // 红包, cut as a compound
		}
	}
	for _, w := range words(query) {
		if t := wordTerm(w); slices.Contains(foreignTerms, t) {
			firm[t] = true
		}
	}
	return firm
}

// wordTerm is the index term of an English word: its synonym group's, or
// its singular.
func wordTerm(w string) string {
	if g, ok := synonymIndex[w]; ok {
		return groupTerm(g)
	}
	if g, ok := synonymIndex[stem(w)]; ok {
		return groupTerm(g)
	}
	return stem(w)
}

// foreignTerms are the index terms of foreignWords.
var foreignTerms = func() []string {
	out := make([]string, len(foreignWords))
	for i, w := range foreignWords {
		out[i] = wordTerm(w)
	}
	return out
}()

// switchActs are the acts that are a state set switches on or off: a
// mute. Setting names them; it names no kick, deletion or upload.
var switchActs = map[string]bool{"mute": true, "unmute": true}

// sameGeneric reports whether two generic acts are one: setting and adding
// are both a change (add a reaction is set_msg_emoji_like), sending is not.
func sameGeneric(a, b string) bool {
	return a == b || a != "send" && b != "send"
}

// saysAct reports whether a query asks for a particular change in words
// it holds: an act that is neither generic (set, send, add), nor the
// object of the action holding it (pin is the essence), nor a state
// (banned).
func saysAct(units []unit) bool {
	return slices.ContainsFunc(units, func(u unit) bool {
		g, ok := u.group()
		if !ok || u.guessed || u.state {
			return false
		}
		head := synonyms[g][0]
		return writeWords[head] && !genericActs[head] && !objectActs[head]
	})
}
