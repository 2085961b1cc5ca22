package simulator

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The fake account's contacts, answered by get_group_list,
// get_group_member_list and get_friend_list in SnowLuma's shapes. Names are
// mostly Chinese, as an operator's groups are; BigGroup has more members
// than one completion answer holds.
const (
	// BigGroup is a group of BigGroupMembers members, QQ numbers from
	// 40001 up, nicknames 成员001 upward.
	BigGroup        = 123456789
	BigGroupMembers = 150
)

// A Group is one entry of get_group_list.
type Group struct {
	ID             int64  `json:"group_id"`
	Name           string `json:"group_name"`
	MemberCount    int    `json:"member_count"`
	MaxMemberCount int    `json:"max_member_count"`
}

// A Member is one entry of get_group_member_list, the fields SnowLuma
// fills in for each member.
type Member struct {
	GroupID      int64  `json:"group_id"`
	UserID       int64  `json:"user_id"`
	Nickname     string `json:"nickname"`
	Card         string `json:"card"`
	Sex          string `json:"sex"`
	Age          int    `json:"age"`
	JoinTime     int64  `json:"join_time"`
	LastSentTime int64  `json:"last_sent_time"`
	Level        string `json:"level"`
	Role         string `json:"role"`
	Title        string `json:"title"`
}

// A Friend is one entry of get_friend_list.
type Friend struct {
	UserID   int64  `json:"user_id"`
	Nickname string `json:"nickname"`
	Remark   string `json:"remark"`
}

// Groups are the fake account's groups, in the order get_group_list
// answers them.
func Groups() []Group {
	return []Group{
		{20001, "雪璐测试群", 5, 200},
		{20002, "摸鱼小分队", 3, 200},
		{20010, "开发者交流群", 2, 500},
		{30003, "Fake Lounge", 1, 200},
		{BigGroup, "大群", BigGroupMembers, 2000},
	}
}

// Members are the members of group (none for a group the account is not
// in, as SnowLuma answers an empty list).
func Members(group int64) []Member {
	m := func(user int64, nick, card, role string) Member {
		return Member{GroupID: group, UserID: user, Nickname: nick, Card: card, Sex: "unknown",
			JoinTime: 1700000000, LastSentTime: 1700000000, Level: "1", Role: role}
	}
	switch group {
	case 20001:
		return []Member{
			m(10001, "SnowBot", "", "admin"),
			m(20002, "Alice", "爱丽丝", "member"),
			m(30001, "张三", "群主 张三", "owner"),
			m(30002, "李四", "", "member"),
			m(30010, "王五", "管理 王五", "admin"),
		}
	case 20002:
		return []Member{m(10001, "SnowBot", "", "member"), m(30001, "张三", "", "owner"), m(30020, "赵六", "摸鱼王", "member")}
	case 20010:
		return []Member{m(10001, "SnowBot", "", "owner"), m(30030, "Bob", "鲍勃", "member")}
	case 30003:
		return []Member{m(20002, "Alice", "", "owner")}
	case BigGroup:
		out := make([]Member, BigGroupMembers)
		for i := range out {
			out[i] = m(int64(40001+i), fmt.Sprintf("成员%03d", i+1), "", "member")
		}
		return out
	}
	return []Member{}
}

// Friends are the fake account's friends.
func Friends() []Friend {
	return []Friend{{20002, "Alice", "爱丽丝"}, {30001, "张三", ""}, {30002, "李四", "老李"}}
}

// getGroupList answers get_group_list: every group, whatever no_cache says.
func getGroupList(json.RawMessage) Reply { return OK(Groups()) }

// getFriendList answers get_friend_list.
func getFriendList(json.RawMessage) Reply { return OK(Friends()) }

// getGroupMemberList answers get_group_member_list. Like SnowLuma it
// refuses a missing or non-positive group_id with retcode 1400, naming the
// field, and answers an empty list for a group the account is not in.
func getGroupMemberList(params json.RawMessage) Reply {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return Failed(1400, "params must be an object")
	}
	raw, ok := p["group_id"]
	if !ok {
		return Failed(1400, "group_id: is required")
	}
	var n json.Number
	if err := json.Unmarshal([]byte(strings.Trim(string(raw), `"`)), &n); err != nil {
		return Failed(1400, "group_id: expected a positive integer")
	}
	id, err := n.Int64()
	if err != nil {
		return Failed(1400, "group_id: expected a positive integer")
	}
	if id < 1 {
		return Failed(1400, "group_id: must be >= 1")
	}
	return OK(Members(id))
}
