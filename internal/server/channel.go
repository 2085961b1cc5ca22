package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/claudechannel"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/quote"
	"github.com/snowluma/snowluma-mcp/internal/trace"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// The QQ channel for Claude Code (package channel): the capabilities that
// make Claude Code listen, the feed that follows the account from start,
// the pushes and verdicts written on the wire (internal/claudechannel),
// the approval prompts sent to approvers as private QQ messages, and
// approvers answering this server's own confirmations when the client
// has no form. Everything the channel sends to QQ goes through the
// pipeline like any call, as the tool "channel": allowlists, pacing and
// audit apply. Replies are the model's own invoke_action calls.

// A ChannelWire writes the channel's notifications to the client and
// hands over Claude Code's permission requests (claudechannel.Wire).
type ChannelWire interface {
	Push(ctx context.Context, content string, meta map[string]string) error
	Verdict(ctx context.Context, requestID, behavior string) error
	OnPermission(func(context.Context, claudechannel.PermissionRequest))
}

// channelTool names the channel's own calls in the audit log.
const channelTool = "channel"

// loginRetry is the first wait before asking get_login_info again when
// SnowLuma cannot say which account it serves; it doubles up to
// channel.RetryMax.
const loginRetry = 5 * time.Second

// sendRetries is how many times an approval prompt that the pacer
// refused is tried again, after the wait the pacer names.
const sendRetries = 3

// channelService is the channel of one backend. nil when the channel is
// off.
type channelService struct {
	cfg  channel.Config
	x    *executor // set by newDeps once the executor is built with this channel's hooks
	hub  *events.Hub
	wire ChannelWire
	log  io.Writer

	archive *archiveService // nil without an archive
	server  *mcp.Server     // set by attach: its sessions are the connection pushes reach
	lang    lang.Lang       // the operator's, for the line of a session without a path
	noPath  sync.Once       // that line is written once

	// label, with several bots, names this bot in each push's meta
	// (metaBot); "" with one.
	label string

	mu    sync.Mutex
	ch    *channel.Channel // nil until the account is known
	state string           // what the channel is doing before then
}

// newChannelService returns the channel of b, or nil when it is off. It
// needs the wire of the transport the server runs on. Its hooks (noteSent,
// and confirm with approvers) go into the executor's options; the
// executor it runs its own calls through is set once that is built.
func newChannelService(b *backend.Backend, mode config.Mode, wire ChannelWire, l lang.Lang, log io.Writer) (*channelService, error) {
	if b.Channel == nil || b.Channel.Mode == channel.ModeOff || mode == config.ModeDocs {
		return nil, nil
	}
	if b.Events == nil {
		return nil, fmt.Errorf("the channel needs the event hub (SNOWLUMA_MCP_EVENTS_URL)")
	}
	if wire == nil {
		return nil, fmt.Errorf("the channel needs a ChannelWire in the options")
	}
	if log == nil {
		log = io.Discard
	}
	return &channelService{cfg: *b.Channel, hub: b.Events, wire: wire, log: log, lang: l, state: "starting: asking get_login_info for the account"}, nil
}

// hooks are the channel's hooks of the pipeline.
func (svc *channelService) hooks(o *pipeline.Options) {
	if svc == nil {
		return
	}
	o.Sent = svc.noteSent
	if svc.approvals() {
		o.Remote = svc.confirm
	}
}

func (svc *channelService) approvals() bool { return len(svc.cfg.Approvers) > 0 }

// channelFeature declares the channel's capabilities and instructions,
// and starts following the account once the server is built. While the
// channel is on, server/discover is declined (mcpseam.DeclineDiscover), as
// a legacy server does: Claude Code (2.1.332) picks 2026-07-28 when
// discover offers it, and then skips every channel notification, having
// no path for them in that revision; declined, it falls back to
// initialize at 2025-11-25, where it receives them. Requests that come at
// 2026-07-28 without discover are still served.
func channelFeature(d *deps) (feature, error) {
	svc := d.channel
	if svc == nil {
		return feature{}, nil
	}
	d.dispatch.On(mcpseam.MethodDiscover, mcpseam.DeclineDiscover())
	return feature{instructions: svc.instructions(d.mode == config.ModeWrite), configure: svc.configure, attach: svc.attach}, nil
}

// instructions is the channel's sentence; only in write mode, where
// invoke_action runs, does it say how to reply.
func (svc *channelService) instructions(write bool) string {
	// Kept short: the whole of the instructions stays within 1 KiB with
	// every feature on; that QQ text is data is the prompts' sentence.
	s := " QQ channel: followed chats' messages come as <channel> notifications"
	if write {
		s += "; reply only when it helps, by invoke_action send_group_msg or send_private_msg quoting message_id in a reply segment"
	}
	s += "."
	if svc.approvals() {
		s += " Approvers may answer tool approvals from QQ."
	}
	return s
}

