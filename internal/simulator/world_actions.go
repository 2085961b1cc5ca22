package simulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sandboxHost is where the world's download links point: a name under the
// reserved .invalid domain, so that a link can never reach a real host.
const sandboxHost = "https://sandbox.snowluma.invalid"

// maxWorldUpload caps a file the world takes into a group's files from an
// upload: it keeps the bytes in memory.
const maxWorldUpload = 32 << 20

// worldFunc is one action of the world. It runs with w.mu held and returns
// the answer's data, the events the change causes, or a failure.
type worldFunc func(w *world, p *params) (data any, events [][]byte, fail *Reply)

// failure is a failed answer: QQ's refusals reach a client as retcode 100
// with the reason, as SnowLuma's single error seam maps them.
func failure(wording string) *Reply {
	r := Failed(100, wording)
	return &r
}

// inWorld makes a Handler of f: params are read, the world is locked while
// f runs, and the events are pushed once it is unlocked.
func (s *Server) inWorld(f worldFunc) Handler {
	return func(raw json.RawMessage) Reply {
		p := readParams(raw)
		w := s.world
		w.mu.Lock()
		data, events, fail := f(w, p)
		w.mu.Unlock()
		if fail == nil {
			fail = p.failed()
		}
		if fail != nil {
			return *fail
		}
		for _, e := range events {
			s.push(e)
		}
		return OK(data)
	}
}

// worldHandlers returns the responders of a fake with a world: the world's
// actions, on top of the stream actions of the plain fake.
func (s *Server) worldHandlers() map[string]Handler {
	acts := map[string]worldFunc{
		"get_login_info": func(w *world, _ *params) (any, [][]byte, *Reply) {
			return map[string]any{"user_id": s.self(), "nickname": w.nickname}, nil, nil
		},
		"get_status": func(*world, *params) (any, [][]byte, *Reply) {
			return map[string]bool{"online": true, "good": true}, nil, nil
		},
		"get_version_info": func(*world, *params) (any, [][]byte, *Reply) {
			return map[string]string{"app_name": "SnowLuma", "app_version": "1.11.1-node", "protocol_version": "v11"}, nil, nil
		},
		"can_send_image":            yes,
		"can_send_record":           yes,
		"get_friend_list":           (*world).friendList,
		"get_friends_with_category": (*world).friendList,
		"get_stranger_info":         (*world).strangerInfo,
		"delete_friend":             (*world).deleteFriend,
		"set_friend_remark":         (*world).setFriendRemark,
		"get_group_list":            (*world).groupList,
		"get_group_info":            (*world).groupInfo,
		"get_group_info_ex":         (*world).groupInfoOrNull,
		"get_group_detail_info":     (*world).groupInfoOrNull,
		"get_group_member_list":     (*world).memberList,
		"get_group_member_info":     (*world).memberInfo,
		"get_group_shut_list":       (*world).shutList,
		"get_group_at_all_remain":   (*world).atAllRemain,
		"get_group_honor_info":      (*world).honorInfo,
		"get_group_system_msg":      (*world).systemMessages,
		"set_group_add_request":     (*world).answerJoin,
		"set_friend_add_request":    (*world).answerFriend,
		"set_group_kick":            (*world).kick,
		"set_group_kick_members":    (*world).kickMembers,
		"set_group_ban":             (*world).ban,
		"set_group_whole_ban":       (*world).wholeBan,
		"set_group_admin":           (*world).setAdmin,
		"set_group_card":            (*world).setCard,
		"set_group_special_title":   (*world).setTitle,
		"set_group_name":            (*world).setName,
		"set_group_leave":           (*world).leave,
		"send_group_msg":            func(w *world, p *params) (any, [][]byte, *Reply) { return w.send(p, "group") },
		"send_private_msg":          func(w *world, p *params) (any, [][]byte, *Reply) { return w.send(p, "private") },
		"send_msg":                  func(w *world, p *params) (any, [][]byte, *Reply) { return w.send(p, "") },
		"get_msg":                   (*world).getMsg,
		"delete_msg":                (*world).recall,
		"get_group_msg_history":     func(w *world, p *params) (any, [][]byte, *Reply) { return w.history(p, true) },
		"get_friend_msg_history":    func(w *world, p *params) (any, [][]byte, *Reply) { return w.history(p, false) },
		"get_group_root_files":      func(w *world, p *params) (any, [][]byte, *Reply) { return w.listFiles(p, true) },
		"get_group_files_by_folder": func(w *world, p *params) (any, [][]byte, *Reply) { return w.listFiles(p, false) },
		"get_group_file_url":        (*world).fileURL,
		"get_group_file_system_info": func(w *world, p *params) (any, [][]byte, *Reply) {
			g, fail := w.joined(p)
			if fail != nil {
				return nil, nil, fail
			}
			return map[string]int64{"file_count": int64(len(g.files)), "limit_count": 10000, "used_space": 0, "total_space": 10 << 30}, nil, nil
		},
		"create_group_file_folder": (*world).createFolder,
		"delete_group_folder":      (*world).deleteFolder,
		"delete_group_file_folder": (*world).deleteFolder,
		"delete_group_file":        (*world).deleteFile,
		"upload_group_file":        func(w *world, p *params) (any, [][]byte, *Reply) { return w.uploadFile(s, p, true) },
		"upload_private_file":      func(w *world, p *params) (any, [][]byte, *Reply) { return w.uploadFile(s, p, false) },
		"clean_stream_temp_file": func(*world, *params) (any, [][]byte, *Reply) {
			return map[string]any{"message": "success", "removed": 0}, nil, nil
		},
	}
	acts["get_group_ignore_add_request"] = (*world).ignoredRequests
	// Actions QQ accepts without anything the world keeps: they answer as
	// SnowLuma does once QQ said yes.
	for _, name := range strings.Fields("mark_msg_as_read mark_group_msg_as_read mark_private_msg_as_read " +
		"send_like friend_poke group_poke send_poke set_online_status set_diy_online_status set_qq_profile " +
		"set_msg_emoji_like set_group_reaction set_group_remark") {
		acts[name] = accepted(nil)
	}
	for _, name := range strings.Fields("set_input_status set_self_longnick set_group_sign") {
		acts[name] = accepted(map[string]any{})
	}
	h := make(map[string]Handler, len(acts))
	for name, f := range acts {
		h[name] = s.inWorld(f)
	}
	for _, name := range []string{"send_group_msg", "send_msg"} {
		h[name] = s.relaying(h[name])
	}
	return h
}

