package channel

import (
	"fmt"
	"strings"
	"testing"

	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/safety"
)

func ids(t *testing.T, s string) safety.IDSet {
	t.Helper()
	set, err := safety.ParseIDs(s)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func groupMsg(group, user, id int64, message string) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":10001,"post_type":"message","message_type":"group","message_id":%d,"group_id":%d,"user_id":%d,"message":%s,"sender":{"nickname":"n%d"}}`, id, group, user, message, user)
}

func privateMsg(user, id int64, text string) string {
	return fmt.Sprintf(`{"time":1700000000,"self_id":10001,"post_type":"message","message_type":"private","message_id":%d,"user_id":%d,"message":[{"type":"text","data":{"text":%q}}],"sender":{"nickname":"n%d"}}`, id, user, text, user)
}

func decide(t *testing.T, g *Gate, raw string) Decision {
	t.Helper()
	e, err := qqmsg.ParseEvent([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return g.Decide(e)
}

func TestGate(t *testing.T) {
	text := `[{"type":"text","data":{"text":"hello"}}]`
	atBot := `[{"type":"at","data":{"qq":"10001"}},{"type":"text","data":{"text":" hi"}}]`
	atOther := `[{"type":"at","data":{"qq":"30009"}},{"type":"text","data":{"text":" hi"}}]`
	cfg := Config{Mode: ModeAll, Groups: ids(t, "20001,20002"), Users: ids(t, "30001"),
		AllowGroups: ids(t, "20001,20003"), AllowUsers: nil}
	cases := []struct {
		name   string
		mode   Mode
		raw    string
		reason string // "" when pushed
	}{
		{"listed group", ModeAll, groupMsg(20001, 30005, 1, text), ""},
		{"unlisted group", ModeAll, groupMsg(20003, 30005, 2, text), ReasonNotListed},
		{"listed but outside the allowlist", ModeAll, groupMsg(20002, 30005, 3, text), ReasonNotAllowed},
		{"listed private", ModeAll, privateMsg(30001, 4, "hi"), ""},
		{"unlisted private", ModeAll, privateMsg(30002, 5, "hi"), ReasonNotListed},
		{"own message_sent", ModeAll, strings.Replace(groupMsg(20001, 10001, 6, text), `"message"`, `"message_sent"`, 1), ReasonOwn},
		{"own account as sender", ModeAll, groupMsg(20001, 10001, 7, text), ReasonOwn},
		{"meta event", ModeAll, `{"time":1,"self_id":10001,"post_type":"meta_event","meta_event_type":"heartbeat","group_id":20001,"user_id":30001}`, ReasonNotMessage},
		{"notice", ModeAll, `{"time":1,"self_id":10001,"post_type":"notice","notice_type":"group_increase","group_id":20001,"user_id":30001}`, ReasonNotMessage},
		{"other account", ModeAll, strings.Replace(groupMsg(20001, 30005, 8, text), `"self_id":10001`, `"self_id":10002`, 1), ReasonOtherSelf},
		{"no message id", ModeAll, strings.Replace(groupMsg(20001, 30005, 9, text), `"message_id":9`, `"message_id":"x"`, 1), ReasonUnreadable},
		{"mentions: at the bot", ModeMentions, groupMsg(20001, 30005, 10, atBot), ""},
		{"mentions: at someone else", ModeMentions, groupMsg(20001, 30005, 11, atOther), ReasonNotMention},
		{"mentions: plain text", ModeMentions, groupMsg(20001, 30005, 12, text), ReasonNotMention},
		{"mentions: CQ at the bot", ModeMentions, groupMsg(20001, 30005, 13, `"[CQ:at,qq=10001] hi"`), ""},
		{"mentions: at all is not a mention", ModeMentions, groupMsg(20001, 30005, 14, `"[CQ:at,qq=all] hi"`), ReasonNotMention},
		{"mentions: private of a listed user", ModeMentions, privateMsg(30001, 15, "hi"), ""},
		{"mentions: reply to someone", ModeMentions, groupMsg(20001, 30005, 16, `[{"type":"reply","data":{"id":"999"}},{"type":"text","data":{"text":"x"}}]`), ReasonNotMention},
		{"off", ModeOff, groupMsg(20001, 30005, 17, atBot), ReasonOff},
	}
	for _, c := range cases {
		cfg.Mode = c.mode
		g := NewGate(cfg, self)
		d := decide(t, g, c.raw)
		if d.Push != (c.reason == "") || d.Reason != c.reason {
			t.Errorf("%s: push %v reason %q, want reason %q", c.name, d.Push, d.Reason, c.reason)
		}
	}
}

func TestGateReplyToBot(t *testing.T) {
	g := NewGate(Config{Mode: ModeMentions, Groups: ids(t, "20001")}, self)
	reply := func(id int64) string {
		return groupMsg(20001, 30005, id+1000, fmt.Sprintf(`[{"type":"reply","data":{"id":"%d"}},{"type":"text","data":{"text":"ok"}}]`, id))
	}
	if d := decide(t, g, reply(500)); d.Push {
		t.Fatal("a reply to an unknown message was pushed")
	}
	// The bot's own message, seen as message_sent, then a reply to it.
	decide(t, g, strings.Replace(groupMsg(20001, 10001, 500, `"x"`), `"message"`, `"message_sent"`, 1))
	if d := decide(t, g, reply(500)); !d.Push || d.Rendered.ReplyTo != 500 {
		t.Fatalf("a reply to the bot's message_sent: %+v", d)
	}
	// A message id the server sent through invoke_action.
	g.NoteSent(600)
	if d := decide(t, g, reply(600)); !d.Push {
		t.Fatal("a reply to a sent message was not pushed")
	}
	// The memory is bounded: the oldest ids are forgotten.
	for i := range int64(SentMemory) {
		g.NoteSent(10000 + i)
	}
	if d := decide(t, g, reply(600)); d.Push {
		t.Fatal("an id past the memory still counts")
	}
	if d := decide(t, g, reply(10000+SentMemory-1)); !d.Push {
		t.Fatal("the newest id was forgotten")
	}
}

func TestConfigCheck(t *testing.T) {
	cfg := Config{Mode: ModeMentions, Groups: ids(t, "20001,20009"), Users: ids(t, "30001"), Approvers: ids(t, "30002"),
		AllowGroups: ids(t, "20001"), AllowUsers: ids(t, "30001")}
	got := cfg.Outside()
	want := []Problem{{"CHANNEL_GROUPS", "ALLOWED_GROUPS", 20009}, {"CHANNEL_APPROVERS", "ALLOWED_USERS", 30002}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outside %v, want %v", got, want)
	}
	if p := (Config{Mode: ModeAll, Groups: ids(t, "5")}).Outside(); p != nil {
		t.Errorf("no allowlists: %v", p)
	}
	if !(Config{Mode: ModeAll}).Empty() || (Config{Mode: ModeOff}).Empty() || (Config{Mode: ModeAll, Users: ids(t, "1")}).Empty() {
		t.Error("Empty")
	}
	for in, want := range map[string]Mode{"": ModeOff, "OFF": ModeOff, " mentions ": ModeMentions, "all": ModeAll} {
		if m, err := ParseMode(in); err != nil || m != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, m, err)
		}
	}
	if _, err := ParseMode("on"); err == nil || !strings.Contains(err.Error(), "off, mentions or all") {
		t.Errorf("ParseMode(on): %v", err)
	}
}