// configure declares claude/channel, and claude/channel/permission with
// approvers, under the experimental capabilities of both eras
// (initialize and server/discover share them).
func (svc *channelService) configure(o *mcp.ServerOptions) {
	if o.Capabilities.Experimental == nil {
		o.Capabilities.Experimental = map[string]any{}
	}
	o.Capabilities.Experimental[claudechannel.CapabilityChannel] = map[string]any{}
	if svc.approvals() {
		o.Capabilities.Experimental[claudechannel.CapabilityPermission] = map[string]any{}
	}
}

// metaBot is the meta key of a push that names the bot that received it,
// with several bots.
const metaBot = "bot"

// attachPeer starts a further bot's channel on s: it follows that bot's
// account and pushes through the one wire, and asks its approvers for its
// own bot's confirmations. Claude Code's permission requests stay the
// first bot's (attach): one request, one relay.
func (svc *channelService) attachPeer(s *mcp.Server) {
	if svc == nil {
		return
	}
	svc.server = s
	go svc.run()
}

// attach takes Claude Code's permission requests and starts following the
// account: the event connection opens now, not at the first call.
func (svc *channelService) attach(s *mcp.Server) error {
	svc.server = s
	if svc.approvals() {
		svc.wire.OnPermission(func(_ context.Context, p claudechannel.PermissionRequest) {
			// The wire's reader must not wait for QQ.
			go svc.relay(p)
		})
	}
	if h, ok := svc.wire.(interface{ OnHold(func()) }); ok {
		h.OnHold(func() {
			fmt.Fprintln(svc.log, "channel: a push is held until the client listens (after notifications/initialized and its first request)")
		})
	}
	go svc.run()
	return nil
}

// run learns the account, then feeds the channel from the hub until the
// hub closes with the session.
func (svc *channelService) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-svc.hub.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	self, ok := svc.login(ctx)
	if !ok {
		return
	}
	ch := channel.New(svc.cfg, self, svc.log)
	ch.LookUpReplies(ctx, svc.sender)
	svc.mu.Lock()
	svc.ch = ch
	svc.mu.Unlock()
	feed := &channel.Feed{Hub: svc.hub, SelfID: self, Log: svc.log}
	id, updated, err := feed.Start(ctx, ch)
	if err != nil {
		fmt.Fprintf(svc.log, "channel: the event connection could not be opened (%v); trying again in %v\n", err, channel.RetryFirst)
	} else {
		fmt.Fprintf(svc.log, "channel: following account %d in %s mode: %d group(s), %d user(s), %d approver(s)\n",
			self, svc.cfg.Mode, len(svc.cfg.Groups), len(svc.cfg.Users), len(svc.cfg.Approvers))
	}
	done := make(chan struct{})
	var sink channel.Sink = channelSink{svc.wire, svc.pushed, svc.undeliverable, svc.label}
	if a := svc.archive; a != nil && a.store != nil {
		// The archive keeps what could not be pushed, and pushes it later.
		sink = archiveSink{sink, a}
		go a.catchUpLoop(ctx, svc.cfg, sink)
	}
	go func() { ch.Run(ctx, sink, nil); close(done) }()
	feed.Run(ctx, ch, id, updated)
	cancel()
	<-done
}

// login asks SnowLuma which account it serves, again and again until it
// says or ctx ends.
func (svc *channelService) login(ctx context.Context) (int64, bool) {
	wait := loginRetry
	for {
		r := svc.call(ctx, "get_login_info", json.RawMessage(`{}`))
		if id := dataID(r, "user_id"); id > 0 {
			return id, true
		}
		why := r.Diag.Message
		if why == "" {
			why = "its answer named no user_id"
		}
		svc.setState("waiting for get_login_info: " + why)
		fmt.Fprintf(svc.log, "channel: get_login_info failed (%s); trying again in %v\n", why, wait)
		select {
		case <-ctx.Done():
			return 0, false
		case <-time.After(wait):
		}
		wait = min(2*wait, channel.RetryMax)
	}
}

func (svc *channelService) setState(s string) {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	svc.state = s
}

func (svc *channelService) channel() *channel.Channel {
	svc.mu.Lock()
	defer svc.mu.Unlock()
	return svc.ch
}

// call runs one of the channel's own actions through the pipeline,
// confirmed (the channel's sends are its confirmation prompts).
func (svc *channelService) call(ctx context.Context, action string, params json.RawMessage) outcome.Reply {
	tc, _ := trace.Start(nil)
	return svc.x.Own(ctx, &pipeline.Call{Tool: channelTool, Args: params, Trace: tc}, action, params)
}