// WorldActions lists the actions a fake with a world simulates, sorted.
// The stream actions of the plain fake come on top.
func WorldActions() []string {
	s := &Server{world: newWorld(0, time.Now())}
	names := make([]string, 0, 80)
	for name := range s.worldHandlers() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// accepted is an action that changes nothing the world keeps.
func accepted(data any) worldFunc {
	return func(*world, *params) (any, [][]byte, *Reply) { return data, nil, nil }
}

func yes(*world, *params) (any, [][]byte, *Reply) { return map[string]bool{"yes": true}, nil, nil }

// notice builds a notice event of the account.
func (w *world) notice(fields map[string]any) []byte {
	fields["time"] = now()
	fields["self_id"] = w.self
	fields["post_type"] = "notice"
	return encode(fields)
}

func (w *world) friendList(*params) (any, [][]byte, *Reply) {
	out := []map[string]any{}
	for _, id := range w.friends {
		p := w.people[id]
		out = append(out, map[string]any{"user_id": p.id, "nickname": p.nickname, "remark": p.remark})
	}
	return out, nil, nil
}

func (w *world) strangerInfo(p *params) (any, [][]byte, *Reply) {
	id := p.id("user_id")
	who := w.people[id]
	if id == w.self {
		who = &person{id: w.self, nickname: w.nickname, sex: "unknown", level: 32}
	}
	if who == nil {
		return map[string]any{"user_id": id, "nickname": "", "sex": "unknown", "age": 0}, nil, nil
	}
	return map[string]any{"user_id": who.id, "nickname": who.nickname, "sex": who.sex, "age": who.age,
		"qq_level": who.level, "level": who.level}, nil, nil
}

func (w *world) deleteFriend(p *params) (any, [][]byte, *Reply) {
	id := p.id("user_id")
	p.bool("block", false)
	i := slices.Index(w.friends, id)
	if p.err != "" {
		return nil, nil, nil
	}
	if i < 0 {
		return nil, nil, failure(fmt.Sprintf("%d is not a friend of this account", id))
	}
	w.friends = slices.Delete(w.friends, i, i+1)
	return nil, nil, nil
}

func (w *world) setFriendRemark(p *params) (any, [][]byte, *Reply) {
	id := p.id("user_id")
	remark := p.str("remark", "")
	if p.err != "" {
		return nil, nil, nil
	}
	if !w.isFriend(id) {
		return nil, nil, failure(fmt.Sprintf("%d is not a friend of this account", id))
	}
	w.people[id].remark = remark
	return nil, nil, nil
}

// groupEntry is a group as the group actions answer it.
func groupEntry(g *group) map[string]any {
	return map[string]any{"group_id": g.id, "group_name": g.name, "member_count": len(g.members), "max_member_count": g.max}
}

func (w *world) groupList(p *params) (any, [][]byte, *Reply) {
	p.bool("no_cache", false)
	out := []map[string]any{}
	for _, g := range w.groups {
		out = append(out, groupEntry(g))
	}
	return out, nil, nil
}

func (w *world) groupInfo(p *params) (any, [][]byte, *Reply) {
	id := p.id("group_id")
	p.bool("no_cache", false)
	if g := w.groupByID(id); g != nil {
		return groupEntry(g), nil, nil
	}
	return map[string]any{"group_id": id, "group_name": "", "member_count": 0, "max_member_count": 0}, nil, nil
}

// groupInfoOrNull answers null for a group the account is not in, as
// SnowLuma does when QQ's lookup by number finds nothing.
func (w *world) groupInfoOrNull(p *params) (any, [][]byte, *Reply) {
	if g := w.groupByID(p.id("group_id")); g != nil {
		return groupEntry(g), nil, nil
	}
	return nil, nil, nil
}

// memberEntry is a member as the member actions answer it.
func memberEntry(g *group, m *member) map[string]any {
	return map[string]any{"group_id": g.id, "user_id": m.id, "nickname": m.nickname, "card": m.card,
		"sex": "unknown", "age": 0, "join_time": m.joinTime, "last_sent_time": m.lastSent,
		"level": strconv.Itoa(m.level), "role": m.role, "title": m.title}
}

func (w *world) memberList(p *params) (any, [][]byte, *Reply) {
	g := w.groupByID(p.id("group_id"))
	p.bool("no_cache", false)
	out := []map[string]any{}
	if g != nil {
		for _, m := range g.members {
			out = append(out, memberEntry(g, m))
		}
	}
	return out, nil, nil
}

func (w *world) memberInfo(p *params) (any, [][]byte, *Reply) {
	gid, uid := p.id("group_id"), p.id("user_id")
	p.bool("no_cache", false)
	if g := w.groupByID(gid); g != nil {
		if m := g.member(uid); m != nil {
			return memberEntry(g, m), nil, nil
		}
	}
	return map[string]any{"group_id": gid, "user_id": uid, "nickname": "", "card": "", "sex": "unknown", "age": 0,
		"join_time": 0, "last_sent_time": 0, "level": "0", "role": "member", "title": ""}, nil, nil
}

// joined reads group_id and returns that group, or QQ's refusal when the
// account is not in it.
func (w *world) joined(p *params) (*group, *Reply) {
	id := p.id("group_id")
	if p.err != "" {
		return nil, p.failed()
	}
	g := w.groupByID(id)
	if g == nil {
		return nil, failure(fmt.Sprintf("group %d not found: the account is not a member", id))
	}
	return g, nil
}

func (w *world) shutList(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	if fail != nil {
		return nil, nil, fail
	}
	out := []map[string]any{}
	t := now()
	for _, m := range g.members {
		if m.shutEnd > t {
			out = append(out, map[string]any{"user_id": m.id, "nickname": m.nickname, "shut_up_time": m.shutEnd})
		}
	}
	return out, nil, nil
}

func (w *world) atAllRemain(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	if fail != nil {
		return nil, nil, fail
	}
	can := g.member(w.self).role != "member"
	left := 0
	if can {
		left = 10
	}
	return map[string]any{"can_at_all": can, "remain_at_all_count_for_group": left, "remain_at_all_count_for_uin": left}, nil, nil
}

func (w *world) honorInfo(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	if fail != nil {
		return nil, nil, fail
	}
	kind := p.str("type", "all")
	if kind == "" {
		kind = "all"
	}
	if !slices.Contains([]string{"talkative", "performer", "legend", "emotion", "all"}, kind) {
		r := Failed(1400, "invalid type, must be one of talkative, performer, legend, emotion, all")
		return nil, nil, &r
	}
	// The talkative honour goes to whoever said most in the history.
	said := map[int64]int{}
	for _, id := range w.byPeer[peer{true, g.id}] {
		if m := w.messages[id]; !m.recalled && m.sender != w.self {
			said[m.sender]++
		}
	}
	var top *member
	for _, m := range g.members {
		if said[m.id] > 0 && (top == nil || said[m.id] > said[top.id]) {
			top = m
		}
	}
	out := map[string]any{"group_id": g.id, "current_talkative": nil, "talkative_list": []any{},
		"performer_list": []any{}, "legend_list": []any{}, "emotion_list": []any{}, "strong_newbie_list": []any{}}
	if top != nil && (kind == "all" || kind == "talkative") {
		h := map[string]any{"user_id": top.id, "nickname": top.nickname,
			"avatar": fmt.Sprintf("%s/avatar/%d.png", sandboxHost, top.id), "description": "连续发言最多"}
		out["current_talkative"] = h
		out["talkative_list"] = []any{h}
	}
	return out, nil, nil
}

func (w *world) systemMessages(*params) (any, [][]byte, *Reply) {
	out := []map[string]any{}
	for _, r := range w.joins {
		// SnowLuma 1.11.1 does not resolve the requester's number, and
		// its flag here starts with QQ's numeric event type.
		out = append(out, map[string]any{"group_id": r.group.id, "group_name": r.group.name, "request_id": r.seq,
			"requester_uin": 0, "requester_nick": r.who.nickname, "message": r.comment,
			"flag": fmt.Sprintf("1:%d:%s", r.group.id, r.who.uid)})
	}
	return out, nil, nil
}

// ignoredRequests lists the join requests QQ filtered, in the shape
// SnowLuma's get_group_ignore_add_request gives them: a request to join
// has no inviter, and an unhandled one no actor.
func (w *world) ignoredRequests(*params) (any, [][]byte, *Reply) {
	out := []map[string]any{}
	for _, r := range w.ignored {
		out = append(out, map[string]any{"request_id": r.seq, "invitor_uin": 0, "invitor_nick": "",
			"group_id": r.group.id, "message": r.comment, "group_name": r.group.name, "checked": false,
			"actor": 0, "requester_nick": r.who.nickname})
	}
	return out, nil, nil
}

// answerJoin follows SnowLuma's reading of a group request flag
// (<type>:<group>:<uid>): the request of that uid in that group, else any
// request of that group.
func (w *world) answerJoin(p *params) (any, [][]byte, *Reply) {
	flag := p.nonEmpty("flag")
	approve := p.bool("approve", true)
	p.str("reason", "")
	if p.err != "" {
		return nil, nil, nil
	}
	parts := strings.SplitN(flag, ":", 3)
	if len(parts) < 3 {
		return nil, nil, failure("invalid group request flag")
	}
	gid, _ := strconv.ParseInt(parts[1], 10, 64)
	if gid == 0 {
		return nil, nil, failure("invalid group_id in flag")
	}
	i := slices.IndexFunc(w.joins, func(r *joinRequest) bool { return r.group.id == gid && r.who.uid == parts[2] })
	if i < 0 {
		i = slices.IndexFunc(w.joins, func(r *joinRequest) bool { return r.group.id == gid })
	}
	if i < 0 {
		return nil, nil, failure("matching group request not found")
	}
	r := w.joins[i]
	w.joins = slices.Delete(w.joins, i, i+1)
	if !approve {
		return nil, nil, nil
	}
	r.group.members = append(r.group.members, &member{person: r.who, role: "member", joinTime: now(), level: 1})
	return nil, [][]byte{w.notice(map[string]any{"notice_type": "group_increase", "sub_type": "approve",
		"group_id": r.group.id, "operator_id": w.self, "user_id": r.who.id})}, nil
}

func (w *world) answerFriend(p *params) (any, [][]byte, *Reply) {
	flag := p.nonEmpty("flag")
	approve := p.bool("approve", true)
	remark := p.str("remark", "")
	if p.err != "" {
		return nil, nil, nil
	}
	i := slices.IndexFunc(w.friendRq, func(r *friendRequest) bool { return r.flag == flag })
	if i < 0 {
		return nil, nil, failure("friend request not found")
	}
	r := w.friendRq[i]
	w.friendRq = slices.Delete(w.friendRq, i, i+1)
	if !approve {
		return nil, nil, nil
	}
	r.who.remark = remark
	w.friends = append(w.friends, r.who.id)
	return nil, [][]byte{w.notice(map[string]any{"notice_type": "friend_add", "user_id": r.who.id})}, nil
}

// rank orders roles by power.
func rank(role string) int {
	switch role {
	case "owner":
		return 2
	case "admin":
		return 1
	}
	return 0
}

// over checks that the bot may manage user in g: QQ lets an owner manage
// admins and members, and an admin manage members.
func (w *world) over(g *group, user int64) (*member, *Reply) {
	m := g.member(user)
	if m == nil {
		return nil, failure(fmt.Sprintf("%d is not a member of group %d", user, g.id))
	}
	if user == w.self {
		return nil, failure("the account cannot do this to itself")
	}
	if rank(g.member(w.self).role) <= rank(m.role) {
		return nil, failure(fmt.Sprintf("no permission: the account is %s of group %d and %d is %s",
			g.member(w.self).role, g.id, user, m.role))
	}
	return m, nil
}

// needRole checks that the bot holds at least role in g.
func (w *world) needRole(g *group, role string) *Reply {
	if have := g.member(w.self).role; rank(have) < rank(role) {
		return failure(fmt.Sprintf("no permission: this needs %s of group %d, the account is %s", role, g.id, have))
	}
	return nil
}

func (w *world) kick(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	uid := p.id("user_id")
	p.bool("reject_add_request", false)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	ev, fail := w.remove(g, uid)
	if fail != nil {
		return nil, nil, fail
	}
	return nil, [][]byte{ev}, nil
}

// remove takes user out of g, as a kick by the bot.
func (w *world) remove(g *group, user int64) ([]byte, *Reply) {
	m, fail := w.over(g, user)
	if fail != nil {
		return nil, fail
	}
	g.members = slices.DeleteFunc(g.members, func(x *member) bool { return x == m })
	return w.notice(map[string]any{"notice_type": "group_decrease", "sub_type": "kick",
		"group_id": g.id, "operator_id": w.self, "user_id": user}), nil
}

func (w *world) kickMembers(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	users := p.ids("user_id")
	p.bool("reject_add_request", false)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	for _, u := range users {
		if _, fail := w.over(g, u); fail != nil {
			return nil, nil, fail
		}
	}
	var events [][]byte
	for _, u := range users {
		ev, _ := w.remove(g, u)
		events = append(events, ev)
	}
	return nil, events, nil
}

func (w *world) ban(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	uid := p.id("user_id")
	d := p.int("duration", 1800)
	if p.err == "" && d < 0 {
		p.fail("duration", "must be >= 0")
	}
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	m, fail := w.over(g, uid)
	if fail != nil {
		return nil, nil, fail
	}
	sub := "lift_ban"
	m.shutEnd = 0
	if d > 0 {
		sub, m.shutEnd = "ban", now()+d
	}
	return nil, [][]byte{w.notice(map[string]any{"notice_type": "group_ban", "sub_type": sub, "group_id": g.id,
		"operator_id": w.self, "user_id": uid, "duration": d})}, nil
}

func (w *world) wholeBan(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	on := p.bool("enable", true)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if fail := w.needRole(g, "admin"); fail != nil {
		return nil, nil, fail
	}
	g.wholeBan = on
	return nil, nil, nil
}

func (w *world) setAdmin(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	uid := p.id("user_id")
	on := p.bool("enable", true)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if fail := w.needRole(g, "owner"); fail != nil {
		return nil, nil, fail
	}
	m, fail := w.over(g, uid)
	if fail != nil {
		return nil, nil, fail
	}
	sub := "unset"
	m.role = "member"
	if on {
		sub, m.role = "set", "admin"
	}
	sortMembers(g.members)
	return nil, [][]byte{w.notice(map[string]any{"notice_type": "group_admin", "sub_type": sub, "group_id": g.id, "user_id": uid})}, nil
}

func (w *world) setCard(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	uid := p.id("user_id")
	card := p.str("card", "")
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	m := g.member(uid)
	if uid != w.self {
		if m, fail = w.over(g, uid); fail != nil {
			return nil, nil, fail
		}
	}
	m.card = card
	return nil, nil, nil
}

func (w *world) setTitle(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	uid := p.id("user_id")
	title := p.str("special_title", "")
	p.int("duration", -1)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if fail := w.needRole(g, "owner"); fail != nil {
		return nil, nil, fail
	}
	m := g.member(uid)
	if m == nil {
		return nil, nil, failure(fmt.Sprintf("%d is not a member of group %d", uid, g.id))
	}
	m.title = title
	return nil, nil, nil
}

func (w *world) setName(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	name := p.nonEmpty("group_name")
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if fail := w.needRole(g, "admin"); fail != nil {
		return nil, nil, fail
	}
	g.name = name
	return nil, nil, nil
}

func (w *world) leave(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	dismiss := p.bool("is_dismiss", false)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if g.member(w.self).role == "owner" && !dismiss {
		return nil, nil, failure("the account owns this group: set is_dismiss to disband it")
	}
	w.groups = slices.DeleteFunc(w.groups, func(x *group) bool { return x == g })
	return nil, nil, nil
}

// send stores a message from the bot, and announces it as message_sent
// when the world reports the bot's own messages.
// kind is "group", "private" or "" (send_msg: from message_type, else
// from which id is given).
func (w *world) send(p *params, kind string) (any, [][]byte, *Reply) {
	if kind == "" {
		// send_msg (actions/message.ts): the group when message_type is
		// "group" or a group_id is present, whatever else message_type
		// says; else the user_id's private chat.
		kind = "private"
		if p.str("message_type", "") == "group" || p.has("group_id") {
			kind = "group"
		}
	}
	var to peer
	if kind == "group" {
		to = peer{true, p.id("group_id")}
	} else {
		to = peer{false, p.id("user_id")}
	}
	segs, err := parseMessage(p.m["message"], p.bool("auto_escape", false))
	if p.err != "" {
		return nil, nil, nil
	}
	if err != nil {
		r := Failed(1400, err.Error())
		return nil, nil, &r
	}
	if to.group {
		g := w.groupByID(to.id)
		if g == nil {
			return nil, nil, failure(fmt.Sprintf("group %d not found: the account is not a member", to.id))
		}
		self := g.member(w.self)
		if self.shutEnd > now() || (g.wholeBan && self.role == "member") {
			return nil, nil, failure(fmt.Sprintf("send failed: the account is muted in group %d", g.id))
		}
		self.lastSent = now()
	} else if w.people[to.id] == nil {
		return nil, nil, failure(fmt.Sprintf("send failed: %d is not a friend or a member of a shared group", to.id))
	}
	m := w.store(to, w.self, now(), segs)
	m.selfCopy = true
	if !w.reportSelf {
		return map[string]int32{"message_id": m.id}, nil, nil
	}
	return map[string]int32{"message_id": m.id}, [][]byte{encode(w.view(m, true))}, nil
}

func (w *world) getMsg(p *params) (any, [][]byte, *Reply) {
	id := p.int("message_id")
	if p.err == "" && id == 0 {
		p.fail("message_id", "must not be 0")
	}
	if p.err != "" {
		return nil, nil, nil
	}
	m := w.messages[int32(id)]
	if m == nil || int64(m.id) != id || m.recalled {
		return nil, nil, failure("message not found")
	}
	return w.view(m, false), nil, nil
}

// recall withdraws a message: the bot's own, or one it may manage in a
// group.
func (w *world) recall(p *params) (any, [][]byte, *Reply) {
	id := p.int("message_id")
	if p.err == "" && id == 0 {
		p.fail("message_id", "must not be 0")
	}
	if p.err != "" {
		return nil, nil, nil
	}
	m := w.messages[int32(id)]
	if m == nil || int64(m.id) != id || m.recalled {
		return nil, nil, failure("message not found or not retractable")
	}
	if m.sender != w.self {
		g := w.groupByID(m.peer.id)
		if !m.peer.group || g == nil {
			return nil, nil, failure("message not found or not retractable")
		}
		if _, fail := w.over(g, m.sender); fail != nil {
			return nil, nil, fail
		}
	}
	m.recalled = true
	if m.peer.group {
		return nil, [][]byte{w.notice(map[string]any{"notice_type": "group_recall", "group_id": m.peer.id,
			"operator_id": w.self, "user_id": m.sender, "message_id": m.id})}, nil
	}
	return nil, [][]byte{w.notice(map[string]any{"notice_type": "friend_recall", "user_id": m.peer.id, "message_id": m.id})}, nil
}

// HistoryWindow is how many of a conversation's newest messages the
// history actions reach; users of QQ bot tools see about 99 with SnowLuma.
const HistoryWindow = 99

// history lists a conversation's messages up to an anchor (the newest when
// message_id is 0), oldest first, count of them (20 by default, 200 at
// most); an unknown anchor lists nothing.
func (w *world) history(p *params, group bool) (any, [][]byte, *Reply) {
	key := "user_id"
	if group {
		key = "group_id"
	}
	conv := peer{group, p.id(key)}
	anchor := p.int("message_id", 0)
	count := p.int("count", 20)
	if p.err == "" && count < 0 {
		p.fail("count", "must be >= 0")
	}
	if p.err != "" {
		return nil, nil, nil
	}
	if count == 0 || count > 200 {
		count = min(max(count, 20), 200)
	}
	ids := w.byPeer[conv]
	if len(ids) > HistoryWindow {
		// QQ's history reaches only so far back: an older anchor is
		// unknown, as SnowLuma answers it.
		ids = ids[len(ids)-HistoryWindow:]
	}
	if anchor != 0 {
		i := slices.Index(ids, int32(anchor))
		if i < 0 || int64(int32(anchor)) != anchor {
			return map[string]any{"messages": []any{}}, nil, nil
		}
		ids = ids[:i+1]
	}
	var out []messageEvent
	for k := len(ids) - 1; k >= 0 && int64(len(out)) < count; k-- {
		if m := w.messages[ids[k]]; !m.recalled {
			// SnowLuma fetches history from QQ and keeps what it
			// fetched in place of its own copy of a send.
			m.selfCopy = false
			out = append(out, w.view(m, false))
		}
	}
	slices.Reverse(out)
	if out == nil {
		out = []messageEvent{}
	}
	return map[string]any{"messages": out}, nil, nil
}

// fileEntry is a group file as the file listing actions answer it.
func (w *world) fileEntry(g *group, f *groupFile) map[string]any {
	return map[string]any{"group_id": g.id, "file_id": f.id, "file_name": f.name, "busid": f.busid,
		"file_size": f.size, "upload_time": f.uploaded, "dead_time": 0, "modify_time": f.uploaded,
		"download_times": f.times, "uploader": f.uploader, "uploader_name": w.nicknameOf(f.uploader)}
}

func (w *world) listFiles(p *params, root bool) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	folder := "/"
	if !root {
		folder = p.str("folder_id", "")
		if folder == "" {
			folder = p.str("folder", "")
		}
		if folder == "" {
			folder = "/"
		}
	}
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if folder != "/" && !slices.ContainsFunc(g.folders, func(x *groupFolder) bool { return x.id == folder }) {
		return nil, nil, failure("folder not found: " + folder)
	}
	files, folders := []map[string]any{}, []map[string]any{}
	for _, f := range g.files {
		if f.folder == folder {
			files = append(files, w.fileEntry(g, f))
		}
	}
	if folder == "/" {
		for _, d := range g.folders {
			n := 0
			for _, f := range g.files {
				if f.folder == d.id {
					n++
				}
			}
			folders = append(folders, map[string]any{"group_id": g.id, "folder_id": d.id, "folder_name": d.name,
				"create_time": d.created, "creator": d.creator, "create_name": w.nicknameOf(d.creator), "total_file_count": n})
		}
	}
	return map[string]any{"files": files, "folders": folders}, nil, nil
}

