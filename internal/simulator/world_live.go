package simulator

import (
	"context"
	"fmt"
	"time"
)

// pushQueue is how many queued events wake the deliverer at once; the
// queue itself has no bound. SnowLuma hands every event to each event
// socket with a send that is never refused for a slow reader (the
// WebSocket library buffers what the peer has not read:
// packages/onebot/src/network/ws-server-adapter.ts onEvent and utils.ts),
// so the fake drops nothing either.
const pushQueue = 1

// WithWorld gives the fake a simulated QQ account built from seed (see
// world.go): its actions answer from the world and change it, and what
// changes (a message sent, a member kicked, a request answered) is pushed to
// every open event connection as SnowLuma pushes QQ's events. The same seed
// gives the same world. Handle still overrides any action, and every other
// option and fault hook works as on the plain fake.
func WithWorld(seed uint64) Option {
	return func(s *Server) { s.world = newWorld(seed, time.Now()) }
}

// WithWorldAt is WithWorld with the history dated back from now instead of
// from the time the fake starts: two fakes of the same seed and now are
// the same to the second.
func WithWorldAt(seed uint64, now time.Time) Option {
	return func(s *Server) { s.world = newWorld(seed, now) }
}

// WithTrickle makes a fake with a world come alive: every interval a member
// says something in one of the groups, now and then someone pokes the
// bot, and early on (and then rarely) a stranger asks to join a group. Without
// it the world stays silent unless acted on, for tests that count events.
func WithTrickle(interval time.Duration) Option {
	return func(s *Server) { s.trickle = interval }
}

// WithSelfMessages pushes the bot's own sends as message_sent events, as
// SnowLuma does with reportSelfMessage on. Without it a fake with a world
// follows SnowLuma's default (off): a send is answered and stored, never
// pushed.
func WithSelfMessages() Option {
	return func(s *Server) { s.reportSelf = true }
}

// WithActions names every action the SnowLuma being simulated has (the
// catalog's): one the fake has no responder for is then answered as a
// business failure that says the sandbox does not simulate it, instead of
// SnowLuma's "unknown action", which would tell a client the action does
// not exist.
func WithActions(names []string) Option {
	return func(s *Server) {
		s.known = map[string]bool{}
		for _, n := range names {
			s.known[n] = true
		}
	}
}

// startWorld installs the world's responders and its background work. It
// runs once the options are applied.
func (s *Server) startWorld(ctx context.Context) {
	w := s.world
	s.handlers = s.defaultHandlers()
	w.mu.Lock()
	w.reportSelf = s.reportSelf
	for _, g := range w.groups {
		for _, f := range g.files {
			data := w.fileContent(g, f)
			f.size = int64(len(data))
			s.files.byName[f.id] = File{Name: f.name, Data: data}
		}
	}
	w.mu.Unlock()
	s.pushes = make(chan struct{}, pushQueue)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.deliver(ctx)
	}()
	if s.trickle > 0 {
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			s.live(ctx, s.trickle)
		}()
	}
}

// push queues an event for every open event connection.
func (s *Server) push(event []byte) {
	if s.pushes == nil {
		return
	}
	s.pushMu.Lock()
	s.queued = append(s.queued, event)
	s.pushMu.Unlock()
	select {
	case s.pushes <- struct{}{}:
	default: // the deliverer is already woken
	}
}

// deliver sends queued events, in order, to the connections open at the
// time, until ctx ends.
func (s *Server) deliver(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.pushes:
			s.pushMu.Lock()
			evs := s.queued
			s.queued = nil
			s.pushMu.Unlock()
			for _, ev := range evs {
				for _, c := range s.EventConns() {
					if c.Open() {
						c.Send(string(ev))
					}
				}
			}
		}
	}
}

// live is the trickle: one step each interval until ctx ends.
func (s *Server) live(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w := s.world
			w.mu.Lock()
			ev := w.step()
			var said *message
			sh := s.shared.Load()
			if sh != nil && w.said != nil && w.said.peer.id == sh.group {
				c := *w.said
				said = &c
			}
			w.mu.Unlock()
			if ev != nil {
				s.push(ev)
			}
			if said != nil {
				// The shared group's members speak to both accounts.
				sh.other.receive(said.peer.id, said.sender, said.segments)
			}
		}
	}
}

