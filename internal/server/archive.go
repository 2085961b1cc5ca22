package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/internal/pipeline"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/internal/trace"
	"github.com/snowluma/snowluma-mcp/qqmsg"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// The local message archive (package archive): its four tools' argument
// handling, what its keeper asks SnowLuma (through the pipeline like any
// call, as the tool "archive"; the feed, backfill and retention are
// archive.Keeper's), the bot's own sends, and the QQ channel's catch-up
// push for what it could not deliver.

const archiveTool = "archive"

// catchUpPeriod is the wait between two catch-up attempts while one is due.
const catchUpPeriod = 2 * time.Second

// archiveService is the archive of one backend; nil when none is
// configured.
type archiveService struct {
	store   *archive.Store // nil when the file could not be opened
	problem error          // why, then
	path    string
	x       *executor
	keeper  *archive.Keeper // nil without a store
	log     io.Writer

	// bots is the server's bots when several share the archive (nil with
	// one: nothing is added then); index is this service's bot. The
	// first bot's service serves the tools over every bot's chats; a
	// further bot's keeps its own chats (keyed by its QQ number), its
	// sends and its channel's catch-up.
	bots  *botSet
	index int

	mu    sync.Mutex
	noted string // the last failure logged
	ch    *channelService

	// catchUp holds a token while a catch-up push is due. A request made
	// while a pass runs leaves its token for the next pass, so that a
	// pass which found nothing cannot erase it.
	catchUp chan struct{}
}

// newArchiveService returns the archive of b, or nil when none is
// configured; the executor it reads SnowLuma through is set once that is
// built.
func newArchiveService(b *backend.Backend, opts Options, log io.Writer) *archiveService {
	if first := opts.archiveOf; first != nil && opts.botIndex > 0 {
		return furtherArchive(first, b, opts, log)
	}
	if b.ArchivePath == "" || opts.Mode == config.ModeDocs {
		return nil
	}
	svc := &archiveService{store: b.Archive, problem: b.ArchiveProblem, path: b.ArchivePath, log: log,
		catchUp: make(chan struct{}, 1), bots: opts.bots}
	if svc.store != nil && svc.bots != nil {
		svc.store.SetBotLabel(svc.bots.labelOf)
	}
	if svc.store != nil {
		// Tapped now, before anyone opens the event connection: the
		// archive sees its first event.
		svc.keeper = archive.NewKeeper(svc.store, b.Events, archiveSource{svc}, log)
		svc.keeper.Backfilled = svc.requestCatchUp
	}
	svc.requestCatchUp()
	return svc
}

// furtherArchive is the archive service of a further bot, whose backend is
// b: the first bot's store, fed from b's event connection by a keeper of
// its own that backfills through b's SnowLuma. Its keeper starts with
// startFurther.
func furtherArchive(first *archiveService, b *backend.Backend, opts Options, log io.Writer) *archiveService {
	if first.store == nil {
		return nil
	}
	svc := &archiveService{store: first.store, path: first.path, log: log, catchUp: make(chan struct{}, 1), bots: opts.bots, index: opts.botIndex}
	svc.keeper = archive.NewFurtherKeeper(svc.store, b.Events, archiveSource{svc}, log)
	svc.keeper.Backfilled = svc.requestCatchUp
	svc.requestCatchUp()
	return svc
}

// startFurther starts a further bot's keeper (the first bot's starts with
// the archive feature's attach).
func (svc *archiveService) startFurther() {
	if svc != nil && svc.keeper != nil && svc.index > 0 {
		go svc.keeper.Run(context.Background())
	}
}

// key is the Chat.Bot of this service's bot: 0 for the first, a further
// bot's QQ number (0 and false while it cannot be learnt).
func (svc *archiveService) key(ctx context.Context) (int64, bool) {
	if svc.bots == nil {
		return 0, true
	}
	return svc.bots.keyOf(ctx, svc.index)
}

// hooks adds the archive's hook to the pipeline's: the bot's own sends
// are archived, after whatever hook was there.
func (svc *archiveService) hooks(o *pipeline.Options) {
	if svc == nil || svc.store == nil {
		return
	}
	prev := o.Sent
	o.Sent = func(a *catalog.Action, params json.RawMessage, r outcome.Reply) {
		if prev != nil {
			prev(a, params, r)
		}
		svc.recordSent(a, params, r)
	}
}

// archiveFeature declares the four tools and starts the feed.
func archiveFeature(d *deps) (feature, error) {
	svc := d.archive
	f := feature{tools: archiveTools(svc)}
	if svc != nil {
		f.instructions = " Local archive of the bot's chats: list_chats, read_messages, search_messages."
		if svc.store != nil {
			f.attach = func(*mcp.Server) error { go svc.keeper.Run(context.Background()); return nil }
		} else {
			fmt.Fprintln(svc.log, problemLine(svc.problem, cmp.Or(d.opts.Lang, lang.En)))
		}
	}
	return f, nil
}

