package simulator

import (
	"fmt"
	"testing"
	"time"
)

// TestWorldHistoryIsRecent: the world's history is dated back from when it
// starts: every group's latest message is from the last two hours (so a
// digest "since 2h" finds it) and none is in the future, whatever the
// seed; a world started at another time has the same history, moved.
func TestWorldHistoryIsRecent(t *testing.T) {
	for _, seed := range []uint64{1, 7, 364, 365} {
		start := time.Now()
		s := startFake(t, WithWorld(seed))
		for _, g := range decode[[]groupRow](t, ok(t, s, "get_group_list", `{}`)) {
			h := decode[struct {
				Messages []struct {
					Time int64 `json:"time"`
				} `json:"messages"`
			}](t, ok(t, s, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d}`, g.GroupID)))
			if len(h.Messages) == 0 {
				t.Fatalf("seed %d: group %d has no history", seed, g.GroupID)
			}
			latest := time.Unix(h.Messages[len(h.Messages)-1].Time, 0)
			if latest.Before(start.Add(-2*time.Hour)) || latest.After(time.Now()) {
				t.Errorf("seed %d: group %d's latest message is at %v, started at %v", seed, g.GroupID, latest, start)
			}
		}
	}
	day := 24 * time.Hour
	then := time.Now().Add(-3 * day).Truncate(time.Second)
	a, b := startFake(t, WithWorldAt(7, then)), startFake(t, WithWorldAt(7, then.Add(day)))
	ga := decode[[]groupRow](t, ok(t, a, "get_group_list", `{}`))[0]
	type history struct {
		Messages []struct {
			Time      int64 `json:"time"`
			MessageID int64 `json:"message_id"`
		} `json:"messages"`
	}
	ha := decode[history](t, ok(t, a, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d}`, ga.GroupID)))
	hb := decode[history](t, ok(t, b, "get_group_msg_history", fmt.Sprintf(`{"group_id":%d}`, ga.GroupID)))
	if len(ha.Messages) != len(hb.Messages) {
		t.Fatalf("the same seed gave %d and %d messages", len(ha.Messages), len(hb.Messages))
	}
	for i := range ha.Messages {
		if hb.Messages[i].Time-ha.Messages[i].Time != int64(day/time.Second) || ha.Messages[i].MessageID != hb.Messages[i].MessageID {
			t.Errorf("message %d: %+v and %+v, a day apart", i, ha.Messages[i], hb.Messages[i])
		}
	}
}