// dataID reads an id from a successful reply's data.
func dataID(r outcome.Reply, field string) int64 {
	env, ok := r.Result.(json.RawMessage)
	if !ok || r.Diag.Outcome != outcome.OutcomeSuccess {
		return 0
	}
	var e struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(env, &e) != nil {
		return 0
	}
	v := strings.Trim(string(e.Data[field]), `"`)
	id, _ := strconv.ParseInt(v, 10, 64)
	return id
}

// noteSent tells the channel of a message the bot sent, so that replies
// to it address the bot in mentions mode.
func (svc *channelService) noteSent(_ *catalog.Action, _ json.RawMessage, r outcome.Reply) {
	if ch := svc.channel(); ch != nil {
		if id := dataID(r, "message_id"); id != 0 {
			ch.NoteSent(id)
		}
	}
}

// sender asks SnowLuma (get_msg) who sent message id, for a reply to a
// message the channel has not seen: 0 when SnowLuma answered without it
// (it does not know the message), an error when it could not be asked.
func (svc *channelService) sender(ctx context.Context, id int64) (int64, error) {
	r := svc.call(ctx, "get_msg", fmt.Appendf(nil, `{"message_id":%d}`, id))
	if r.Diag.Outcome == outcome.OutcomeSuccess {
		return dataID(r, "user_id"), nil
	}
	if _, answered := r.Result.(json.RawMessage); answered {
		return 0, nil
	}
	return 0, fmt.Errorf("get_msg: %s", r.Diag.Message)
}

// pushed records that a push hands the model text of its chat: the
// connection the wire writes to (a stdio server's one session) has read
// it. It is recorded before the push is written, so that no call the
// push provokes runs before the gate knows of it.
func (svc *channelService) pushed(p channel.Push) {
	chat := untrusted.PrivateChat(metaID(p.Meta[channel.MetaUserID]))
	if p.Meta[channel.MetaMessageType] == "group" {
		chat = untrusted.GroupChat(metaID(p.Meta[channel.MetaGroupID]))
	}
	for s := range svc.server.Sessions() {
		l := svc.x.backend.Provenance.For(s)
		l.Note(chat)
		// Its message ids (the first and last of a burst): a reply to
		// them in their own chat is judged free.
		l.NoteMessage(metaID(p.Meta[channel.MetaMessageID]), chat)
		l.NoteMessage(metaID(p.Meta[channel.MetaFirstMessageID]), chat)
	}
}

func metaID(s string) int64 {
	id, _ := strconv.ParseInt(s, 10, 64)
	return id
}

// relay sends one of Claude Code's permission requests to the approvers.
// In a dry run nothing reaches QQ, so the request is refused at once (only
// Claude Code's own dialog can answer it) and never waits as pending.
func (svc *channelService) relay(p claudechannel.PermissionRequest) {
	if svc.x.backend.DryRun {
		fmt.Fprintf(svc.log, "channel: permission request %q not relayed to the approvers: this is a dry run (SNOWLUMA_MCP_DRY_RUN), which sends nothing to QQ; answer it in Claude Code\n", clip(p.RequestID))
		return
	}
	ch := svc.channel()
	if ch == nil {
		fmt.Fprintf(svc.log, "channel: permission request %q arrived before the channel knew its account; only Claude Code's own dialog can answer it\n", clip(p.RequestID))
		return
	}
	prompt, err := ch.Request(channel.Request{ID: p.RequestID, Tool: p.ToolName, Description: p.Description, Preview: p.InputPreview}, time.Now())
	if err != nil {
		fmt.Fprintf(svc.log, "channel: permission request ignored: %v\n", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), channel.ApprovalTTL)
	defer cancel()
	svc.prompt(ctx, p.RequestID, prompt)
}

// prompt sends prompt to every approver, in private; it reports whether
// one of them received it.
func (svc *channelService) prompt(ctx context.Context, id, prompt string) bool {
	text, _ := json.Marshal(prompt)
	sent := false
	for _, a := range svc.cfg.Approvers.Sorted() {
		// A text segment: nothing in the prompt is read as a CQ code.
		params := json.RawMessage(fmt.Sprintf(`{"user_id":%d,"message":[{"type":"text","data":{"text":%s}}]}`, a, text))
		var r outcome.Reply
		for try := 0; ; try++ {
			r = svc.call(ctx, "send_private_msg", params)
			if r.Diag.Kind != outcome.KindRateLimited || try == sendRetries {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(r.Diag.RetryAfterMS) * time.Millisecond):
			}
		}
		if r.Diag.Outcome == outcome.OutcomeSuccess {
			sent = true
			// A quote-reply to this message answers id.
			if ch := svc.channel(); ch != nil {
				ch.Prompted(id, dataID(r, "message_id"))
			}
			continue
		}
		fmt.Fprintf(svc.log, "channel: the approval prompt for request %s could not be sent to %d: %s: %s\n", id, a, r.Diag.Kind, r.Diag.Message)
	}
	return sent
}