// file reads group_id and file_id and returns that file.
func (w *world) file(p *params) (*group, *groupFile, *Reply) {
	g, fail := w.joined(p)
	id := p.nonEmpty("file_id")
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	i := slices.IndexFunc(g.files, func(f *groupFile) bool { return f.id == id })
	if i < 0 {
		return nil, nil, failure("file not found: " + id)
	}
	return g, g.files[i], nil
}

func (w *world) fileURL(p *params) (any, [][]byte, *Reply) {
	g, f, fail := w.file(p)
	if fail != nil {
		return nil, nil, fail
	}
	// As SnowLuma's link, whose fname is the file id, not its name
	// (packages/core/src/bridge/apis/group-file.ts).
	return map[string]string{"url": fmt.Sprintf("%s/group/%d/file%s?fname=%s", sandboxHost, g.id, f.id, f.id)}, nil, nil
}

func (w *world) deleteFile(p *params) (any, [][]byte, *Reply) {
	g, f, fail := w.file(p)
	if fail != nil {
		return nil, nil, fail
	}
	if f.uploader != w.self {
		if fail := w.needRole(g, "admin"); fail != nil {
			return nil, nil, fail
		}
	}
	g.files = slices.DeleteFunc(g.files, func(x *groupFile) bool { return x == f })
	return nil, nil, nil
}

