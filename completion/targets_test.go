package completion

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/snowluma/snowluma-mcp/safety"
)

// describe lists candidates as kind:id@group(field=match) for comparison.
func describe(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		s := fmt.Sprintf("%s:%d", c.Kind, c.ID)
		if c.GroupID != 0 {
			s += fmt.Sprintf("@%d", c.GroupID)
		}
		out = append(out, s+"("+c.Field+"="+c.Match+")")
	}
	return out
}

func TestFindTargets(t *testing.T) {
	t.Parallel()
	c, fake, _ := setup(t, Options{})
	ctx := context.Background()
	find := func(query string, group int64) Found {
		t.Helper()
		f, err := c.FindTargets(ctx, query, group)
		if err != nil {
			t.Fatalf("%q: %v", query, err)
		}
		return f
	}
	// One person under one name: a friend and a member of two groups.
	f := find("张三", 0)
	if got := describe(f.Candidates); !slices.Equal(got, []string{
		"friend:30001(nickname=exact)", "member:30001@20001(nickname=exact)", "member:30001@20002(nickname=exact)",
	}) || f.Targets != 1 {
		t.Errorf("张三: %v, %d targets", got, f.Targets)
	}
	// Traditional characters, full-width forms, case and an @ resolve alike.
	for _, q := range []string{"張三", "@张三", "　张三　"} {
		if got := find(q, 0); !slices.Equal(describe(got.Candidates), describe(f.Candidates)) {
			t.Errorf("%q: %v, want what 张三 finds", q, describe(got.Candidates))
		}
	}
	if got := describe(find("ＡＬＩＣＥ", 0).Candidates); !slices.Contains(got, "friend:20002(nickname=exact)") {
		t.Errorf("ＡＬＩＣＥ: %v", got)
	}
	// An ambiguous name: every candidate, two people, nothing picked.
	f = find("王", 0)
	if got := describe(f.Candidates); !slices.Equal(got, []string{"member:30010@20001(nickname=prefix)", "member:30020@20002(card=contains)"}) || f.Targets != 2 {
		t.Errorf("王: %v, %d targets", got, f.Targets)
	}
	// A group by name, and a member whose card holds the same word.
	f = find("摸鱼", 0)
	if got := describe(f.Candidates); !slices.Equal(got, []string{"group:20002(group_name=prefix)", "member:30020@20002(card=prefix)"}) || f.Targets != 2 {
		t.Errorf("摸鱼: %v", got)
	}
	// Within one group: its members only.
	if got := describe(find("张三", 20002).Candidates); !slices.Equal(got, []string{"member:30001@20002(nickname=exact)"}) {
		t.Errorf("张三 in 20002: %v", got)
	}
	if got := find("nobody", 0); len(got.Candidates) != 0 || got.Targets != 0 {
		t.Errorf("nobody: %+v", got)
	}
	// The lists come from completion's cache: asked once.
	if n := count(fake, ActionGroupList); n != 1 {
		t.Errorf("%d get_group_list requests, want 1", n)
	}
	if n := count(fake, ActionFriendList); n != 1 {
		t.Errorf("%d get_friend_list requests, want 1", n)
	}
	if _, err := c.FindTargets(ctx, " @ ", 0); err == nil {
		t.Error("a blank name was accepted")
	}
}

func TestFindTargetsAllowlists(t *testing.T) {
	t.Parallel()
	groups, _ := safety.ParseIDs("20001,20010")
	users, _ := safety.ParseIDs("30010,30020")
	c, fake, _ := setup(t, Options{Groups: groups, Users: users})
	ctx := context.Background()
	if _, err := c.FindTargets(ctx, "赵六", 20002); !errors.Is(err, ErrGroupNotAllowed) {
		t.Errorf("a group outside the list: %v", err)
	}
	if n := count(fake, ActionMemberList); n != 0 {
		t.Errorf("%d member list requests for a refused group", n)
	}
	// 摸鱼小分队 and its member 赵六 (whom the user list allows) are in no
	// allowed group; 张三 is not an allowed user.
	for _, q := range []string{"摸鱼", "赵六", "张三"} {
		f, err := c.FindTargets(ctx, q, 0)
		if err != nil || len(f.Candidates) != 0 {
			t.Errorf("%s: %v, %v: want nothing", q, describe(f.Candidates), err)
		}
	}
	f, err := c.FindTargets(ctx, "王五", 0)
	if err != nil || !slices.Equal(describe(f.Candidates), []string{"member:30010@20001(nickname=exact)"}) {
		t.Errorf("王五: %v, %v", describe(f.Candidates), err)
	}
}

func TestFindTargetsSnowLumaDown(t *testing.T) {
	t.Parallel()
	c, fake, _ := setup(t, Options{})
	fake.Close()
	if _, err := c.FindTargets(context.Background(), "张三", 0); err == nil {
		t.Error("SnowLuma down: no error")
	}
	docs := New(Options{})
	if _, err := docs.FindTargets(context.Background(), "张三", 0); err == nil {
		t.Error("no SnowLuma configured: no error")
	}
}