// problemLine is the one line that tells the operator, in l, why the
// archive tools are off. A file another server holds is the usual case (a
// second host started on the same configuration) and has its words in both
// languages; any other problem of the file is the archive's own error in
// English, and in another language its problem and fix in that language
// with the archive's detail quoted.
func problemLine(err error, l lang.Lang) string {
	var e *archive.Error
	switch {
	case errors.As(err, &e) && e.Problem == archive.ProblemLocked:
		return Name + ": " + l.Sprintf(lang.ArchiveInUse, e.File)
	case errors.As(err, &e) && l != lang.En:
		problem, fix := lang.ArchiveProblem(string(e.Problem))
		return Name + ": " + l.Sprintf(lang.ArchiveUnusable, e.File, l.Sprintf(problem), e.Detail, l.Sprintf(fix))
	}
	return "archive: " + err.Error()
}

// unavailable is the archive tools' answer when the file cannot be used.
func (svc *archiveService) unavailable() (outcome.Reply, bool) {
	var e *archive.Error
	err := svc.problem
	if svc.store != nil {
		if se := svc.store.Err(); se != nil {
			err = se
		}
	}
	if err == nil {
		return outcome.Reply{}, false
	}
	if errors.As(err, &e) {
		return outcome.Fail(outcome.KindArchive, fmt.Sprintf("the message archive %s cannot be used: %s", e.File, e.Detail), "ask the operator to "+e.Fix+"; every other tool still works"), true
	}
	return outcome.Fail(outcome.KindArchive, "the message archive "+svc.path+" cannot be used: "+err.Error(), "ask the operator to check SNOWLUMA_MCP_ARCHIVE; every other tool still works"), true
}

func (svc *archiveService) failed(err error) outcome.Reply {
	var e *archive.Error
	if errors.As(err, &e) {
		return outcome.Fail(outcome.KindArchive, fmt.Sprintf("the message archive %s failed: %s", e.File, e.Detail), "ask the operator to "+e.Fix+"; every other tool still works")
	}
	if errors.Is(err, context.Canceled) {
		return outcome.Fail(outcome.KindCancelled, "the read was cancelled", "call again if still needed")
	}
	return outcome.Fail(outcome.KindArchive, "the message archive "+svc.path+" failed: "+err.Error(), "call again; if it keeps failing, ask the operator to run snowluma-mcp doctor")
}

// ---- tools

const archiveChatProps = `"group_id": {"type": "integer"},
    "user_id": {"type": "integer", "description": "Private chat."}`

