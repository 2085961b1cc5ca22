package simulator

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// A world is a small simulated QQ account behind the fake: the bot's own
// profile, its friends, a few groups with their members, message history,
// group files and pending requests. Actions read and change it the way
// SnowLuma would relay them to QQ; what it changes is pushed to the event
// connections as SnowLuma pushes QQ's own events. Everything in it comes
// from one seed, so that the same seed gives the same world.
//
// It is the engine of `snowluma-mcp sandbox` and of tests that need a
// believable account rather than one scripted answer.
type world struct {
	mu sync.Mutex

	seed  uint64
	build *rand.Rand // draws made while building the world
	ids   *rand.Rand // message ids, request sequences and uids, in order of use
	talk  *rand.Rand // the trickle's content

	self     int64  // the account: SelfID unless WithSelfID names another
	nickname string // the bot's
	people   map[int64]*person
	friends  []int64
	groups   []*group
	messages map[int32]*message // by message id
	byPeer   map[peer][]int32   // each conversation's ids, oldest first
	seq      map[peer]int64     // each conversation's last message_seq
	joins    []*joinRequest     // pending group join requests
	friendRq []*friendRequest   // pending friend requests
	ignored  []*joinRequest     // join requests QQ filtered as risky
	tick     int                // trickle steps taken
	epoch    int64              // the world's "now" for its history, Unix seconds
	// deco draws how chat lines are dressed (an @, a reply, a face), apart
	// from the draws that build the rest, so that dressing them changes
	// nothing else of a seed's world.
	deco *rand.Rand
	// reportSelf pushes the bot's own sends as message_sent, as SnowLuma
	// does with reportSelfMessage on; its default is off.
	reportSelf bool
	grown      bool // the busy world's size (grow)
	// imported is a group this world holds from another account's
	// (Share): its members speak in the other world, and reach this one
	// through it.
	imported int64
	// said is the group message the last step stored, for Share's relay.
	said *message
}

// person is someone the account knows: a friend, a member of a group, or a
// stranger who asks to join.
type person struct {
	id       int64
	uid      string // QQ's opaque user id, as request flags carry it
	nickname string
	remark   string // the account's remark when a friend
	sex      string
	age      int
	level    int
}

// group is a group the account is in.
type group struct {
	id       int64
	name     string
	max      int
	members  []*member // owner first, then admins, then members
	wholeBan bool
	files    []*groupFile
	folders  []*groupFolder
}

// member is a person's place in one group.
type member struct {
	*person
	card     string
	title    string
	role     string // owner, admin or member
	joinTime int64
	lastSent int64
	level    int
	shutEnd  int64 // Unix seconds when a mute ends; 0 when not muted
}

// groupFile is a file in a group's file area; its bytes are served by the
// download stream actions under id.
type groupFile struct {
	id       string
	name     string
	folder   string // "/" for the root, else a folder id
	size     int64
	uploaded int64
	uploader int64
	busid    int
	times    int
}

// groupFolder is a folder in a group's file area.
type groupFolder struct {
	id      string
	name    string
	created int64
	creator int64
}

// peer names a conversation: a group, or a friend (group false).
type peer struct {
	group bool
	id    int64
}

// message is one stored message, sent or received.
type message struct {
	id       int32
	seq      int64
	time     int64
	peer     peer
	sender   int64
	segments []segment
	recalled bool
	// selfCopy marks a send of the bot through this world, which SnowLuma
	// keeps as its own synthetic copy (a sender of user_id, an empty
	// nickname, sex and age only; target_id for a private one) until a
	// history fetch replaces it with QQ's converted message.
	selfCopy bool
}

// joinRequest is a pending request to join a group.
type joinRequest struct {
	seq     int64
	group   *group
	who     *person
	comment string
}

// friendRequest is a pending friend request.
type friendRequest struct {
	flag    string
	who     *person
	comment string
}

// The words the world is made of, each list separated by "|".
const worldGroupNames = "雪原技术交流群|周末登山小分队|三年二班同学会|猫咪互助领养群|开源翻译志愿者|深夜食堂吃货群"

