package simulator

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestContacts(t *testing.T) {
	s := startFake(t)
	_, body := post(t, s, "/get_group_list", `{"no_cache":true}`, nil)
	var groups struct {
		Data []Group `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &groups); err != nil || len(groups.Data) != len(Groups()) || groups.Data[1].Name != "摸鱼小分队" {
		t.Errorf("get_group_list: %s (%v)", body, err)
	}
	for _, tc := range []struct{ params, want string }{
		{`{"group_id":20002}`, `"card":"摸鱼王"`},
		{`{"group_id":"20002"}`, `"card":"摸鱼王"`},
		{`{"group_id":99}`, `"data":[]`},
		{`{}`, `"retcode":1400,"data":null,"wording":"group_id: is required"`},
		{`{"group_id":0}`, `"retcode":1400,"data":null,"wording":"group_id: must be \u003e= 1"`},
		{`{"group_id":"abc"}`, `"wording":"group_id: expected a positive integer"`},
	} {
		if _, body := post(t, s, "/get_group_member_list", tc.params, nil); !strings.Contains(body, tc.want) {
			t.Errorf("get_group_member_list %s: %s, want %s in it", tc.params, body, tc.want)
		}
	}
	_, body = post(t, s, "/get_group_member_list", `{"group_id":123456789}`, nil)
	var members struct {
		Data []Member `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &members); err != nil || len(members.Data) != BigGroupMembers || members.Data[0].Nickname != "成员001" {
		t.Errorf("big group: %d members (%v)", len(members.Data), err)
	}
	if _, body := post(t, s, "/get_friend_list", ``, nil); !strings.Contains(body, `"remark":"老李"`) {
		t.Errorf("get_friend_list: %s", body)
	}
}