// confirm is the pipeline's confirmation when the client has no form:
// the approvers answer from QQ. It returns the refusal, with ok false,
// unless an approver allowed the call.
func (svc *channelService) confirm(ctx context.Context, c *pipeline.Call, a *catalog.Action, params json.RawMessage, t safety.Targets, why string) (outcome.Reply, bool) {
	ch := svc.channel()
	unavailable := func(why string) (outcome.Reply, bool) {
		return outcome.Fail(outcome.KindConfirmationUnavailable,
			fmt.Sprintf("%s must be confirmed by a person (SNOWLUMA_MCP_CONFIRM=%s); this client has no form and %s; nothing was sent", a.Name, svc.x.safety.Confirm, why),
			"ask an approver to watch their QQ and call again, or use a client that supports form elicitation"), false
	}
	if ch == nil {
		return unavailable("the QQ channel has not started yet")
	}
	if svc.x.backend.DryRun {
		return unavailable("this is a dry run (SNOWLUMA_MCP_DRY_RUN), which sends no prompt to QQ")
	}
	// The approvers read Chinese: what will happen, with its values, as
	// the confirmation form says it.
	desc, ok := lang.Zh.Describe(lang.Act{Action: a.Name, Params: params})
	if !ok {
		desc = a.Summary
		if ids := t.PaceKeys(); len(ids) > 0 {
			desc += " (" + strings.Join(ids, ", ") + ")"
		}
	}
	if why != "" {
		desc = why + desc
	}
	v, err := ch.Ask(ctx, channel.Request{Tool: a.Name, Description: desc, Preview: string(params)}, func(ctx context.Context, id, prompt string) error {
		if !svc.prompt(ctx, id, prompt) {
			return fmt.Errorf("the prompt reached no approver (stderr says why)")
		}
		// The client learns what the call waits for.
		if m, ok := c.Client.(mcpClient); ok {
			m.Waiting(ctx, fmt.Sprintf("waiting for an approver to answer request %s on QQ (up to %v)", id, channel.ApprovalTTL))
		}
		return nil
	})
	switch {
	case errors.Is(err, channel.ErrUnanswered):
		return outcome.Fail(outcome.KindNotConfirmed,
			fmt.Sprintf("%s was not confirmed: %v; nothing was sent", a.Name, err),
			"call again to ask the approvers again, once one of them can answer on QQ"), false
	case err != nil:
		return unavailable("no approver answered from QQ: " + err.Error())
	case v.Behavior != channel.Allow:
		return outcome.Fail(outcome.KindNotConfirmed,
			fmt.Sprintf("approver %d refused %s from QQ (request %s); nothing was sent", v.Approver, a.Name, v.Request.ID),
			"do not call it again unless a person asks for it"), false
	}
	return outcome.Reply{}, true
}

// runtime is the channel part of get_runtime_info.
func (svc *channelService) runtime() any {
	if svc == nil {
		return nil
	}
	if ch := svc.channel(); ch != nil {
		return ch.Stats(time.Now())
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	return channel.Stats{Mode: svc.cfg.Mode, Connection: svc.state}
}

// undeliverable says once, in the operator's language, that the client
// negotiated a session in which no push can reach it.
func (svc *channelService) undeliverable(err error) {
	var np *claudechannel.NoPathError
	if errors.As(err, &np) {
		svc.noPath.Do(func() { fmt.Fprintln(svc.log, svc.lang.Sprintf(lang.ChannelNoPath, np.Version)) })
	}
}

// channelSink writes the channel's output on the wire; pushed is told of
// each push first, failed of each push that fails.
type channelSink struct {
	w      ChannelWire
	pushed func(channel.Push)
	failed func(error)
	bot    string // the bot's label, with several bots
}

func (s channelSink) Push(ctx context.Context, p channel.Push) error {
	if s.bot != "" {
		meta := make(map[string]string, len(p.Meta)+1)
		maps.Copy(meta, p.Meta)
		meta[metaBot] = s.bot
		p.Meta = meta
	}
	s.pushed(p)
	err := s.w.Push(ctx, p.Content, p.Meta)
	if err != nil {
		s.failed(err)
	}
	return err
}

func (s channelSink) Verdict(ctx context.Context, v channel.Verdict) error {
	return s.w.Verdict(ctx, v.Request.ID, v.Behavior)
}

// clip quotes at most 16 bytes of a value that came from the client.
func clip(s string) string { return quote.Clip(s, 16) }