const worldNicknames = "小雪|阿杰|林间风|橘子汽水|老王|晴天|momo|柚子|大熊|夏至|木木|北极星|阿May|土豆|七七|陈工|小鱼干|路人甲|Kevin|青柠|半夏|听雨|阿飞|糯米团|周周"

const worldBotNames = "雪露小助手|小雪机器人|雪灵 Bot"

const worldTitles = "话痨|技术大佬|潜水员|摄影师|活动组织|夜猫子"

const worldCardPrefixes = "[北京]|[上海]|[深圳]|运维-|前端-|学生-"

// worldLines are the chat lines the world's members say, in history and in
// the trickle.
const worldLines = "早上好～|今晚谁有空一起开黑？|这个 bug 我复现了，明天提 issue|收到|哈哈哈哈哈|周六早上八点地铁站集合，别迟到|有人知道 WebSocket 怎么配置吗|资料已经传到群文件了|@全体成员 记得周五前交报名表|刚下班，累死了|这家店的麻辣烫真的绝|谁还有多余的充电宝|猫粮到了，需要的私聊我|新版本发布了，大家更新一下|明天下雨，活动改到室内|+1|求推荐一本入门的书|好的，我晚点看看|图片太糊了，能再发一张吗|辛苦啦！"

const worldJoinComments = "你好，想加群学习一下|朋友推荐来的|我是新来的同事|看到活动海报来的"

// historyEnd is how long before the world is built its history ends: its
// latest messages are ten minutes old, so that a digest of the last
// hours, or of today, finds them beside what arrives live.
const historyEnd = 10 * time.Minute

// newWorld builds the world of seed, its history dated back from now.
func newWorld(seed uint64, now time.Time) *world {
	return newWorldOf(seed, now, SelfID)
}