func (w *world) createFolder(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	name := p.nonEmpty("name")
	parent := p.str("parent_id", "/")
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if parent != "/" {
		return nil, nil, failure("QQ group files have one level of folders: parent_id must be /")
	}
	if fail := w.needRole(g, "admin"); fail != nil {
		return nil, nil, fail
	}
	g.folders = append(g.folders, &groupFolder{id: "/" + w.fileUUID(w.ids), name: name, created: now(), creator: w.self})
	return nil, nil, nil
}

func (w *world) deleteFolder(p *params) (any, [][]byte, *Reply) {
	g, fail := w.joined(p)
	id := p.nonEmpty("folder_id")
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if !slices.ContainsFunc(g.folders, func(x *groupFolder) bool { return x.id == id }) {
		return nil, nil, failure("folder not found: " + id)
	}
	if fail := w.needRole(g, "admin"); fail != nil {
		return nil, nil, fail
	}
	g.folders = slices.DeleteFunc(g.folders, func(x *groupFolder) bool { return x.id == id })
	g.files = slices.DeleteFunc(g.files, func(x *groupFile) bool { return x.folder == id })
	return nil, nil, nil
}

// uploadFile puts a file into a group's files (or sends it to a friend).
// The file is one SnowLuma can read on its own host: a file merged by
// upload_file_stream, or base64:// data.
func (w *world) uploadFile(s *Server, p *params, toGroup bool) (any, [][]byte, *Reply) {
	var g *group
	var fail *Reply
	var friend int64
	if toGroup {
		g, fail = w.joined(p)
	} else {
		friend = p.id("user_id")
	}
	src := p.nonEmpty("file")
	name := p.str("name", "")
	folder := "/"
	if toGroup {
		if f := p.str("folder_id", ""); f != "" {
			folder = f
		} else if f := p.str("folder", ""); f != "" {
			folder = f
		}
	}
	p.bool("upload_file", true)
	if fail != nil || p.err != "" {
		return nil, nil, fail
	}
	if !toGroup && !w.isFriend(friend) {
		return nil, nil, failure(fmt.Sprintf("%d is not a friend of this account", friend))
	}
	if toGroup && folder != "/" && !slices.ContainsFunc(g.folders, func(x *groupFolder) bool { return x.id == folder }) {
		return nil, nil, failure("folder not found: " + folder)
	}
	data, base, fail := s.readHostFile(src)
	if fail != nil {
		return nil, nil, fail
	}
	if name == "" {
		name = base
	}
	f := &groupFile{id: "/" + w.fileUUID(w.ids), name: name, folder: folder, size: int64(len(data)),
		uploaded: now(), uploader: w.self, busid: 102}
	s.AddFile(f.id, File{Name: f.name, Data: data})
	if !toGroup {
		return map[string]string{"file_id": f.id}, nil, nil
	}
	g.files = append(g.files, f)
	return map[string]string{"file_id": f.id}, [][]byte{w.notice(map[string]any{"notice_type": "group_upload",
		"group_id": g.id, "user_id": w.self,
		"file": map[string]any{"id": f.id, "name": f.name, "size": f.size, "busid": f.busid}})}, nil
}

