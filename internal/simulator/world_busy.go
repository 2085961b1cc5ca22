package simulator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The busy world: the world of a seed grown to an account of everyday
// size, for measuring what a model reads over chats of real length rather
// than a dozen lines: BusyGroups groups of BusyMembers members each and
// BusyMessages group messages over the BusySpan before now, most of them
// beyond SnowLuma's HistoryWindow.
const (
	BusyGroups   = 5
	BusyMembers  = 100
	BusyMessages = 3300
	BusySpan     = 30 * 24 * time.Hour
)

// What the busy world says that a task can look for: BusyWord in a few
// messages of the last week, in several groups, and BusyOldLine once,
// three weeks ago, far past the HistoryWindow of its group.
const (
	BusyWord    = "周年庆"
	BusyOldLine = "发票抬头写雪原科技，税号找财务要"
)

// busyWordLines are the messages that say BusyWord, with how many days
// before the end of history each was said.
var busyWordLines = []struct {
	daysAgo float64
	text    string
}{
	{1.2, "下周六的周年庆谁来帮忙布置？"},
	{2.5, "周年庆的横幅我已经订好了"},
	{4.1, "周年庆那天记得带相机"},
	{6.3, "有人知道周年庆几点开始吗"},
}

// WithBusyWorldAt is WithWorldAt with the world grown to the busy world's
// size (see BusyGroups): the same seed and now give the same account.
func WithBusyWorldAt(seed uint64, now time.Time) Option {
	return func(s *Server) {
		w := newWorld(seed, now)
		w.grow()
		s.world = w
	}
}

// grow adds groups, members and a month of older messages to a freshly
// built world. Its draws come from a source of their own, so the world's
// first part is the seed's usual one. The messages it adds are older than
// every message already there, which keep their places at the end of each
// conversation.
func (w *world) grow() {
	w.grown = true
	r := rand.New(rand.NewPCG(w.seed, 0x5eed0006))
	names := strings.Split(worldGroupNames, "|")
	for _, g := range w.groups {
		names = slices.DeleteFunc(names, func(n string) bool { return n == g.name })
	}
	self := w.groups[0].member(w.self)
	for len(w.groups) < BusyGroups && len(names) > 0 {
		g := &group{id: int64(100000000 + r.IntN(899999999)), name: names[0], max: 500}
		names = names[1:]
		for w.groupByID(g.id) != nil {
			g.id++
		}
		joined := w.epoch - int64(200+r.IntN(600))*86400
		g.members = append(g.members, w.newMember(r, self.person, "member", joined))
		w.seedFiles(r, g)
		w.groups = append(w.groups, g)
	}
	// A population for the new places: nicknames as QQ users pick them,
	// a word and a number.
	nicknames := strings.Split(worldNicknames, "|")
	var pool []*person
	for i := range BusyGroups * BusyMembers {
		pool = append(pool, w.newPerson(r, fmt.Sprintf("%s%02d", nicknames[i%len(nicknames)], r.IntN(100))))
	}
	for _, g := range w.groups {
		for len(g.members) < BusyMembers {
			p := pool[r.IntN(len(pool))]
			if g.member(p.id) != nil {
				continue
			}
			g.members = append(g.members, w.newMember(r, p, "member", w.epoch-int64(r.IntN(700))*86400))
		}
		sortMembers(g.members)
	}

	// The month of history: drawn, then stored oldest first ahead of what
	// each group already holds.
	type line struct {
		at   int64
		g    *group
		from int64
		text string
	}
	var lines []line
	start, end := w.epoch-int64(BusySpan/time.Second), w.epoch-4*3600
	for range BusyMessages - len(busyWordLines) - 1 {
		g := w.groups[r.IntN(len(w.groups))]
		m := g.members[1+r.IntN(len(g.members)-1)]
		lines = append(lines, line{start + r.Int64N(end-start), g, m.id, pick(r, worldLines)})
	}
	for i, l := range busyWordLines {
		g := w.groups[i%3]
		lines = append(lines, line{w.epoch - int64(l.daysAgo*86400), g, g.members[1+r.IntN(len(g.members)-1)].id, l.text})
	}
	old := w.groups[1]
	lines = append(lines, line{w.epoch - 21*86400, old, old.members[1+r.IntN(len(old.members)-1)].id, BusyOldLine})
	slices.SortStableFunc(lines, func(a, b line) int { return int(a.at - b.at) })
	held := map[peer][]int32{}
	for _, g := range w.groups {
		p := peer{true, g.id}
		held[p], w.byPeer[p], w.seq[p] = w.byPeer[p], nil, 0
	}
	for _, l := range lines {
		p := peer{true, l.g.id}
		w.store(p, l.from, l.at, w.chatLine(p, l.text))
		if m := l.g.member(l.from); m != nil {
			m.lastSent = max(m.lastSent, l.at)
		}
	}
	for p, ids := range held {
		for _, id := range ids {
			w.seq[p]++
			w.messages[id].seq = w.seq[p]
			w.byPeer[p] = append(w.byPeer[p], id)
		}
	}
}

// HistoryFrames returns every message the fake's world holds as SnowLuma
// pushes it on its event WebSocket, oldest first: what a client following
// the account all along would have received. Nil without a world.
func (s *Server) HistoryFrames() [][]byte {
	w := s.world
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var all []*message
	for _, ids := range w.byPeer {
		for _, id := range ids {
			all = append(all, w.messages[id])
		}
	}
	slices.SortStableFunc(all, func(a, b *message) int { return int(a.time - b.time) })
	frames := make([][]byte, len(all))
	for i, m := range all {
		frames[i] = encode(w.view(m, true))
	}
	return frames
}