const searchMessagesInput = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "All these words (a OR b: any); when none has all, those with any come back, match \"any\". Chinese needs no spaces."},
    "group_id": {"type": "integer"},
    "user_id": {"type": "integer", "description": "This sender, or the private chat."},
    "since": {"type": "string", "description": "RFC 3339, or 2026-12-03 09:40 in the operator's zone."},
    "until": {"type": "string", "description": "As since."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "cursor": {"type": "string"},
    ` + archiveFormat + `
  },
  "required": ["query"],
  "additionalProperties": false
}`

// archiveFormat chooses between the compact lines a model reads
// (qqmsg.AppendLines) and one object a message for a client that wants
// the fields. Lines are the default.
const archiveFormat = `"format": {"enum": ["lines", "fields"]}`

const archivePosition = `{"type": ["integer", "string"], "description": "message_id, or a time as search_messages' since."}`

const readMessagesInput = `{
  "type": "object",
  "properties": {
    ` + archiveChatProps + `,
    "before": ` + archivePosition + `,
    "after": {"type": ["integer", "string"], "description": "As before."},
    "around": {"type": ["integer", "string"], "description": "As before."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
    ` + archiveFormat + `
  },
  "additionalProperties": false
}`

const listChatsInput = `{
  "type": "object",
  "properties": {
    "unread_only": {"type": "boolean", "default": false}
  },
  "additionalProperties": false
}`

const markReadInput = `{
  "type": "object",
  "properties": {
    ` + archiveChatProps + `,
    "message_id": {"type": "integer", "description": "Default: the newest."}
  },
  "additionalProperties": false
}`

// archiveMessagesResult names what a client may rely on: the count and
// trust always, the lines or the messages by format.
const archiveMessagesResult = `{"type": "object", "properties": {"lines": {"type": "string"}, "messages": {"type": "array"}}, "required": ["count", "trust"]}`
const listChatsResult = `{"type": "object", "properties": {"chats": {"type": "array"}}, "required": ["chats", "trust"]}`
const markReadResult = `{"type": "object", "properties": {"unread": {"type": "integer"}}, "required": ["chat", "unread"]}`

func archiveTools(svc *archiveService) []toolkit.Spec {
	var off *outcome.Refusal
	if svc == nil {
		off = &outcome.Refusal{Kind: outcome.KindNotConfigured, Message: "the message archive is not configured on this server",
			NextStep: "set SNOWLUMA_MCP_ARCHIVE to an absolute file path and SNOWLUMA_MCP_ARCHIVE_GROUPS / _USERS, use read or write mode, and restart the server"}
	}
	in := [4]string{searchMessagesInput, readMessagesInput, listChatsInput, markReadInput}
	if svc != nil && svc.bots != nil {
		// Several bots: each tool takes the optional bot (with one,
		// nothing is added).
		for i := range in {
			in[i] = withArchiveBot(in[i], svc.bots)
		}
	}
	return []toolkit.Spec{{
		Name:        "search_messages",
		Title:       "Search archived messages",
		Description: "Full-text search of the local message archive, newest first.",
		Input:       in[0], Output: archiveMessagesResult, Needs: config.ModeRead, Idempotent: true,
		Unavailable: off, Handler: toolkit.Handle(svc.search),
	}, {
		Name:        "read_messages",
		Title:       "Read an archived chat",
		Description: "One archived chat (group_id or user_id) in time order: the newest, or before/after/around a message_id or time; gaps mark missing messages.",
		Input:       in[1], Output: archiveMessagesResult, Needs: config.ModeRead, Idempotent: true,
		Unavailable: off, Handler: toolkit.Handle(svc.read),
	}, {
		Name:        "list_chats",
		Title:       "List archived chats",
		Description: "The archived chats, latest first, with unread counts.",
		Input:       in[2], Output: listChatsResult, Needs: config.ModeRead, Idempotent: true,
		Unavailable: off, Handler: toolkit.Handle(svc.listChats),
	}, {
		Name:        "mark_read",
		Title:       "Mark an archived chat read",
		Description: "Mark an archived chat (group_id or user_id) read up to message_id. Local only: nothing goes to QQ.",
		Input:       in[3], Output: markReadResult, Needs: config.ModeRead, Writes: true, Idempotent: true,
		Unavailable: off, Handler: toolkit.Handle(svc.markRead),
	}}
}

// withArchiveBot adds the optional bot argument to an archive tool's input
// schema.
func withArchiveBot(input string, set *botSet) string {
	var schema map[string]json.RawMessage
	var props map[string]json.RawMessage
	if json.Unmarshal([]byte(input), &schema) != nil || json.Unmarshal(schema["properties"], &props) != nil {
		return input
	}
	labels := make([]string, len(set.bots))
	for i, b := range set.bots {
		labels[i] = b.Label
	}
	desc, _ := json.Marshal(strings.Join(labels, ", ") + " or a bot's QQ number. Default: every bot.")
	props[botProp] = json.RawMessage(`{"type": ["string", "integer"], "description": ` + string(desc) + `}`)
	schema["properties"], _ = json.Marshal(props)
	out, err := json.Marshal(schema)
	if err != nil {
		return input
	}
	return string(out)
}

// botArg reads an archive tool's bot argument, several bots being
// configured: the Chat.Bot key of the bot it names, nil without one.
func (svc *archiveService) botArg(ctx context.Context, raw json.RawMessage) (*int64, *outcome.Reply) {
	if svc.bots == nil {
		return nil, nil
	}
	// Every bot's QQ number, asked once: the labels of what is read.
	svc.bots.selfIDs(ctx)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		v = string(raw)
	}
	i, ok := svc.bots.find(ctx, v)
	if !ok {
		r := outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("no bot %s on this server: %s", raw, svc.bots.names(ctx)), "call again with bot set to one of them (a label or its QQ number)")
		return nil, &r
	}
	key, ok := svc.bots.keyOf(ctx, i)
	if !ok {
		r := outcome.Fail(outcome.KindTransport, "bot "+svc.bots.bots[i].Label+" did not say its QQ number (get_login_info)", "check that its SnowLuma is running, then call again")
		return nil, &r
	}
	return &key, nil
}

// chatBot sets chat's bot: the one bot names, else, several bots being
// configured, the one bot whose chat the archive holds (the first when
// none does); two holding it is refused, naming the bots.
func (svc *archiveService) chatBot(ctx context.Context, chat *archive.Chat, bot *int64) *outcome.Reply {
	if bot != nil {
		chat.Bot = *bot
		return nil
	}
	if svc.bots == nil {
		return nil
	}
	var holders []int64
	for i := range svc.bots.bots {
		if key, ok := svc.bots.keyOf(ctx, i); ok {
			c := *chat
			c.Bot = key
			if svc.store.Holds(c) {
				holders = append(holders, key)
			}
		}
	}
	switch len(holders) {
	case 0:
		chat.Bot = 0
	case 1:
		chat.Bot = holders[0]
	default:
		r := outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("'bot' is required: several bots keep %v: %s", *chat, svc.bots.names(ctx)),
			"call again with bot set to the label or QQ number of the bot whose view of the chat to use")
		return &r
	}
	return nil
}

type searchMessagesArgs struct {
	Bot     json.RawMessage `json:"bot"`
	Query   string          `json:"query"`
	GroupID int64           `json:"group_id"`
	UserID  int64           `json:"user_id"`
	Since   string          `json:"since"`
	Until   string          `json:"until"`
	Limit   int             `json:"limit"`
	Cursor  string          `json:"cursor"`
	Format  string          `json:"format"`
}

// archivePage is the answer of search_messages and read_messages: the
// messages as compact lines (format "lines", the default), or as one object
// each (format "fields").
type archivePage struct {
	Count int `json:"count"`
	// Chat names the messages' one chat when the call named none (a
	// search of every chat) and the lines therefore do not.
	Chat string `json:"chat,omitempty"`
	// Lines holds the messages in the order listed, one line each
	// (qqmsg.AppendLines), when the format is "lines".
	Lines string `json:"lines,omitempty"`
	// Messages is a []archive.Message when the format is "fields": an
	// empty list is then still given.
	Messages   any           `json:"messages,omitempty"`
	Gaps       []archive.Gap `json:"gaps,omitempty"`
	MoreBefore *bool         `json:"more_before,omitempty"`
	MoreAfter  *bool         `json:"more_after,omitempty"`
	NextCursor string        `json:"next_cursor,omitempty"`
	// Match is "any" when the messages hold any of the query's words,
	// not all; Note says why when the model did not ask for it.
	Match string `json:"match,omitempty"`
	Note  string `json:"note,omitempty"`
	Trust string `json:"trust"`
}

func badArg(pointer, why string) outcome.Reply {
	return outcome.Fail(outcome.KindInvalidArguments, pointer+": "+why, "fix the argument and call again")
}

// parseTime reads a time argument; one without an offset is in the
// operator's zone.
func (svc *archiveService) parseTime(pointer, s string) (time.Time, *outcome.Reply) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := svc.store.ParseTime(s)
	if err != nil {
		r := badArg(pointer, err.Error())
		return time.Time{}, &r
	}
	return t, nil
}

// forModel is msgs as a model reads them: QQ users' text and names with
// the host's markup neutralized, and a message's later lines indented so
// that none poses as another sender's (as the channel renders them).
func forModel(msgs []archive.Message) []archive.Message {
	for i := range msgs {
		msgs[i].Text = untrusted.Neutralize(channel.Indent(msgs[i].Text))
		msgs[i].Sender = untrusted.NeutralizeAttr(channel.Indent(msgs[i].Sender))
	}
	return msgs
}

// pageOf is an archivePage of msgs in format: their text and names
// neutralized as forModel does, as lines in the operator's zone (each
// naming its chat when they are of several; chat naming their one chat
// when the call did not, named being false) or as fields.
func (svc *archiveService) pageOf(msgs []archive.Message, format string, named bool) archivePage {
	page := archivePage{Count: len(msgs), Trust: channel.TrustUntrusted}
	if format == "fields" {
		if msgs == nil {
			msgs = []archive.Message{}
		}
		page.Messages = forModel(msgs)
		return page
	}
	lines := make([]qqmsg.Line, len(msgs))
	oneChat := true
	for i, m := range msgs {
		t, _ := time.Parse(time.RFC3339, m.Time)
		// qqmsg indents a text's later lines itself.
		lines[i] = qqmsg.Line{Time: t, Sender: untrusted.NeutralizeAttr(m.Sender), UserID: m.UserID, MessageID: m.MessageID,
			Text: untrusted.Neutralize(m.Text), ReplyTo: m.ReplyTo, Recalled: m.Recalled, Own: m.Own}
		if m.Chat != msgs[0].Chat {
			oneChat = false
		}
	}
	switch {
	case !oneChat || svc.bots != nil:
		// A search across chats names each line's, and, several bots
		// sharing the archive, the bot's.
		for i := range lines {
			lines[i].Chat = msgs[i].Chat
			if msgs[i].Bot != "" {
				lines[i].Chat = msgs[i].Bot + " " + msgs[i].Chat
			}
		}
	case !named && len(msgs) > 0:
		// A search of all chats whose hits are of one says which.
		page.Chat = msgs[0].Chat
	}
	page.Lines = string(qqmsg.AppendLines(nil, lines, svc.store.Location()))
	return page
}

// seen records that the model on c's connection was handed the text of
// msgs' chats, and the chat of each message's id, as get_msg and history
// reads do: they arm its send gate, a reply to one of them in its chat
// stays free, and one carried into another chat is judged as carrying
// that chat (see untrusted). The id a message replies to is not noted:
// its sender wrote it, and it may name a message of any chat.
func (svc *archiveService) seen(c *toolkit.Call, msgs []archive.Message) {
	if c == nil || c.Req == nil || c.Req.Session == nil || len(msgs) == 0 {
		return
	}
	for _, m := range msgs {
		// Several bots: the gate of the bot that received it, alone.
		reg := svc.x.backend.Provenance
		if svc.bots != nil && m.Bot != "" {
			reg = nil
			for _, b := range svc.bots.bots {
				if b.Label == m.Bot && b.Backend != nil {
					reg = b.Backend.Provenance
				}
			}
		}
		if reg == nil {
			continue
		}
		l := reg.For(c.Req.Session)
		chat := untrusted.UnknownChat
		if m.GroupID != 0 {
			chat = untrusted.GroupChat(m.GroupID)
		} else if id, err := strconv.ParseInt(strings.TrimPrefix(m.Chat, "private:"), 10, 64); err == nil {
			chat = untrusted.PrivateChat(id)
		}
		l.Note(chat)
		l.NoteMessage(m.MessageID, chat)
	}
}

func (svc *archiveService) search(ctx context.Context, c *toolkit.Call, in searchMessagesArgs) outcome.Reply {
	if r, bad := svc.unavailable(); bad {
		return r
	}
	q := archive.Query{Text: in.Query, UserID: in.UserID, Limit: in.Limit, Cursor: in.Cursor}
	var r *outcome.Reply
	if q.Since, r = svc.parseTime("/since", in.Since); r != nil {
		return *r
	}
	if q.Until, r = svc.parseTime("/until", in.Until); r != nil {
		return *r
	}
	if q.Bot, r = svc.botArg(ctx, in.Bot); r != nil {
		return *r
	}
	if in.GroupID != 0 {
		q.Chat = &archive.Chat{Group: true, ID: in.GroupID}
		if r := svc.chatBot(ctx, q.Chat, q.Bot); r != nil {
			return *r
		}
	}
	if r, ok := svc.allowed(q.Chat, in.UserID); !ok {
		return r
	}
	found, err := svc.store.Find(ctx, q)
	msgs, next := found.Messages, found.Next
	switch {
	case errors.Is(err, archive.ErrCursor):
		return badArg("/cursor", err.Error())
	case errors.Is(err, archive.ErrEmptyQuery):
		return badArg("/query", err.Error())
	case err != nil:
		return svc.failed(err)
	}
	svc.seen(c, msgs)
	page := svc.pageOf(msgs, in.Format, q.Chat != nil)
	page.NextCursor = next
	if found.Any {
		page.Match = "any"
		if found.Widened {
			page.Note = "no message holds all the words; these hold any of them"
		}
	}
	return outcome.OK(page)
}

// allowed refuses a read naming a chat or user outside the allowlists.
func (svc *archiveService) allowed(chat *archive.Chat, user int64) (outcome.Reply, bool) {
	p := svc.x.safety
	if chat != nil && chat.Group && !p.Groups.Allows(chat.ID) || chat != nil && !chat.Group && !p.Users.Allows(chat.ID) {
		return outcome.Fail(outcome.KindTargetNotAllowed, fmt.Sprintf("%v is outside this server's allowed targets", *chat),
			"use only the groups and users in get_runtime_info's safety.allowed_groups and allowed_users"), false
	}
	if user != 0 && chat == nil && !p.Users.Allows(user) {
		return outcome.Fail(outcome.KindTargetNotAllowed, fmt.Sprintf("user %d is outside this server's allowed targets", user),
			"use only the users in get_runtime_info's safety.allowed_users"), false
	}
	return outcome.Reply{}, true
}

// chatOf reads the one chat of read_messages and mark_read.
func chatOf(group, user int64) (archive.Chat, *outcome.Reply) {
	switch {
	case group != 0 && user != 0:
		r := badArg("/group_id", "give group_id or user_id, not both")
		return archive.Chat{}, &r
	case group != 0:
		return archive.Chat{Group: true, ID: group}, nil
	case user != 0:
		return archive.Chat{ID: user}, nil
	}
	r := badArg("/group_id", "give group_id or user_id")
	return archive.Chat{}, &r
}

type readArgs struct {
	Bot     json.RawMessage `json:"bot"`
	GroupID int64           `json:"group_id"`
	UserID  int64           `json:"user_id"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
	Around  json.RawMessage `json:"around"`
	Limit   int             `json:"limit"`
	Format  string          `json:"format"`
}

