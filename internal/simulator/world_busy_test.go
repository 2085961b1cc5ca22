package simulator

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBusyWorld: the busy world has its size (groups, members, a month of
// messages), its first group's recent history and media as the seed's
// world has them (its pictures among the frames), BusyWord in several groups in the last week, and
// BusyOldLine only past its group's HistoryWindow: get_group_msg_history
// cannot reach it, HistoryFrames holds it.
func TestBusyWorld(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	s := startFake(t, WithBusyWorldAt(7, now))
	groups := decode[[]groupRow](t, ok(t, s, "get_group_list", `{}`))
	if len(groups) != BusyGroups {
		t.Fatalf("%d groups", len(groups))
	}
	type history struct {
		Messages []struct {
			Time       int64  `json:"time"`
			RawMessage string `json:"raw_message"`
		} `json:"messages"`
	}
	for _, g := range groups {
		members := decode[[]map[string]any](t, ok(t, s, "get_group_member_list", fmt.Sprintf(`{"group_id":%d}`, g.GroupID)))
		if len(members) != BusyMembers {
			t.Errorf("group %d: %d members", g.GroupID, len(members))
		}
		h := decode[history](t, ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d,"count":200}`, g.GroupID)))
		if len(h.Messages) != HistoryWindow {
			t.Errorf("group %d: history reaches %d messages", g.GroupID, len(h.Messages))
		}
		for i, m := range h.Messages {
			if strings.Contains(m.RawMessage, BusyOldLine) {
				t.Errorf("group %d: the old line is within the window", g.GroupID)
			}
			if i > 0 && m.Time < h.Messages[i-1].Time {
				t.Errorf("group %d: history out of order", g.GroupID)
			}
		}
	}
	frames := s.HistoryFrames()
	old, word, pictures := 0, 0, 0
	for _, f := range frames {
		old += bytes.Count(f, []byte(BusyOldLine))
		word += bytes.Count(f, []byte(BusyWord))
		pictures += bytes.Count(f, []byte(`"type":"image"`))
	}
	if len(frames) < BusyMessages || old != 2 || word < 2*len(busyWordLines) || pictures == 0 {
		// each frame says its text twice: in message and raw_message
		t.Errorf("%d frames; the old line %d times, the word %d, %d pictures", len(frames), old, word, pictures)
	}
}
