package catalog

import (
	"strings"
	"testing"
)

// TestProbeQueries measures the search on the fifth round's probes
// (testdata/probe-queries.tsv): English requests in phrasal verbs,
// other platforms' method names split at dots and camel case, colloquial
// Chinese and requests no action serves, written for the round's general
// rules, not taken from another set. It logs every miss (go test -v -run
// Probe) and holds the figures measured when the rules were written: the
// probes check rules, so a rule that stops serving them fails here.
func TestProbeQueries(t *testing.T) {
	c := mustLoad(t)
	qs := loadQueries(t, c, "testdata/probe-queries.tsv")
	if len(qs) < 60 {
		t.Fatalf("%d probes, want at least 60", len(qs))
	}
	byKind := map[string][]operatorQuery{}
	for _, q := range qs {
		kind, _, _ := strings.Cut(q.source, " ")
		byKind[kind] = append(byKind[kind], q)
	}
	for _, kind := range []string{"intent", "platform", "zh", "absent", "intent2", "platform2", "zh2", "absent2", "platform3", "intent4", "onebot4", "platform4", "zh4", "absent4"} {
		f := measure(c, byKind[kind])
		t.Logf("%s: %d answerable: top-1 %.1f%% top-3 %.1f%% weak %.1f%%; %d unanswerable: %d weak or empty, %d answered by an unflagged write",
			kind, f.answerable, 100*f.top1, 100*f.top3, 100*f.falseWeak, f.unanswerable, f.weakNone, len(f.unflaggedWrites))
		for _, m := range f.misses {
			t.Logf("%s: %s", kind, m)
		}
		for _, u := range f.unflaggedWrites {
			t.Logf("%s: unanswerable %s, unflagged, changes something", kind, u)
		}
	}
	all := measure(c, qs)
	t.Logf("all: %d answerable: top-1 %.1f%% top-3 %.1f%% weak %.1f%%; %d unanswerable: %d weak or empty, %d answered by an unflagged write",
		all.answerable, 100*all.top1, 100*all.top3, 100*all.falseWeak, all.unanswerable, all.weakNone, len(all.unflaggedWrites))
	// The figures measured when the round's rules were done (before
	// them: top-1 60.4%, top-3 73.6%, weak 22.6% and 1 unflagged write,
	// on the first batch alone).
	if all.top1 < 0.89 || all.top3 < 0.95 || all.falseWeak > 0.05 || len(all.unflaggedWrites) > 0 {
		t.Errorf("probes: top-1 %.1f%% top-3 %.1f%% weak %.1f%%, %d unflagged writes; want at least 89%%, 95%%, at most 5%% and none",
			100*all.top1, 100*all.top3, 100*all.falseWeak, len(all.unflaggedWrites))
	}
}