// position reads a message_id or a time.
func (svc *archiveService) position(pointer string, raw json.RawMessage) (*archive.Position, *outcome.Reply) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var id int64
	if json.Unmarshal(raw, &id) == nil {
		return &archive.Position{MessageID: id}, nil
	}
	var s string
	json.Unmarshal(raw, &s)
	t, r := svc.parseTime(pointer, s)
	if r != nil {
		return nil, r
	}
	return &archive.Position{Time: t}, nil
}

// chatArg is the one chat a read_messages or mark_read call names, once
// the archive is usable and the allowlists admit it; otherwise the refusal.
func (svc *archiveService) chatArg(ctx context.Context, bot json.RawMessage, groupID, userID int64) (archive.Chat, outcome.Reply, bool) {
	if r, bad := svc.unavailable(); bad {
		return archive.Chat{}, r, false
	}
	chat, r := chatOf(groupID, userID)
	if r != nil {
		return archive.Chat{}, *r, false
	}
	if r, ok := svc.allowed(&chat, 0); !ok {
		return archive.Chat{}, r, false
	}
	key, r := svc.botArg(ctx, bot)
	if r == nil {
		r = svc.chatBot(ctx, &chat, key)
	}
	if r != nil {
		return archive.Chat{}, *r, false
	}
	return chat, outcome.Reply{}, true
}