// step is one moment of the trickle: mostly a member's message in a group,
// every seventh a poke, and on the fourth (and each fortieth) a request
// to join a group the bot manages. It returns
// the event, or nil when there is nobody left to speak. w.mu is held.
func (w *world) step() []byte {
	w.tick++
	r := w.talk
	if len(w.groups) == 0 {
		return nil
	}
	w.said = nil
	g := w.groups[r.IntN(len(w.groups))]
	if g.id == w.imported {
		return nil // its members speak in the world it came from
	}
	var others []*member
	for _, m := range g.members {
		if m.id != w.self {
			others = append(others, m)
		}
	}
	if len(others) == 0 {
		return nil
	}
	m := others[r.IntN(len(others))]
	switch {
	case w.tick == 4 || w.tick%40 == 0:
		// QQ shows join requests to a group's owner and admins only.
		var managed []*group
		for _, x := range w.groups {
			if rank(x.member(w.self).role) > 0 {
				managed = append(managed, x)
			}
		}
		if len(managed) == 0 {
			break
		}
		g := managed[r.IntN(len(managed))]
		who := w.newPerson(r, pick(r, worldNicknames)+fmt.Sprint(w.tick))
		req := &joinRequest{seq: w.newSeq(), group: g, who: who, comment: pick(r, worldJoinComments)}
		w.joins = append(w.joins, req)
		return encode(map[string]any{"time": now(), "self_id": w.self, "post_type": "request", "request_type": "group",
			"sub_type": "add", "group_id": g.id, "user_id": who.id, "comment": req.comment,
			"flag": fmt.Sprintf("add:%d:%s", g.id, who.uid)})
	case w.tick%7 == 0:
		return w.notice(map[string]any{"notice_type": "notify", "sub_type": "poke", "group_id": g.id,
			"user_id": m.id, "target_id": w.self, "action": "戳了戳", "suffix": "",
			"action_img_url": sandboxHost + "/nudgeaction/expression.jpg"})
	}
	at := now()
	msg := w.store(peer{true, g.id}, m.id, at, w.chatLine(peer{true, g.id}, pick(r, worldLines)))
	m.lastSent = at
	w.said = msg
	return encode(w.view(msg, true))
}

// A WorldGroup is a group of the world as a test needs to find it: its
// number, name and the bot's role there.
type WorldGroup struct {
	ID   int64
	Name string
	Role string // the bot's: owner, admin or member
}

// WorldGroups lists the world's groups in get_group_list's order; nil
// without a world.
func (s *Server) WorldGroups() []WorldGroup {
	if s.world == nil {
		return nil
	}
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]WorldGroup, 0, len(w.groups))
	for _, g := range w.groups {
		out = append(out, WorldGroup{ID: g.id, Name: g.name, Role: g.member(w.self).role})
	}
	return out
}

// A WorldMessage is a message a test had someone of the world say.
type WorldMessage struct {
	ID   int64
	Time int64
}

// WorldSay has user say text in group (or, with group 0, in a private
// chat with the bot) at the time at (now when 0), stores it in the
// history, and pushes its event when live; without live it is a message
// that arrived while nobody listened. Nil without a world.
func (s *Server) WorldSay(group, user int64, text string, at int64, live bool) WorldMessage {
	if s.world == nil {
		return WorldMessage{}
	}
	w := s.world
	w.mu.Lock()
	if at == 0 {
		at = now()
	}
	p := peer{group != 0, group}
	if group == 0 {
		p = peer{false, user}
	}
	m := w.store(p, user, at, []segment{textSegment(text)})
	ev := encode(w.view(m, true))
	w.mu.Unlock()
	if live {
		s.push(ev)
	}
	return WorldMessage{ID: int64(m.id), Time: at}
}

// WorldSayEvent is WorldSay without the push: it stores the message in
// the history and returns the event SnowLuma would push for it, for a
// test that sends events itself at its own pace with EventConn.Send,
// which waits on the connection as SnowLuma's socket buffers (it never
// drops an event). Nil without a world.
func (s *Server) WorldSayEvent(group, user int64, text string) (WorldMessage, []byte) {
	if s.world == nil {
		return WorldMessage{}, nil
	}
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	p := peer{group != 0, group}
	if group == 0 {
		p = peer{false, user}
	}
	at := now()
	m := w.store(p, user, at, []segment{textSegment(text)})
	return WorldMessage{ID: int64(m.id), Time: at}, encode(w.view(m, true))
}

// WorldRecall has a message's sender recall it, and pushes the recall
// notice SnowLuma sends (group_recall with the operator, or
// friend_recall).
func (s *Server) WorldRecall(id int64) {
	if s.world == nil {
		return
	}
	w := s.world
	w.mu.Lock()
	m := w.messages[int32(id)]
	if m == nil || m.recalled {
		w.mu.Unlock()
		return
	}
	m.recalled = true
	var ev []byte
	if m.peer.group {
		ev = w.notice(map[string]any{"notice_type": "group_recall", "group_id": m.peer.id, "operator_id": m.sender, "user_id": m.sender, "message_id": m.id})
	} else {
		ev = w.notice(map[string]any{"notice_type": "friend_recall", "user_id": m.peer.id, "message_id": m.id})
	}
	w.mu.Unlock()
	s.push(ev)
}

// WorldFriends lists the bot's friends' QQ numbers; nil without a world.
func (s *Server) WorldFriends() []int64 {
	if s.world == nil {
		return nil
	}
	w := s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]int64(nil), w.friends...)
}