// newWorldOf is newWorld with self as the account: the same seed gives
// the same people, groups and history whatever the account's number.
func newWorldOf(seed uint64, now time.Time, account int64) *world {
	w := &world{
		self:     account,
		seed:     seed,
		build:    rand.New(rand.NewPCG(seed, 0x5eed0001)),
		ids:      rand.New(rand.NewPCG(seed, 0x5eed0002)),
		talk:     rand.New(rand.NewPCG(seed, 0x5eed0003)),
		deco:     rand.New(rand.NewPCG(seed, 0x5eed0005)),
		people:   map[int64]*person{},
		messages: map[int32]*message{},
		byPeer:   map[peer][]int32{},
		seq:      map[peer]int64{},
		// History is dated relative to now (the same seed gives the same
		// history, moved in time), as a live account's is.
		epoch: now.Add(-historyEnd).Unix(),
	}
	r := w.build
	w.nickname = pick(r, worldBotNames)

	// A population of distinct people, with distinct nicknames.
	names := strings.Split(worldNicknames, "|")
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var pop []*person
	for _, name := range names[:18] {
		pop = append(pop, w.newPerson(r, name))
	}

	// Friends: the first eight, some with a remark.
	for i, p := range pop[:8] {
		if i%3 == 0 {
			p.remark = p.nickname + "（" + []string{"同事", "同学", "室友"}[r.IntN(3)] + "）"
		}
		w.friends = append(w.friends, p.id)
	}

	// Three groups: the bot owns the first, administers the second and is
	// a plain member of the third.
	gnames := strings.Split(worldGroupNames, "|")
	r.Shuffle(len(gnames), func(i, j int) { gnames[i], gnames[j] = gnames[j], gnames[i] })
	self := &person{id: w.self, uid: "u_" + w.uidTail(r), nickname: w.nickname, sex: "unknown", level: 32}
	for gi, botRole := range []string{"owner", "admin", "member"} {
		g := &group{id: int64(100000000 + r.IntN(899999999)), name: gnames[gi], max: []int{200, 500, 2000}[r.IntN(3)]}
		for w.groupByID(g.id) != nil {
			g.id++
		}
		picked := slices.Clone(pop)
		r.Shuffle(len(picked), func(i, j int) { picked[i], picked[j] = picked[j], picked[i] })
		picked = picked[:7+r.IntN(4)]
		// Roles: the bot's, then an owner when the bot is not one, two
		// admins in all, the rest members.
		var roles []string
		switch botRole {
		case "owner":
			roles = []string{"admin", "admin"}
		case "admin":
			roles = []string{"owner", "admin"}
		default:
			roles = []string{"owner", "admin", "admin"}
		}
		joined := w.epoch - int64(400+r.IntN(900))*86400
		g.members = append(g.members, w.newMember(r, self, botRole, joined))
		for i, p := range picked {
			role := "member"
			if i < len(roles) {
				role = roles[i]
			}
			g.members = append(g.members, w.newMember(r, p, role, joined+int64(r.IntN(300))*86400))
		}
		sortMembers(g.members)
		w.seedFiles(r, g)
		w.groups = append(w.groups, g)
	}

	// History: a dozen messages in each group and a few with each of
	// three friends, oldest first, spread over the last hours: drawn
	// first, then laid out so that each conversation's latest message is
	// at the epoch.
	type line struct {
		gap  int64
		from int64
		text string
		m    *member
	}
	layout := func(p peer, lines []line) {
		at := w.epoch
		for _, l := range lines[1:] {
			at -= l.gap
		}
		for i, l := range lines {
			if i > 0 {
				at += l.gap
			}
			w.store(p, l.from, at, w.chatLine(p, l.text))
			if l.m != nil {
				l.m.lastSent = at
			}
		}
	}
	for _, g := range w.groups {
		var lines []line
		for range 10 + r.IntN(5) {
			gap := int64(60 + r.IntN(1500))
			m := g.members[r.IntN(len(g.members))]
			lines = append(lines, line{gap: gap, from: m.id, text: pick(r, worldLines), m: m})
		}
		layout(peer{true, g.id}, lines)
	}
	for _, id := range w.friends[:3] {
		var lines []line
		for k := range 3 + r.IntN(3) {
			gap := int64(120 + r.IntN(2400))
			from := id
			if k%2 == 1 {
				from = w.self
			}
			lines = append(lines, line{gap: gap, from: from, text: pick(r, worldLines)})
		}
		layout(peer{false, id}, lines)
	}

	// A pending request to join the group the bot owns, from a stranger,
	// and a pending friend request.
	stranger := w.newPerson(r, names[18])
	w.joins = append(w.joins, &joinRequest{seq: w.newSeq(), group: w.groups[0], who: stranger,
		comment: pick(r, worldJoinComments)})
	asker := w.newPerson(r, names[19])
	w.friendRq = append(w.friendRq, &friendRequest{flag: fmt.Sprintf("%d|%d", asker.id, w.newSeq()), who: asker, comment: "加个好友，一起爬山"})

	// A request to join the owned group that QQ filtered as risky: it
	// shows in get_group_ignore_add_request only. Drawn from deco, after
	// everything else, so that the rest of the world stays as it was.
	risky := w.newPerson(w.deco, "新用户"+fmt.Sprint(1000+w.deco.IntN(9000)))
	w.ignored = append(w.ignored, &joinRequest{seq: int64(1000000 + w.deco.IntN(9000000)), group: w.groups[0], who: risky,
		comment: "加群领福利"})
	w.seedMedia() // media.go: pictures and a voice message to look at
	return w
}

// newPerson makes a person with a fresh QQ number.
func (w *world) newPerson(r *rand.Rand, name string) *person {
	var id int64
	for id == 0 || id == w.self || w.people[id] != nil {
		id = int64(10000000 + r.IntN(3000000000))
	}
	p := &person{id: id, uid: "u_" + w.uidTail(r), nickname: name,
		sex: []string{"male", "female", "unknown"}[r.IntN(3)], age: 16 + r.IntN(30), level: 1 + r.IntN(64)}
	w.people[id] = p
	return p
}

// uidTail is the random part of a QQ uid.
func (w *world) uidTail(r *rand.Rand) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
	b := make([]byte, 22)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// newMember places p in a group with role.
func (w *world) newMember(r *rand.Rand, p *person, role string, joined int64) *member {
	m := &member{person: p, role: role, joinTime: joined, level: 1 + r.IntN(80)}
	switch r.IntN(3) {
	case 0:
		m.card = pick(r, worldCardPrefixes) + p.nickname
	case 1:
		m.card = p.nickname
	}
	if role != "member" || r.IntN(3) == 0 {
		m.title = pick(r, worldTitles)
	}
	return m
}