func (svc *archiveService) read(ctx context.Context, c *toolkit.Call, in readArgs) outcome.Reply {
	chat, refusal, ok := svc.chatArg(ctx, in.Bot, in.GroupID, in.UserID)
	if !ok {
		return refusal
	}
	var pos [3]*archive.Position
	for i, p := range []struct {
		name string
		raw  json.RawMessage
	}{{"/before", in.Before}, {"/after", in.After}, {"/around", in.Around}} {
		var bad *outcome.Reply
		if pos[i], bad = svc.position(p.name, p.raw); bad != nil {
			return *bad
		}
	}
	if pos[2] != nil && (pos[0] != nil || pos[1] != nil) {
		return badArg("/around", "around cannot be combined with before or after")
	}
	w, err := svc.store.Read(ctx, chat, pos[0], pos[1], pos[2], in.Limit)
	switch {
	case errors.Is(err, archive.ErrNoChat):
		return outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("the archive holds no %v", chat), "list_chats names the archived chats")
	case errors.Is(err, archive.ErrNoMessage):
		return badArg("/", err.Error())
	case err != nil:
		return svc.failed(err)
	}
	svc.seen(c, w.Messages)
	page := svc.pageOf(w.Messages, in.Format, true)
	page.Gaps, page.MoreBefore, page.MoreAfter = w.Gaps, &w.MoreBefore, &w.MoreAfter
	return outcome.OK(page)
}

