package simulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Two accounts in one group, as an operator who runs a main bot and a
// backup has them: what one sends there, the other receives.

// sharing is a fake's half of a group shared with another fake.
type sharing struct {
	other *Server
	group int64
}

// Share makes a and b, fakes with worlds of two different accounts
// (WithSelfID), members of one group: the group a's account is a plain
// member of (its world's third) is added to b's world with its people,
// and each account joins the other's copy as a member. A message either
// account sends there then arrives on the other's event connection as a
// group message from the sender, with the receiving account's own
// message id (QQ numbers messages per account). It returns the group's
// id. Call it before the fakes serve anything.
func Share(a, b *Server) (int64, error) {
	if a.world == nil || b.world == nil {
		return 0, errors.New("simulator: Share needs two fakes with worlds")
	}
	wa, wb := a.world, b.world
	if wa == wb || wa.self == wb.self {
		return 0, fmt.Errorf("simulator: Share needs two accounts; both are %d", wa.self)
	}
	wa.mu.Lock()
	defer wa.mu.Unlock()
	wb.mu.Lock()
	defer wb.mu.Unlock()
	if len(wa.groups) < 3 {
		return 0, errors.New("simulator: the first account's world has no third group")
	}
	ga := wa.groups[2]
	if wb.groupByID(ga.id) != nil {
		return 0, fmt.Errorf("simulator: group %d is already in the second account's world", ga.id)
	}
	gb := &group{id: ga.id, name: ga.name, max: ga.max, wholeBan: ga.wholeBan}
	for _, m := range ga.members {
		p := wb.people[m.id]
		if m.id == wa.self {
			p = &person{id: wa.self, uid: m.uid, nickname: wa.nickname, sex: "unknown", level: m.level}
		} else if p == nil {
			c := *m.person
			c.remark = "" // a remark is the first account's, not the second's
			p = &c
			wb.people[p.id] = p
		}
		c := *m
		c.person, c.lastSent, c.shutEnd = p, 0, 0
		gb.members = append(gb.members, &c)
	}
	// Each account joins the other's copy as a plain member, today.
	joined := now()
	join := func(w *world, g *group, id int64, nickname string) {
		p := w.people[id]
		if p == nil {
			p = &person{id: id, uid: "u_" + strconv.FormatInt(id, 36), nickname: nickname, sex: "unknown", level: 32}
			w.people[id] = p
		}
		if g.member(id) == nil {
			g.members = append(g.members, &member{person: p, role: "member", joinTime: joined, level: 1})
		}
	}
	wb.groups = append(wb.groups, gb)
	wb.imported = gb.id
	join(wb, gb, wb.self, wb.nickname)
	join(wa, ga, wb.self, wb.nickname)
	if m := gb.member(wa.self); m != nil {
		wb.people[wa.self] = m.person
	}
	a.shared.Store(&sharing{other: b, group: ga.id})
	b.shared.Store(&sharing{other: a, group: ga.id})
	return ga.id, nil
}

// relaying wraps a send's handler: a successful send to the shared group
// arrives at the other account as a member's message.
func (s *Server) relaying(h Handler) Handler {
	return func(raw json.RawMessage) Reply {
		r := h(raw)
		sh := s.shared.Load()
		if sh == nil || r.Body != nil || r.Envelope.Status != "ok" {
			return r
		}
		var p struct {
			MessageType string          `json:"message_type"`
			GroupID     any             `json:"group_id"`
			Message     json.RawMessage `json:"message"`
			AutoEscape  bool            `json:"auto_escape"`
		}
		if json.Unmarshal(raw, &p) != nil || p.MessageType == "private" {
			return r
		}
		// SnowLuma reads ids with JavaScript's Number: a number or a
		// numeric string.
		var id int64
		switch v := p.GroupID.(type) {
		case float64:
			id = int64(v)
		case string:
			id, _ = strconv.ParseInt(v, 10, 64)
		}
		if id != sh.group {
			return r
		}
		segs, err := parseMessage(p.Message, p.AutoEscape)
		if err != nil {
			return r
		}
		sh.other.receive(sh.group, s.self(), segs)
		return r
	}
}

// receive stores a message from another account in group and pushes it
// as the event SnowLuma sends for a member's message.
func (s *Server) receive(group, from int64, segs []segment) {
	w := s.world
	w.mu.Lock()
	m := w.store(peer{true, group}, from, now(), segs)
	ev := encode(w.view(m, true))
	w.mu.Unlock()
	s.push(ev)
}
