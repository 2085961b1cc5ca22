package simulator

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestShare: two accounts' worlds share one group. Each account's world is
// its own (get_login_info, self_id); both are members of the shared group
// in both worlds; a message one account sends there arrives at the other
// as a member's group message, which the other's get_msg then finds by
// its own message id.
func TestShare(t *testing.T) {
	main := startFake(t, WithWorld(7))
	alt := startFake(t, WithWorld(8), WithSelfID(20002, "AltBot"))
	gid, err := Share(main, alt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Share(main, main); err == nil {
		t.Error("Share of one fake with itself succeeded")
	}
	login := decode[struct {
		UserID   int64  `json:"user_id"`
		Nickname string `json:"nickname"`
	}](t, ok(t, alt, "get_login_info", `{}`))
	if login.UserID != 20002 || login.Nickname != "AltBot" {
		t.Errorf("alt's login info: %+v", login)
	}
	for _, f := range []*Server{main, alt} {
		members := decode[[]memberRow](t, ok(t, f, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, gid)))
		ids := make([]int64, 0, len(members))
		for _, m := range members {
			ids = append(ids, m.UserID)
		}
		if !slices.Contains(ids, SelfID) || !slices.Contains(ids, 20002) {
			t.Errorf("group %d's members as %d sees them: %v, want both accounts", gid, f.self(), ids)
		}
	}

	toAlt, toMain := listen(t, alt), listen(t, main)
	ok(t, main, "send_group_msg", fmt.Sprintf(`{"group_id":"%d","message":"main says hi"}`, gid))
	ev := toAlt(func(ev map[string]any) bool { return ev["post_type"] == "message" })
	if ev["self_id"] != float64(20002) || ev["group_id"] != float64(gid) || ev["user_id"] != float64(SelfID) || ev["raw_message"] != "main says hi" {
		t.Errorf("alt received %v", ev)
	}
	got := int64(ev["message_id"].(float64))
	hist := string(ok(t, alt, "get_msg", fmt.Sprintf(`{"message_id":%d}`, got)))
	if !strings.Contains(hist, "main says hi") {
		t.Errorf("alt's get_msg of the relayed message %d: %s", got, hist)
	}

	ok(t, alt, "send_msg", fmt.Sprintf(`{"message_type":"group","group_id":%d,"message":[{"type":"text","data":{"text":"alt answers"}}]}`, gid))
	ev = toMain(func(ev map[string]any) bool { return ev["post_type"] == "message" })
	if ev["self_id"] != float64(SelfID) || ev["user_id"] != float64(20002) || ev["raw_message"] != "alt answers" {
		t.Errorf("main received %v", ev)
	}
	sender, _ := ev["sender"].(map[string]any)
	if sender["nickname"] != "AltBot" {
		t.Errorf("main sees alt's message from %v", sender)
	}
}

// TestShareTrickle: the shared group's members speak to both accounts:
// what they say in the first account's world reaches the second's, and
// the second world's own trickle never speaks there for them.
func TestShareTrickle(t *testing.T) {
	main := startFake(t, WithWorld(7), WithTrickle(5*time.Millisecond))
	alt := startFake(t, WithWorld(8), WithSelfID(20002, "AltBot"))
	gid, err := Share(main, alt)
	if err != nil {
		t.Fatal(err)
	}
	toAlt := listen(t, alt)
	ev := toAlt(func(ev map[string]any) bool { return ev["post_type"] == "message" })
	if ev["group_id"] != float64(gid) || ev["self_id"] != float64(20002) || ev["user_id"] == float64(SelfID) || ev["user_id"] == float64(20002) {
		t.Errorf("alt received %v, want a member's message in group %d", ev, gid)
	}

	w := alt.world
	w.mu.Lock()
	defer w.mu.Unlock()
	for range 300 {
		w.step()
		if w.said != nil && w.said.peer.id == gid {
			t.Fatalf("alt's own trickle spoke in the shared group %d", gid)
		}
	}
}