type listChatsArgs struct {
	Bot        json.RawMessage `json:"bot"`
	UnreadOnly bool            `json:"unread_only"`
}

func (svc *archiveService) listChats(ctx context.Context, _ *toolkit.Call, in listChatsArgs) outcome.Reply {
	if r, bad := svc.unavailable(); bad {
		return r
	}
	bot, r := svc.botArg(ctx, in.Bot)
	if r != nil {
		return *r
	}
	chats, err := svc.store.Chats(ctx, in.UnreadOnly)
	if err != nil {
		return svc.failed(err)
	}
	if bot != nil {
		kept := chats[:0]
		for _, c := range chats {
			if c.BotKey == *bot {
				kept = append(kept, c)
			}
		}
		chats = kept
	}
	out := make([]listedChat, len(chats))
	for i, c := range chats {
		// names are chosen by QQ users too
		out[i] = listedChat{Bot: c.Bot, Chat: c.Chat, Name: untrusted.NeutralizeAttr(c.Name), Unread: c.Unread, Messages: c.Messages}
		if t, err := time.Parse(time.RFC3339, c.Newest); err == nil {
			out[i].Newest = t.In(svc.store.Location()).Format("2006-01-02 15:04")
		}
	}
	return outcome.OK(map[string]any{"chats": out, "trust": channel.TrustUntrusted})
}

// listedChat is one chat of list_chats' answer: the chat's one spelling
// (which holds its id: a group_id or user_id beside it would say it
// twice), its name, its newest message's time in the operator's zone to
// the minute (as read_messages' before and after take it) and its counts.
type listedChat struct {
	Bot      string `json:"bot,omitempty"` // several bots: the one it is kept for
	Chat     string `json:"chat"`
	Name     string `json:"name,omitempty"`
	Newest   string `json:"newest,omitempty"`
	Unread   int64  `json:"unread"`
	Messages int64  `json:"messages"`
}

type markReadArgs struct {
	Bot       json.RawMessage `json:"bot"`
	GroupID   int64           `json:"group_id"`
	UserID    int64           `json:"user_id"`
	MessageID int64           `json:"message_id"`
}

func (svc *archiveService) markRead(ctx context.Context, _ *toolkit.Call, in markReadArgs) outcome.Reply {
	chat, refusal, ok := svc.chatArg(ctx, in.Bot, in.GroupID, in.UserID)
	if !ok {
		return refusal
	}
	left, err := svc.store.MarkRead(ctx, chat, in.MessageID)
	switch {
	case errors.Is(err, archive.ErrNoChat):
		return outcome.Fail(outcome.KindInvalidArguments, fmt.Sprintf("the archive holds no %v", chat), "list_chats names the archived chats")
	case errors.Is(err, archive.ErrNoMessage):
		return badArg("/message_id", err.Error())
	case err != nil:
		return svc.failed(err)
	}
	if svc.bots != nil {
		return outcome.OK(map[string]any{"chat": archive.ChatKey(chat), "bot": svc.bots.labelOf(chat.Bot), "unread": left})
	}
	return outcome.OK(map[string]any{"chat": archive.ChatKey(chat), "unread": left})
}

// ---- what the keeper asks SnowLuma

