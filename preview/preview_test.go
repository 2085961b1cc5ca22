package preview

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPrepareGroupTextIsLiteral(t *testing.T) {
	text := `<img src=x onerror=alert(1)> [CQ:at,qq=all] & "quotes"`
	p, problems := Prepare(Args{MessageType: "group", TargetID: "20001", Text: text}, true, "")
	if problems != nil {
		t.Fatalf("problems: %v", problems)
	}
	if !p.CanSend || p.CannotSend != "" {
		t.Errorf("can_send %v (%q), want true", p.CanSend, p.CannotSend)
	}
	if p.Draft.Text != text || p.Draft.MessageType != "group" || p.Draft.TargetID != 20001 || p.Draft.ReplyTo != nil {
		t.Errorf("draft %+v", p.Draft)
	}
	if want := "To group 20001:\n" + text; p.Draft.Readable != want {
		t.Errorf("readable %q, want %q", p.Draft.Readable, want)
	}
	if p.Invoke.Action != "send_group_msg" {
		t.Errorf("action %s", p.Invoke.Action)
	}
	var params map[string]any
	if err := json.Unmarshal(p.Invoke.Params, &params); err != nil {
		t.Fatal(err)
	}
	if params["message"] != text || params["auto_escape"] != true || params["group_id"] != float64(20001) || len(params) != 3 {
		t.Errorf("params %s", p.Invoke.Params)
	}
	// The params show the characters as they are, not as \u003c escapes.
	if !strings.Contains(string(p.Invoke.Params), "<img src=x") {
		t.Errorf("params escaped: %s", p.Invoke.Params)
	}
}

func TestPreparePrivateReplyUsesSegments(t *testing.T) {
	p, problems := Prepare(Args{MessageType: "private", TargetID: "30001", Text: "[CQ:face,id=1] hi", ReplyTo: "-123456"}, false, "read mode")
	if problems != nil {
		t.Fatalf("problems: %v", problems)
	}
	if p.CanSend || p.CannotSend != "read mode" {
		t.Errorf("can_send %v, reason %q", p.CanSend, p.CannotSend)
	}
	if p.Draft.ReplyTo == nil || *p.Draft.ReplyTo != -123456 {
		t.Errorf("reply_to %v", p.Draft.ReplyTo)
	}
	if want := "To QQ user 30001 (private), quoting message -123456:\n[CQ:face,id=1] hi"; p.Draft.Readable != want {
		t.Errorf("readable %q", p.Draft.Readable)
	}
	want := `{"message":[{"type":"reply","data":{"id":"-123456"}},{"type":"text","data":{"text":"[CQ:face,id=1] hi"}}],"user_id":30001}`
	if p.Invoke.Action != "send_private_msg" || string(p.Invoke.Params) != want {
		t.Errorf("invoke %s %s, want %s", p.Invoke.Action, p.Invoke.Params, want)
	}
}

func TestPrepareBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name string
		args Args
	}{
		{"largest safe target", Args{MessageType: "group", TargetID: "9007199254740991", Text: "x"}},
		{"exponent integer", Args{MessageType: "group", TargetID: "2e4", Text: "x"}},
		{"longest text", Args{MessageType: "group", TargetID: "1", Text: strings.Repeat("字", MaxText)}},
		{"lowest reply", Args{MessageType: "group", TargetID: "1", Text: "x", ReplyTo: "-2147483648"}},
		{"highest reply", Args{MessageType: "group", TargetID: "1", Text: "x", ReplyTo: "2147483647"}},
	} {
		if _, problems := Prepare(tc.args, true, ""); problems != nil {
			t.Errorf("%s: %v", tc.name, problems)
		}
	}
}

// Every bad argument is named, all at once, and nothing is prepared.
func TestPrepareNamesEveryBadArgument(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   Args
		fields []string
	}{
		{"all missing", Args{}, []string{"message_type", "target_id", "text"}},
		{"all wrong", Args{MessageType: "discuss", TargetID: "0", Text: strings.Repeat("a", MaxText+1), ReplyTo: "0"}, []string{"message_type", "target_id", "text", "reply_to"}},
		{"unsafe target", Args{MessageType: "group", TargetID: "9007199254740992", Text: "x"}, []string{"target_id"}},
		{"negative target", Args{MessageType: "private", TargetID: "-5", Text: "x"}, []string{"target_id"}},
		{"fractional target", Args{MessageType: "private", TargetID: "1.5", Text: "x"}, []string{"target_id"}},
		{"huge target", Args{MessageType: "private", TargetID: "1e400", Text: "x"}, []string{"target_id"}},
		{"reply past int32", Args{MessageType: "group", TargetID: "1", Text: "x", ReplyTo: "2147483648"}, []string{"reply_to"}},
		{"reply below int32", Args{MessageType: "group", TargetID: "1", Text: "x", ReplyTo: "-2147483649"}, []string{"reply_to"}},
		{"fractional reply", Args{MessageType: "group", TargetID: "1", Text: "x", ReplyTo: "3.25"}, []string{"reply_to"}},
		{"case matters", Args{MessageType: "Group", TargetID: "1", Text: "x"}, []string{"message_type"}},
		{"invalid utf-8", Args{MessageType: "group", TargetID: "1", Text: "a\xffb"}, []string{"text"}},
	} {
		p, problems := Prepare(tc.args, true, "")
		if p != nil {
			t.Errorf("%s: a preview despite bad arguments", tc.name)
		}
		var got []string
		for _, pr := range problems {
			got = append(got, pr.Field)
			if pr.Problem == "" {
				t.Errorf("%s: %s has no explanation", tc.name, pr.Field)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
			t.Errorf("%s: problems %v, want fields %v", tc.name, problems, tc.fields)
		}
	}
}

func TestTextLengthCountsCharacters(t *testing.T) {
	_, problems := Prepare(Args{MessageType: "group", TargetID: "1", Text: strings.Repeat("😀", MaxText+1)}, true, "")
	if len(problems) != 1 || !strings.Contains(problems[0].Problem, "4501 characters") {
		t.Errorf("problems %v", problems)
	}
}