// readHostFile reads a file the way SnowLuma reads one on its own host:
// base64:// data, or (the only files this host has) a file merged by
// upload_file_stream, by its path with or without file://.
func (s *Server) readHostFile(src string) ([]byte, string, *Reply) {
	if b64, ok := strings.CutPrefix(src, "base64://"); ok {
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, "", failure("file: base64:// data is not valid base64")
		}
		if len(data) > maxWorldUpload {
			return nil, "", failure(fmt.Sprintf("file: the sandbox keeps files up to %d MiB", maxWorldUpload>>20))
		}
		return data, "file", nil
	}
	path := strings.TrimPrefix(src, "file://")
	s.mu.Lock()
	i := slices.IndexFunc(s.files.done, func(u Uploaded) bool { return u.Path == path })
	var up Uploaded
	if i >= 0 {
		up = s.files.done[i]
	}
	s.mu.Unlock()
	if i < 0 {
		return nil, "", failure("file not found on the SnowLuma host: upload it with upload_file_stream first and pass its file_path")
	}
	if up.Size > maxWorldUpload {
		return nil, "", failure(fmt.Sprintf("file: the sandbox keeps files up to %d MiB", maxWorldUpload>>20))
	}
	data, err := os.ReadFile(up.Path)
	if err != nil {
		return nil, "", failure("file could not be read on the SnowLuma host")
	}
	base := up.Path[strings.LastIndexAny(up.Path, `/\`)+1:]
	if _, after, ok := strings.Cut(base, "__"); ok {
		base = after
	}
	return data, base, nil
}