// note logs a failure on stderr, once until a different one comes: a
// broken file fails every batch the same way.
func (svc *archiveService) note(err error) {
	line := "archive: " + err.Error()
	svc.mu.Lock()
	same := line == svc.noted
	svc.noted = line
	svc.mu.Unlock()
	if !same {
		fmt.Fprintln(svc.log, line)
	}
}

// archiveSource is what the archive's keeper asks SnowLuma, through the
// pipeline like any call, as the tool "archive".
type archiveSource struct{ svc *archiveService }

var _ archive.Source = archiveSource{}

// call runs one of the archive's own reads through the pipeline.
func (a archiveSource) call(ctx context.Context, action string, params any) outcome.Reply {
	raw, _ := json.Marshal(params)
	tc, _ := trace.Start(nil)
	return a.svc.x.Own(ctx, &pipeline.Call{Tool: archiveTool, Args: raw, Trace: tc}, action, raw)
}

// data decodes a successful reply's data into v.
func data(r outcome.Reply, v any) error {
	env, ok := r.Result.(json.RawMessage)
	if !ok || r.Diag.Outcome != outcome.OutcomeSuccess {
		msg := r.Diag.Message
		if msg == "" {
			msg = string(r.Diag.Kind)
		}
		return errors.New(msg)
	}
	var e struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(env, &e); err != nil {
		return err
	}
	return json.Unmarshal(e.Data, v)
}

// Self asks get_login_info.
func (a archiveSource) Self(ctx context.Context) (int64, error) {
	var d struct {
		UserID int64 `json:"user_id"`
	}
	err := data(a.call(ctx, "get_login_info", struct{}{}), &d)
	return d.UserID, err
}

// Chats asks get_group_list and get_friend_list; a friend is named by
// the remark, else the nickname.
func (a archiveSource) Chats(ctx context.Context) []archive.Named {
	var out []archive.Named
	var groups []struct {
		GroupID   int64  `json:"group_id"`
		GroupName string `json:"group_name"`
	}
	if err := data(a.call(ctx, "get_group_list", struct{}{}), &groups); err == nil {
		for _, g := range groups {
			out = append(out, archive.Named{Chat: archive.Chat{Group: true, ID: g.GroupID}, Name: g.GroupName})
		}
	}
	var friends []struct {
		UserID   int64  `json:"user_id"`
		Nickname string `json:"nickname"`
		Remark   string `json:"remark"`
	}
	if err := data(a.call(ctx, "get_friend_list", struct{}{}), &friends); err == nil {
		for _, f := range friends {
			name := f.Remark
			if strings.TrimSpace(name) == "" {
				name = f.Nickname
			}
			out = append(out, archive.Named{Chat: archive.Chat{ID: f.UserID}, Name: name})
		}
	}
	return out
}

// History asks SnowLuma's history actions.
func (a archiveSource) History(ctx context.Context, chat archive.Chat, anchor int64, count int) ([]json.RawMessage, error) {
	action, params := "get_friend_msg_history", map[string]any{"user_id": chat.ID, "message_id": anchor, "count": count}
	if chat.Group {
		action, params = "get_group_msg_history", map[string]any{"group_id": chat.ID, "message_id": anchor, "count": count}
	}
	var d struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := data(a.call(ctx, action, params), &d); err != nil {
		return nil, err
	}
	return d.Messages, nil
}