// sortMembers orders a member list as QQ lists it: owner, admins, members,
// each by join time.
func sortMembers(ms []*member) {
	rank := map[string]int{"owner": 0, "admin": 1, "member": 2}
	slices.SortStableFunc(ms, func(a, b *member) int {
		if d := rank[a.role] - rank[b.role]; d != 0 {
			return d
		}
		switch {
		case a.joinTime < b.joinTime:
			return -1
		case a.joinTime > b.joinTime:
			return 1
		}
		return 0
	})
}

// seedFiles gives a group its files: a text file and a picture at the
// root, and a folder holding a schedule.
func (w *world) seedFiles(r *rand.Rand, g *group) {
	up := g.members[r.IntN(len(g.members))]
	folder := &groupFolder{id: "/" + w.fileUUID(r), name: "活动资料", created: w.epoch - 30*86400, creator: up.id}
	g.folders = append(g.folders, folder)
	for _, f := range []struct{ name, folder string }{
		{"群规.txt", "/"}, {"合影.png", "/"}, {"周末活动安排.md", folder.id},
	} {
		g.files = append(g.files, &groupFile{id: "/" + w.fileUUID(r), name: f.name, folder: f.folder,
			uploaded: w.epoch - int64(1+r.IntN(60))*86400, uploader: up.id, busid: 102, times: r.IntN(40)})
	}
}

// fileUUID is a group file or folder id: QQ's are a slash and a UUID.
func (w *world) fileUUID(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint32()&0xffff, r.Uint64()&0xffffffffffff)
}

// fileContent is the content of a world file: text that reads as what its
// name says, or a small picture.
func (w *world) fileContent(g *group, f *groupFile) []byte {
	switch {
	case strings.HasSuffix(f.name, ".png"):
		return worldPicture(w.seed ^ uint64(g.id))
	case strings.HasSuffix(f.name, ".md"):
		return []byte("# " + g.name + " 周末活动安排\n\n- 周六 08:00 地铁站集合\n- 09:30 出发\n- 12:00 午饭（AA）\n- 16:00 返程\n\n有问题在群里说。\n")
	default:
		return []byte(g.name + " 群规\n\n1. 友善交流，不发广告。\n2. 资料请传群文件，不要刷屏。\n3. 有问题先搜聊天记录。\n4. 违规者先禁言，再犯移出。\n")
	}
}

// worldPicture is a small picture: colour bands from seed, as a PNG.
func worldPicture(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed0004))
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for band := range 4 {
		c := color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
		for y := band * 16; y < band*16+16; y++ {
			for x := range 96 {
				img.Set(x, y, c)
			}
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img) // encoding into memory does not fail
	return b.Bytes()
}

// newMessageID draws an unused, nonzero signed 32-bit message id, as
// SnowLuma's hashed ids are: often negative.
func (w *world) newMessageID() int32 {
	for {
		id := int32(w.ids.Uint32())
		if id != 0 && w.messages[id] == nil {
			return id
		}
	}
}

// newSeq draws a request sequence number.
func (w *world) newSeq() int64 { return int64(1000000 + w.ids.IntN(9000000)) }

// store adds a message to a conversation and returns it.
func (w *world) store(p peer, sender, at int64, segs []segment) *message {
	w.seq[p]++
	m := &message{id: w.newMessageID(), seq: w.seq[p], time: at, peer: p, sender: sender, segments: segs}
	w.messages[m.id] = m
	w.byPeer[p] = append(w.byPeer[p], m.id)
	return m
}

// groupByID returns the group with id, or nil.
func (w *world) groupByID(id int64) *group {
	for _, g := range w.groups {
		if g.id == id {
			return g
		}
	}
	return nil
}

// member returns a group's member with id, or nil.
func (g *group) member(id int64) *member {
	for _, m := range g.members {
		if m.id == id {
			return m
		}
	}
	return nil
}

// isFriend reports whether id is a friend of the account.
func (w *world) isFriend(id int64) bool { return slices.Contains(w.friends, id) }

// pick draws one of the "|"-separated words of list.
func pick(r *rand.Rand, list string) string {
	words := strings.Split(list, "|")
	return words[r.IntN(len(words))]
}

// now is the time of a live change.
func now() int64 { return time.Now().Unix() }
