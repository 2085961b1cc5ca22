package catalog

import (
	"slices"
	"testing"
)

// TestDeedOf checks the acts and objects read from action names.
func TestDeedOf(t *testing.T) {
	term := func(w string) string { return wordTerm(w) }
	for name, want := range map[string]deed{
		"set_group_name":        {objects: []string{term("name")}, generic: []string{"set"}},
		"set_group_add_request": {objects: []string{term("request")}, generic: []string{"set", "add"}},
		"set_group_ban":         {acts: []string{term("mute")}, generic: []string{"set"}},
		"delete_msg":            {acts: []string{term("delete"), term("recall")}, objects: []string{term("message")}},
		"upload_group_file":     {acts: []string{term("upload")}, objects: []string{term("file")}},
		"_set_model_show":       {objects: []string{term("model"), term("show")}, generic: []string{"set"}},
	} {
		got := deedOf(name)
		if !slices.Equal(got.acts, want.acts) || !slices.Equal(got.objects, want.objects) || !slices.Equal(got.generic, want.generic) {
			t.Errorf("deedOf(%q) = acts %v objects %v generic %v, want %v %v %v", name, got.acts, got.objects, got.generic, want.acts, want.objects, want.generic)
		}
	}
}

// TestActAndObject checks the rule that an action changing something is a
// confident first answer only when the query names its act and its
// object: requests that name another object, an act no action performs,
// or a thing QQ has no action for come back weak (so led by an action that
// only reads, or empty), while requests naming both still get the action.
func TestActAndObject(t *testing.T) {
	c := mustLoad(t)
	for _, q := range []string{
		"change the channel topic",     // a topic is not a name
		"set the group description",    // nor is a description
		"enable slow mode in the chat", // slow is not show, mode not model
		"turn off notifications for the group",
		"invite someone into the chat", // an invite is not answering a request
		"add a friend",                 // nor is adding a friend
		"start a thread in the group",
		"post a poll in the chat",
		"edit the message I sent", // editing is no send
		"send a red envelope",
		"群里发红包",
		"update the group notice",   // a change, not a deletion
		"bots info",                 // no act said for a destructive action
		"search the group messages", // a search is a read
		"give a member a role",
		"join the group",          // kicking refuses joins in a later clause; it is no join
		"update the announcement", // a change, not a send
		// QQ forbids no one kind of content (Telegram's can_send_photos).
		"stop members from sending photos but let them send text",
		"prevent members from sending links",
		"set the group", // set names no mute of its own
		"chat.update",
		"pin a chat to the top", // a guess yields only to an act said
		// This round's: a click is no send, a sticker set, a payment, a
		// call and a vote are nothing QQ's actions do, even for a read.
		"send buttons of an inline keyboard",
		"set the chat's sticker set",
		"send money to my friend",
		"start a video call with the group",
		"发起一个投票",
		"create_group",              // part of create_group_file_folder's name, not its object
		"what is this group called", // a question asks to read
	} {
		m := c.Match(q, Filter{}, false)
		if !m.Weak && len(m.Actions) > 0 && !m.Actions[0].ReadOnly {
			t.Errorf("%q: %s, which changes something, answers with confidence", q, m.Actions[0].Name)
		}
	}
	for q, want := range map[string][]string{
		"rename the chat":               {"set_group_name"},
		"edit the group's name":         {"set_group_name"},
		"remove a member from the chat": {"set_group_kick", "set_group_kick_members"},
		"accept the group invitation":   {"set_group_add_request"},
		"approve friend":                {"set_friend_add_request", "set_doubt_friends_add_request"},
		"send a document to the chat":   {"upload_group_file", "upload_private_file"},
		"withdraw my message":           {"delete_msg"},
		"silence this user":             {"set_group_ban"},
		"把那条消息撤回":                       {"delete_msg"},
		// A guess at the first (an essence entry) yields to the action
		// the query names with confidence.
		"delete a chat message":          {"delete_msg"},
		"remove a message from the chat": {"delete_msg"},
		"show the bans":                  {"get_group_shut_list"}, // a read asked: the read that names it
		// A participle is a state to read, an -ing form the act.
		"list banned users": {"get_group_shut_list"},
		// A read holding every word of a query of known words answers it.
		"get groups":                    {"get_group_list"},
		"uploading a file to the group": {"upload_group_file"},
		// A switch whose false undoes it removes too; an empty value
		// clears; a switch named for an act does it.
		"remove a member's admin rights": {"set_group_admin"},
		"clear a member's special title": {"set_group_special_title"},
		"block this contact":             {"delete_friend"},
		// Other platforms' names and words.
		"send chat action":           {"set_input_status"},
		"get all groups":             {"get_group_list"},
		"ban all users":              {"set_group_whole_ban"},
		"send a sticker":             {"send_group_msg", "send_private_msg", "send_msg"},
		"set the bot's display name": {"set_qq_profile"},
		"全群禁言":                       {"set_group_whole_ban"},
	} {
		m := c.Match(q, Filter{}, false)
		if m.Weak || len(m.Actions) == 0 || !slices.Contains(want, m.Actions[0].Name) {
			t.Errorf("%q: weak %v, got %v, want %v first and not weak", q, m.Weak, names(m.Actions[:min(3, len(m.Actions))]), want)
		}
	}
}

// TestClears checks which actions say an empty or false value removes what
// they set (a removal too) and that a switch answering null is not one.
func TestClears(t *testing.T) {
	c := mustLoad(t)
	for name, want := range map[string]bool{
		"set_group_special_title": true,  // an empty title removes it
		"set_group_card":          true,  // an empty card clears it
		"set_group_admin":         true,  // false to revoke admin
		"set_msg_emoji_like":      true,  // false removes it
		"send_packet":             false, // false answers null
		"set_group_name":          false,
		"send_msg":                false,
	} {
		a, ok := c.Lookup(name)
		if !ok {
			t.Fatalf("%s is not an action", name)
		}
		if got := clears(a); got != want {
			t.Errorf("clears(%s) = %v, want %v", name, got, want)
		}
	}
}