// recordSent stores a message the bot sent through this server.
func (svc *archiveService) recordSent(a *catalog.Action, params json.RawMessage, r outcome.Reply) {
	id := dataID(r, "message_id")
	if id == 0 {
		return
	}
	var p struct {
		MessageType string          `json:"message_type"`
		GroupID     json.Number     `json:"group_id"`
		UserID      json.Number     `json:"user_id"`
		Message     json.RawMessage `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Message) == 0 {
		return
	}
	g, _ := strconv.ParseInt(strings.Trim(p.GroupID.String(), `"`), 10, 64)
	u, _ := strconv.ParseInt(strings.Trim(p.UserID.String(), `"`), 10, 64)
	var chat archive.Chat
	switch {
	case a.Name == "send_group_msg" || p.MessageType == "group" || (p.MessageType == "" && g != 0 && a.Name != "send_private_msg"):
		chat = archive.Chat{Group: true, ID: g}
	case u != 0:
		chat = archive.Chat{ID: u}
	default:
		return
	}
	ok := false
	if chat.Bot, ok = svc.key(context.Background()); !ok {
		return
	}
	if err := svc.store.RecordSent(context.Background(), chat, id, p.Message); err != nil {
		svc.note(err)
	}
}

// runtime is the archive part of get_runtime_info.
func (svc *archiveService) runtime(ctx context.Context) any {
	if svc == nil {
		return nil
	}
	if svc.store == nil {
		return map[string]any{"path": svc.path, "error": svc.problem.Error()}
	}
	sum, err := svc.store.Summary(ctx)
	out := map[string]any{"summary": sum, "feed": svc.keeper.State()}
	if err != nil {
		out["error"] = err.Error()
	}
	return out
}

// ---- the channel's catch-up

func (svc *archiveService) requestCatchUp() {
	if svc == nil {
		return
	}
	select {
	case svc.catchUp <- struct{}{}:
	default: // one is due already
	}
}

// pushed records a live push of the channel; a chat with older
// undelivered messages asks for a catch-up instead.
func (svc *archiveService) pushed(p channel.Push) {
	chat, ok := pushChat(p.Meta)
	if !ok {
		return
	}
	if chat.Bot, ok = svc.key(context.Background()); !ok {
		return
	}
	last, _ := strconv.ParseInt(p.Meta[channel.MetaMessageID], 10, 64)
	first := last
	if f, err := strconv.ParseInt(p.Meta[channel.MetaFirstMessageID], 10, 64); err == nil {
		first = f
	}
	behind, err := svc.store.Pushed(context.Background(), chat, first, last)
	if err != nil {
		svc.note(err)
	}
	if behind {
		svc.requestCatchUp()
	}
}

func pushChat(meta map[string]string) (archive.Chat, bool) {
	if meta[channel.MetaMessageType] == "group" {
		id, err := strconv.ParseInt(meta[channel.MetaGroupID], 10, 64)
		return archive.Chat{Group: true, ID: id}, err == nil
	}
	id, err := strconv.ParseInt(meta[channel.MetaUserID], 10, 64)
	return archive.Chat{ID: id}, err == nil
}

// catchUpLoop pushes, whenever one is due, one summary per followed chat
// of what the channel could not deliver, until ctx ends.
func (svc *archiveService) catchUpLoop(ctx context.Context, cfg channel.Config, sink channel.Sink) {
	follows := func(c archive.Chat) bool {
		if key, ok := svc.key(ctx); !ok || c.Bot != key {
			return false // another bot's chat: its own channel catches up
		}
		set := cfg.Users
		if c.Group {
			set = cfg.Groups
		}
		_, ok := set[c.ID]
		return ok
	}
	// A pass starts when one is requested; one that could not deliver
	// everything (no client listening yet) is tried again every
	// catchUpPeriod until one does.
	retry := time.NewTicker(catchUpPeriod)
	defer retry.Stop()
	due := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-svc.catchUp:
			due = true
		case <-retry.C:
		}
		if due && svc.store.Err() == nil {
			due = !svc.catchUpOnce(ctx, follows, sink)
		}
		if due {
			// A failed push asks for a pass itself; the ticker retries.
			select {
			case <-svc.catchUp:
			default:
			}
		}
	}
}

// catchUpOnce pushes every chat's summary; it reports whether all were
// delivered.
func (svc *archiveService) catchUpOnce(ctx context.Context, follows func(archive.Chat) bool, sink channel.Sink) bool {
	list, err := svc.store.Undelivered(ctx, follows)
	if err != nil {
		return false
	}
	for _, u := range list {
		msgs := make([]*channel.Message, len(u.Newest))
		for i, m := range u.Newest {
			msgs[i] = &channel.Message{MessageType: "private", GroupID: m.GroupID, UserID: m.UserID, MessageID: m.MessageID, Sender: m.Sender,
				Rendered: qqmsg.Rendered{Text: m.Text, ReplyTo: m.ReplyTo}}
			if u.Chat.Group {
				msgs[i].MessageType = "group"
			}
			if t, err := time.Parse(time.RFC3339, m.Time); err == nil {
				msgs[i].Time = t.Unix()
			}
		}
		key := "user_id"
		if u.Chat.Group {
			key = "group_id"
		}
		hint := fmt.Sprintf(`read_messages {"%s":%d,"around":%d}`, key, u.Chat.ID, u.First)
		if svc.bots != nil {
			hint = fmt.Sprintf(`read_messages {"bot":%q,"%s":%d,"around":%d}`, svc.bots.bots[svc.index].Label, key, u.Chat.ID, u.First)
		}
		p := channel.CatchUp(u.Count, msgs, hint)
		if !u.Chat.Group {
			p.Meta[channel.MetaUserID] = strconv.FormatInt(u.Chat.ID, 10)
		}
		if err := sink.Push(ctx, p); err != nil {
			return false
		}
		if err := svc.store.Delivered(ctx, u); err != nil {
			return false
		}
	}
	return true
}

// archiveSink records the channel's deliveries in the archive.
type archiveSink struct {
	channel.Sink
	svc *archiveService
}

func (s archiveSink) Push(ctx context.Context, p channel.Push) error {
	err := s.Sink.Push(ctx, p)
	switch {
	case err == nil && p.Meta[channel.MetaMissed] != "":
		// A catch-up push: catchUpOnce records what it covered, all of
		// it, where pushed would find the chat behind its newest lines.
	case err == nil:
		s.svc.pushed(p)
	default:
		s.svc.requestCatchUp()
	}
	return err
}