// TestJoinSeparable checks the two colloquial spreads of a Chinese verb
// joinSeparable undoes, and that it joins only dictionary words.
func TestJoinSeparable(t *testing.T) {
	for in, want := range map[string]string{
		"给他禁个言":   "给他禁言",
		"帮我点个赞":   "帮我点赞",
		"帮我退了这个群": "帮我退群",
		"看看群里都有谁": "看群里都有谁",
		"查一查群成员":  "查群成员",
		"戳一戳他":    "戳一戳他",  // a word of its own
		"发了个消息":   "发了个消息", // 发消 is no word
		"群群":      "群群",    // 群 is no verb said twice to soften it
		"禁":       "禁",
	} {
		if got := joinSeparable(in); got != want {
			t.Errorf("joinSeparable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnknownNoun checks which queries name a thing no action knows.
func TestUnknownNoun(t *testing.T) {
	ix := mustLoad(t).index()
	for q, want := range map[string]bool{
		"pin the channel to the sidebar":     true,
		"set up a webhook for the channel":   true,
		"delete that spam message":           false, // spam modifies message
		"change the bot's display name":      false,
		"make bob an admin":                  false, // admin is known
		"kick alice":                         false, // a name takes no determiner
		"删除这条消息":                             false,
		"change the group backdrop":          true,  // the head is the last word
		"delete the folder called old stuff": false, // a name follows called
	} {
		if got := unknownNoun(ix, q); got != want {
			t.Errorf("unknownNoun(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestStandingRule checks that requests for a rule the bot should keep
// are told from requests for one act now.
func TestStandingRule(t *testing.T) {
	for q, want := range map[string]bool{
		"auto-approve every friend request": true,
		"kick anybody who posts a link":     true,
		"whenever someone joins, say hello": true,
		"每天早上八点定时发一条消息":                     true,
		"mute bob for ten minutes":          false,
		"do the daily check-in":             false,
		"send the notice to every group":    false,
		"把这条消息设为精华":                         false,
		"list everyone who is muted":        false,
		"everyone who joins gets a welcome": true,
	} {
		if got := standingRule(q); got != want {
			t.Errorf("standingRule(%q) = %v, want %v", q, got, want)
		}
	}
	// A change is no confident answer to one.
	m := mustLoad(t).Match("automatically mute whoever sends an invite link", Filter{}, false)
	if len(m.Actions) > 0 && !m.Actions[0].ReadOnly && !m.Weak {
		t.Errorf("a standing rule got a confident change first: %s", m.Actions[0].Name)
	}
}

// TestAPIWords checks the rewriting of REST requests and dotted SDK
// methods.
func TestAPIWords(t *testing.T) {
	for in, want := range map[string]string{
		"put /guilds/{guild.id}/bans/{user.id}":               "set guild ban",
		"delete /channels/:id/messages/123":                   "delete channel message",
		"app.client.chat.postMessage":                         "postMessage",
		"chat.delete":                                         "message.delete",
		"im.v1.chat.members.delete":                           "chat.members.delete",
		"im.v1.message.create":                                "message.create",
		"users.profile.set":                                   "users.profile.set",
		"put this file into the group":                        "put this file into the group",
		"send_group_msg":                                      "send_group_msg",
		"delete /users/@me/guilds/{guild.id}":                 "leave guild",
		"delete /channels/1/messages/2/reactions/{emoji}/@me": "delete channel message reaction",
	} {
		got, _ := apiWords(in)
		if got != want {
			t.Errorf("apiWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPhrasal checks the phrasal verbs' rewriting, the particle after the
// verb or after its object, and what is left alone.
func TestPhrasal(t *testing.T) {
	for in, want := range map[string]string{
		"kick that spammer out of the group": "kick that spammer of the group",
		"take it back":                       "recall it",
		"let the new member in":              "approve join request the new member",
		"stop everyone from talking":         "mute everyone from",
		"stop posting in this group":         "stop posting in this group",
		"get rid of the file":                "remove the file",
		"turn down the request":              "reject the request",
		"take a look at the list":            "take a look at the list",
		"take the notice down":               "delete the notice",
		"make the bot say hi":                "send message the bot hi",
	} {
		got, _ := phrasal(" " + in + " ")
		if got = strings.TrimSpace(got); got != want {
			t.Errorf("phrasal(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGivenOrTaken checks that a role given or taken, in either language
// and in operators' slang, is set, and that a role named beside another
// object leaves the act to that object.
func TestGivenOrTaken(t *testing.T) {
	c := mustLoad(t)
	firstAndSure(t, c, map[string]string{
		"添加管理员":                           "set_group_admin",
		"把他管理撤了":                          "set_group_admin",
		"给他加个管理":                          "set_group_admin",
		"上管":                              "set_group_admin",
		"撤管":                              "set_group_admin",
		"下群管":                             "set_group_admin",
		"add an admin":                    "set_group_admin",
		"revoke admin":                    "set_group_admin",
		"撤回管理员发的那条消息":                     "delete_msg",
		"delete the admin's announcement": "_del_group_notice",
	})
}

// TestUndoneName checks that a switch's undoing typed as a name
// (unset_group_admin) names the switch, and that an action with no switch
// is not taken for its own undoing.
func TestUndoneName(t *testing.T) {
	ix := mustLoad(t).index()
	for tok, want := range map[string]string{
		"unset_group_admin":    "set_group_admin",
		"unsetGroupWholeBan":   "set_group_whole_ban",
		"unset_msg_emoji_like": "set_msg_emoji_like",
		"unset_essence_msg":    "",
		"unset_group_card":     "",
	} {
		d, ok := namedIn(ix, strings.ToLower(tok))
		got := ""
		if ok {
			got = ix.names[d][0]
		}
		if got != want {
			t.Errorf("namedIn(%q) = %q, want %q", tok, got, want)
		}
	}
}

// TestBotExit checks that ending the bot's process is found by its words
// in both languages, and that leaving a group still leaves the group.
func TestBotExit(t *testing.T) {
	c := mustLoad(t)
	firstAndSure(t, c, map[string]string{
		"exit the bot":             "bot_exit",
		"shut the bot down":        "bot_exit",
		"terminate the process":    "bot_exit",
		"关掉机器人":                    "bot_exit",
		"退出机器人":                    "bot_exit",
		"退群":                       "set_group_leave",
		"漫游消息":                     "get_group_msg_history",
		"recall a message in Lark": "delete_msg",
	})
}

// TestWithout checks that what a request is done without is not asked for.
func TestWithout(t *testing.T) {
	rephrases(t, map[string]string{
		"pin the message without notification": "pin message",
		"kick him without a reason":            "kick him",
		"without":                              "without",
		"mute everyone except the admins":      "mute everyone",
		"mute all except for admins":           "mute everyone",
	})
	firstAndSure(t, mustLoad(t), map[string]string{"pinMessage without a notification": "set_essence_msg"})
}

// TestSourcedPhrases checks phrases taken from other platforms and QQ's
// own names: a nickname in one group is its card, who talks the most holds
// the talkative honor, a group's notifications are its system messages
// (Milky), a chat where only admins can speak is the whole-group mute, and
// setting an announcement publishes one (Rocket.Chat's setAnnouncement),
// and a private chat, or a chat with someone, is a friend's, no group's.
func TestSourcedPhrases(t *testing.T) {
	c := mustLoad(t)
	firstAndSure(t, c, map[string]string{
		"change my nickname in this group":                 "set_group_card",
		"set the bot's nickname in the server":             "set_group_card",
		"who talks the most in this group":                 "get_group_honor_info",
		"get_group_notifications":                          "get_group_system_msg",
		"set the group announcement":                       "_send_group_notice",
		"stop him from sending messages":                   "set_group_ban",
		"私聊记录":                                             "get_friend_msg_history",
		"private chat history":                             "get_friend_msg_history",
		"get my chat history with Alice":                   "get_friend_msg_history",
		"mark the chat with Bob as read":                   "mark_private_msg_as_read",
		"make it so only admins can send messages":         "set_group_whole_ban",
		"can you stop everyone except admins from talking": "set_group_whole_ban",
	})
	// What only admins can do but speak is no mute.
	if m := c.Match("only admins can see the files", Filter{}, false); len(m.Actions) > 0 && m.Actions[0].Name == "set_group_whole_ban" {
		t.Errorf("only admins can see the files: got set_group_whole_ban first")
	}
}

// TestBanRemoves checks that another platform's ban, which removes the
// member for good, is read as a kick, and QQ's ban, a mute for a time, is
// left alone.
func TestBanRemoves(t *testing.T) {
	rephrases(t, map[string]string{
		"ban the user from this channel": "kick user from this channel",
		"ban chat member":                "kick chat member",
		"ban them permanently":           "kick them permanently",
		"ban him for 10 minutes":         "ban him for 10 minutes",
		"ban from talking":               "ban from talking",
		"ban user":                       "ban user",
		"unban user from the group":      "unban user from group",
	})
}

// TestNotServed checks two requests next to a real action that it does
// not serve: giving away the group's ownership (set_group_admin makes
// admins) and a translation into another language than Chinese
// (translate_en2zh turns English into Chinese), while the requests it
// serves stay sure.
func TestNotServed(t *testing.T) {
	c := mustLoad(t)
	for q, sure := range map[string]bool{
		"make my co-admin the group owner":    false,
		"transfer ownership of the group":     false,
		"把群主转让给他":                             false,
		"群主设置管理员":                             true,
		"translate this sentence into french": false,
		"把这段话翻译成日语":                           false,
		"英译中":                                 true,
		"translate this english word":         true,
	} {
		m := c.Match(q, Filter{}, false)
		got := len(m.Actions) > 0 && !m.Weak
		if got != sure {
			t.Errorf("%q: got %v weak=%v, want sure=%v", q, names(m.Actions[:min(3, len(m.Actions))]), m.Weak, sure)
		}
	}
}

// firstAndSure checks that each query finds its action first, with no
// weak flag.
func firstAndSure(t *testing.T, c *Catalog, want map[string]string) {
	t.Helper()
	for q, name := range want {
		m := c.Match(q, Filter{}, false)
		if len(m.Actions) == 0 || m.Actions[0].Name != name || m.Weak {
			t.Errorf("%q: got %v weak=%v, want %s first and sure", q, names(m.Actions[:min(3, len(m.Actions))]), m.Weak, name)
		}
	}
}

// rephrases checks rephrase on each input.
func rephrases(t *testing.T, want map[string]string) {
	t.Helper()
	for in, out := range want {
		if got := rephrase(in); got != out {
			t.Errorf("rephrase(%q) = %q, want %q", in, got, out)
		}
	}
}
