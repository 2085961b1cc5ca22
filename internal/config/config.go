// Package config reads snowluma-mcp's configuration: the SNOWLUMA_MCP_*
// environment variables, each declared once in the variables struct with
// its default and its meaning, which --help, doctor, the release's bundle
// and the generated table of docs/configuration.md all read from here.
//
// Load takes the environment as a list rather than reading the process's
// own, so that a test can run many configured servers side by side, and it
// reads each variable by its full name only: a bare TOKEN or MODE in a
// host's environment is never taken for ours.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/internal/editdist"
	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// Prefix starts every variable's name: SNOWLUMA_MCP_ENDPOINT and so on.
const Prefix = "SNOWLUMA_MCP"

// Mode is what the server may do: docs (the catalog only), read
// (read-only actions) or write (any action).
type Mode string

// The modes.
const (
	ModeDocs  Mode = "docs"
	ModeRead  Mode = "read"
	ModeWrite Mode = "write"
)

// Allows reports whether mode m permits what mode need requires.
func (m Mode) Allows(need Mode) bool {
	switch need {
	case ModeRead:
		return m == ModeRead || m == ModeWrite
	case ModeWrite:
		return m == ModeWrite
	}
	return true
}

// maxTimeoutMS is the longest call timeout accepted: a day.
const maxTimeoutMS = 86_400_000

// The accepted range of SNOWLUMA_MCP_MAX_REQUEST_BYTES: 64 KiB to 256 MiB.
const (
	minRequestBytes = 64 << 10
	maxRequestBytes = 256 << 20
)

// The accepted range of SNOWLUMA_MCP_MAX_BODY_BYTES: 16 KiB to 1 GiB.
const (
	minBodyBytes = 16 << 10
	maxBodyBytes = 1 << 30
)

// variables is the environment as read, one field a variable, every value
// a string so that a bad value is reported in our words. Its tags are the
// one declaration of each variable: env is the name after the prefix,
// default the value used when it is unset or empty, shown the default as a
// person reads it, desc its meaning (--help and docs/configuration.md print both;
// their Chinese forms are in internal/lang/variables.go).
type variables struct {
	Endpoint   string `env:"ENDPOINT" shown:"unset (docs mode)" desc:"SnowLuma OneBot HTTP endpoint: an absolute http(s) URL such as http://127.0.0.1:3000/, without credentials, query or fragment. Unset: docs mode, nothing is executed."`
	Token      string `env:"TOKEN" shown:"unset" desc:"Access token, sent only as 'Authorization: Bearer <token>'. Give the bare token, ASCII: one under 8 characters is served with a warning; surrounding white space is trimmed; a control character, an invisible one anywhere (zero-width space U+200B, byte-order mark U+FEFF, bidirectional controls such as U+202E), a non-ASCII one, a 'Bearer ' prefix, a pasted 'Authorization:' header, quotes or an example's placeholder (<your access token>) stops the server at start. Never logged, returned or written to disk."`
	Timeout    string `env:"TIMEOUT_MS" default:"30000" shown:"30000" desc:"Timeout of one ordinary action call, in milliseconds (1 to 86400000)."`
	Mode       string `env:"MODE" shown:"read with an endpoint, else docs" desc:"docs, read or write. Without an endpoint the mode is docs whatever this says."`
	Events     string `env:"EVENTS_URL" shown:"unset (no event tools)" desc:"SnowLuma's WebSocket server, which carries events: a ws:// or wss:// URL such as ws://127.0.0.1:3001/ (SnowLuma's default: port 3001, path /), without credentials, query or fragment (the token goes in the Authorization header). Set: read and write modes offer subscribe_events and unsubscribe_events. Never guessed from the endpoint; redirects are never followed."`
	EventsTok  string `env:"EVENTS_TOKEN" shown:"SNOWLUMA_MCP_TOKEN" desc:"Access token of SnowLuma's WebSocket server, which SnowLuma's generated configuration sets apart from the HTTP server's. Unset or empty: SNOWLUMA_MCP_TOKEN is sent. Same rules and secrecy as SNOWLUMA_MCP_TOKEN: trimmed, a control character or a 'Bearer ' prefix stops the server at start, never logged, returned or written to disk."`
	Bots       string `env:"BOTS" shown:"unset (one bot)" desc:"Several QQ accounts from one server: comma-separated short labels (a lowercase letter, then up to 15 lowercase letters or digits), e.g. main,alt,backup. The first bot is configured by SNOWLUMA_MCP_ENDPOINT, SNOWLUMA_MCP_TOKEN, SNOWLUMA_MCP_EVENTS_URL and SNOWLUMA_MCP_EVENTS_TOKEN; each other one by the same four names with _<LABEL> added (SNOWLUMA_MCP_ENDPOINT_ALT, SNOWLUMA_MCP_TOKEN_ALT, ...; its endpoint is required, its token is never taken from another bot's). Any bot may have its own SNOWLUMA_MCP_ALLOWED_GROUPS_<LABEL>, SNOWLUMA_MCP_ALLOWED_USERS_<LABEL> and SNOWLUMA_MCP_CHANNEL_APPROVERS_<LABEL> in place of the shared ones; every other variable is shared, and each audit line names its bot. With several bots the tools that reach SnowLuma take an optional bot (a label or the account's QQ number). Unset: one bot, configured exactly as without it."`
	TaskDir    string `env:"TASK_DIR" shown:"unset (no background tasks)" desc:"Write mode: an absolute private directory (created 0700) where background transfer tasks are recorded; enables invoke_action_background and list_tasks for 2026-07-28 clients with the Tasks extension. Bound to this mode, endpoint and token."`
	MaxRequest string `env:"MAX_REQUEST_BYTES" default:"4194304" shown:"4194304 (4 MiB)" desc:"Longest request line read from stdin, in bytes (65536 to 268435456); a longer line is discarded and answered with an error."`
	MaxBody    string `env:"MAX_BODY_BYTES" default:"2097152" shown:"2097152 (2 MiB)" desc:"Largest request body sent to SnowLuma, in bytes (16384 to 1073741824): SnowLuma cuts off a longer body and drops the connection, so a call over it is refused with kind too_large before sending, and upload chunks are cut to fit. Raise it only for a OneBot server that accepts more."`
	Lang       string `env:"LANG" shown:"from the locale (LC_ALL, LC_MESSAGES, LANG), else the system's display language: zh for Chinese, else en" desc:"zh or en, in any common form (zh-CN, zh_CN.UTF-8, zh-Hans, zh-TW, en-US, ...): the language of what a person reads: the missing-parameter and confirmation forms, doctor, start-up errors and warnings, and the preview panel when its host gives no locale. Tool descriptions and results stay English."`
	DryRun     string `env:"DRY_RUN" default:"false" shown:"false" desc:"true, 1 or yes: a dry run. Every write action and upload passes every check (mode, params, allowlists, pacing, confirmation) and is then not sent: it is audited and logged as a dry run and answered with kind dry_run, naming the action and its targets; read-only actions still go to SnowLuma. Case is ignored."`
	Seed       string `env:"SANDBOX_SEED" default:"1" shown:"1" desc:"snowluma-mcp sandbox only: the seed of the simulated account, a whole number from 0 to 18446744073709551615; the same seed gives the same groups, members, history and files."`
	Trickle    string `env:"SANDBOX_TRICKLE_MS" default:"15000" shown:"15000" desc:"snowluma-mcp sandbox only: milliseconds between two moments of the simulated account's own life (a member's message, now and then a poke or a join request), 0 to 86400000; 0 keeps it silent unless acted on."`
	SelfMsgs   string `env:"SANDBOX_REPORT_SELF" default:"false" shown:"false" desc:"snowluma-mcp sandbox only: true, 1 or yes: the simulated SnowLuma pushes the bot's own sends as message_sent events, as SnowLuma does with reportSelfMessage on; false (SnowLuma's default) never pushes them. Case is ignored."`
	Validate   string `env:"VALIDATE_PARAMS" default:"true" shown:"true" desc:"true, 1 or yes: check action params against the catalog's inputSchema before sending; false, 0 or no: send them unchecked (for a SnowLuma newer than the catalog). Case is ignored."`

	// Account safety (docs/safety.md).
	Sensitive     string `env:"SENSITIVE" default:"deny" shown:"deny" desc:"Actions whose answer is a credential of the account (get_cookies, get_clientkey, ...): deny refuses them, redact runs them and masks every string and number of the answer's data, allow returns them unchanged."`
	Confirm       string `env:"CONFIRM" default:"none" shown:"none" desc:"none, destructive or writes: which actions a person must confirm through a form before they run (destructive: kicks, leaving a group, recalls, deletions...; writes: every write action)."`
	Untrusted     string `env:"UNTRUSTED_SENDS" default:"confirm" shown:"confirm" desc:"confirm, refuse or off: once QQ users' text has reached the model (an event read, a channel push, a read of others' messages or names), a write is judged by what SnowLuma will do with it: where it lands, what it loads, fetches or carries (another chat's message), whether it posts outside any chat. One that could carry the text elsewhere must be confirmed by a person (confirm: a form, or an approver from QQ) or is refused with kind untrusted_context (refuse); off lets it run. Replying in a chat that was read stays free. The chats read are kept 24 h, across restarts, in the user's cache directory (beside the task store with SNOWLUMA_MCP_TASK_DIR); doctor names the file."`
	SendInterval  string `env:"SEND_MIN_INTERVAL_MS" default:"1000" shown:"1000" desc:"Least milliseconds between two message sends to the same group or user (0 to 86400000; 0 turns it off). A faster send is refused with kind rate_limited."`
	SendPerMinute string `env:"SEND_PER_MINUTE" default:"20" shown:"20" desc:"Most message sends in any minute across all targets (0 to 100000; 0 turns it off). A send over it is refused with kind rate_limited."`
	Groups        string `env:"ALLOWED_GROUPS" shown:"unset (any group)" desc:"Comma-separated group numbers the actions may name in group_id (or a param whose catalog role is group_id); any other is refused with kind target_not_allowed, reads included."`
	Users         string `env:"ALLOWED_USERS" shown:"unset (any user)" desc:"Comma-separated QQ numbers the actions may name in user_id (or a param whose catalog role is user_id or member_id, such as target_id or target_uin); any other is refused with kind target_not_allowed, reads included."`
	AuditFile     string `env:"AUDIT_FILE" shown:"unset (no audit)" desc:"Absolute path of a file that gets one JSON line per write action attempted (ids and outcome only), created 0600. When it cannot be written, write actions are refused."`

	// The QQ channel for Claude Code (docs/channel.md).
	Channel          string `env:"CHANNEL" default:"off" shown:"off" desc:"off, mentions or all: push the listed groups' and people's QQ messages into a Claude Code session as a channel (mentions: group messages only when they mention the bot or reply to it). Needs SNOWLUMA_MCP_EVENTS_URL and read or write mode; the event connection then opens at start."`
	ChannelGroups    string `env:"CHANNEL_GROUPS" shown:"unset (no group)" desc:"Comma-separated group numbers whose messages the channel pushes; each must pass SNOWLUMA_MCP_ALLOWED_GROUPS when that is set. Unset pushes no group."`
	ChannelUsers     string `env:"CHANNEL_USERS" shown:"unset (no one)" desc:"Comma-separated QQ numbers whose private messages the channel pushes; each must pass SNOWLUMA_MCP_ALLOWED_USERS when that is set."`
	ChannelApprovers string `env:"CHANNEL_APPROVERS" shown:"unset (no remote approval)" desc:"Write mode: comma-separated QQ numbers who approve from their private chat with the bot (yes <id> / no <id>): Claude Code's permission prompts, and this server's confirmations when the client has no form. Each must pass SNOWLUMA_MCP_ALLOWED_USERS."`

	// The local message archive (docs/archive.md).
	Archive             string `env:"ARCHIVE" shown:"unset (no archive)" desc:"Read and write modes: the absolute path of an SQLite file (created 0600, its directory 0700), or a postgres:// URL of a PostgreSQL database several servers share (docs/archive.md), that keeps the archived chats' messages from the event connection, SnowLuma's history and the bot's own sends; enables search_messages, read_messages, list_chats and mark_read, and the channel's catch-up. One server at a time per file; the token is never stored, and a URL's password is never shown."`
	ArchiveReader       string `env:"ARCHIVE_READER" shown:"the operator's user name" desc:"Who reads a shared (PostgreSQL) archive: read marks and the channel's delivery record are the reader's own, so two operators' unread counts do not disturb each other. Up to 64 characters."`
	ArchiveGroups       string `env:"ARCHIVE_GROUPS" shown:"unset (no group)" desc:"Comma-separated group numbers to archive, or * for every group SNOWLUMA_MCP_ALLOWED_GROUPS permits."`
	ArchiveUsers        string `env:"ARCHIVE_USERS" shown:"unset (no one)" desc:"Comma-separated QQ numbers whose private chats to archive, or * for every person SNOWLUMA_MCP_ALLOWED_USERS permits."`
	ArchiveDays         string `env:"ARCHIVE_DAYS" default:"90" shown:"90" desc:"Days a message is kept (1 to 36500); older ones are removed, oldest first."`
	ArchiveMaxBytes     string `env:"ARCHIVE_MAX_BYTES" default:"1073741824" shown:"1073741824 (1 GiB)" desc:"Most bytes the archive's data may use; past it the oldest messages are removed first."`
	ArchiveKeepRecalled string `env:"ARCHIVE_KEEP_RECALLED" default:"false" shown:"false" desc:"true, 1 or yes: keep the text of a recalled message (it is marked recalled either way); false removes the text from the file and the search index."`
	TZ                  string `env:"TZ" shown:"the system's zone" desc:"The operator's time zone: the archive's times are shown with its offset (2026-12-03T09:40:00+08:00), and since/until/before/after without an offset are read in it. An IANA name such as Asia/Shanghai, or an offset such as +08:00."`

	// Stream transfers.
	DownloadDir   string `env:"DOWNLOAD_DIR" shown:"Windows: %USERPROFILE%\\Downloads\\snowluma-mcp; elsewhere <user cache dir>/snowluma-mcp/downloads" desc:"Absolute directory on the MCP host where downloads are saved; created 0700 when missing. An existing one other users can write to stops the server at start (POSIX; run chmod go-w on it)."`
	UploadRoot    string `env:"UPLOAD_ROOT" shown:"unset (automatic upload off)" desc:"Absolute path of an existing directory: the only place invoke_action's execution.input_file may read from (symlinks resolved)."`
	MaxFileBytes  string `env:"MAX_FILE_BYTES" default:"1073741824" shown:"1073741824 (1 GiB)" desc:"Largest file a download saves or an automatic upload sends, in bytes."`
	DownloadQuota string `env:"DOWNLOAD_QUOTA_BYTES" default:"4294967296" shown:"4294967296 (4 GiB)" desc:"Most bytes the whole download directory may hold; a download that would pass it fails with kind quota."`
	MaxStreams    string `env:"MAX_STREAMS" default:"4" shown:"4" desc:"Stream calls that may run at once (1 to 64); one more fails at once with kind busy."`
	StreamConnect string `env:"STREAM_CONNECT_TIMEOUT_MS" default:"10000" shown:"10000" desc:"Longest time to connect to SnowLuma and send a stream call's request, in milliseconds (1 to 86400000)."`
	StreamIdle    string `env:"STREAM_IDLE_TIMEOUT_MS" default:"60000" shown:"60000" desc:"Longest wait for the next bytes of a stream, in milliseconds (1 to 86400000); a long stream that keeps moving never times out."`
	MaxImage      string `env:"MAX_IMAGE_BYTES" default:"1048576" shown:"1048576 (1 MiB)" desc:"Largest picture view_media returns, in bytes once encoded again (1 to 16777216): a larger one is encoded at lower quality, then smaller, until it fits."`
}

// maxPerMinute bounds SNOWLUMA_MCP_SEND_PER_MINUTE.
const maxPerMinute = 100_000

// Config is the validated configuration.
type Config struct {
	Endpoint  *url.URL // nil in docs mode without an endpoint
	Token     string
	TimeoutMS int
	// MaxRequestBytes is the longest stdin line read.
	MaxRequestBytes int
	// MaxBodyBytes is the longest request body sent to SnowLuma.
	MaxBodyBytes int64
	Mode         Mode
	// TaskDir is the background task directory; empty when unset.
	TaskDir string
	// Lang is the language of what a person reads.
	Lang lang.Lang
	// ValidateParams checks action params against the catalog before sending.
	ValidateParams bool
	// DryRun checks every write and upload and then does not send it.
	DryRun bool
	// SandboxSeed is the seed of the sandbox's simulated account, and
	// SandboxTrickle the pace of its own events (0: silence).
	SandboxSeed    uint64
	SandboxTrickle time.Duration
	// SandboxReportSelf is the sandbox's reportSelfMessage.
	SandboxReportSelf bool
	// Sandbox says the endpoint is the simulated SnowLuma that
	// `snowluma-mcp sandbox` started in this process. Load never sets it:
	// the sandbox command does, after it has started that SnowLuma.
	Sandbox bool
	// Safety is the account-safety policy; its pacer is built by the
	// caller from SendInterval and SendPerMinute.
	Safety safety.Policy
	// UntrustedSends is what happens to a write that could carry QQ
	// users' text elsewhere (SNOWLUMA_MCP_UNTRUSTED_SENDS).
	UntrustedSends untrusted.Mode
	SendInterval   time.Duration
	SendPerMinute  int
	// EventsURL is SnowLuma's event WebSocket; nil when events are off.
	EventsURL *url.URL
	// EventsToken is the token sent on the event WebSocket: that of
	// SNOWLUMA_MCP_EVENTS_TOKEN, or Token when it is unset.
	EventsToken string
	// EventsTokenFrom says where EventsToken came from, for doctor: "set",
	// "inherited" (from SNOWLUMA_MCP_TOKEN) or "unset" (no token at all).
	EventsTokenFrom string
	// Bots lists the configured bots, the first being the one the
	// unsuffixed variables configure (Endpoint, Token, EventsURL and
	// EventsToken above are its). It has one entry unless
	// SNOWLUMA_MCP_BOTS names several.
	Bots []Bot
	// Streams configures stream transfers.
	Streams StreamConfig
	// Channel configures the QQ channel; its Mode is channel.ModeOff when
	// it is off. Its allowlists are Safety's.
	Channel channel.Config
	// Archive configures the message archive; nil when it is off.
	Archive *ArchiveConfig
	// Location is the operator's time zone (SNOWLUMA_MCP_TZ, else the
	// system's): times shown and read without an offset use it.
	Location *time.Location
	// CacheDir is the user's cache directory as os.UserCacheDir finds it
	// in the configuration's environment (LOCALAPPDATA on Windows,
	// XDG_CACHE_HOME or ~/.cache on Linux): per-user state the server
	// keeps by default, such as the send gate's record. "" in docs mode
	// or when the environment names none.
	CacheDir string
	// Notes are start-up remarks for stderr, e.g. an ignored mode.
	Notes []string
	// goos is the system whose rules the configuration was read by.
	goos string
	// Fixes holds, by a note's text, what to do about it (doctor shows
	// it); a note without one gets doctor's general advice.
	Fixes map[string]string
	// Misspelt are the variables with our prefix that the server does not
	// read, each with the one it most resembles; each has its note in
	// Notes too.
	Misspelt []Misspelling
}

// A Bot is one QQ account the server drives: its label and how to reach
// its SnowLuma. The tokens are secrets, as Config's are.
type Bot struct {
	// Label names the bot in tools' bot argument and in every answer,
	// log line and doctor verdict about it: "main" when SNOWLUMA_MCP_BOTS
	// is unset.
	Label     string
	Endpoint  *url.URL // nil in docs mode
	Token     string
	EventsURL *url.URL // nil when its events are off
	// EventsToken and EventsTokenFrom are as Config's.
	EventsToken, EventsTokenFrom string
	// Suffix is what its variables' names end with: "" for the first
	// bot, _ALT for a bot labelled alt.
	Suffix string
	// Groups and Users, when set (SNOWLUMA_MCP_ALLOWED_GROUPS_<LABEL>,
	// ..._USERS_<LABEL>), are its allowlists instead of the shared ones.
	Groups, Users safety.IDSet
	// OwnGroups and OwnUsers say that they were set.
	OwnGroups, OwnUsers bool
	// Approvers, when OwnApprovers (SNOWLUMA_MCP_CHANNEL_APPROVERS_<LABEL>),
	// approve from their private chat with this bot instead of the shared
	// SNOWLUMA_MCP_CHANNEL_APPROVERS.
	Approvers    safety.IDSet
	OwnApprovers bool
}

// DefaultBot is the label of the one bot of a configuration without
// SNOWLUMA_MCP_BOTS.
const DefaultBot = "main"

// maxBots bounds SNOWLUMA_MCP_BOTS: every bot costs a client, an event
// connection and a task runner.
const maxBots = 16

// perBotVars are the variables each further bot has its own of, and
// botAllowVars the allowlists any bot may have its own of (the unsuffixed
// ones being every bot's default); every other variable is shared.
var (
	perBotVars   = []string{"ENDPOINT", "TOKEN", "EVENTS_URL", "EVENTS_TOKEN"}
	botAllowVars = []string{"ALLOWED_GROUPS", "ALLOWED_USERS", "CHANNEL_APPROVERS"}
)

// botLabel is what a label must look like: short, lowercase, and never a
// number, so that a tool's bot argument is a label or a QQ number and
// never both.
var botLabel = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)

// ForBot is c as bot i sees it: the same shared settings with the bot's
// own endpoint, tokens, events URL, allowlists and approvers; a further
// bot's downloads go to a subdirectory named for its label. The channel
// follows every bot with an events URL; background tasks and the archive
// are the first bot's alone (docs/configuration.md, Several bots).
func (c *Config) ForBot(i int) *Config {
	b := c.Bots[i]
	d := *c
	d.Endpoint, d.Token, d.EventsURL, d.EventsToken, d.EventsTokenFrom = b.Endpoint, b.Token, b.EventsURL, b.EventsToken, b.EventsTokenFrom
	d.Bots = []Bot{b}
	if b.OwnGroups {
		d.Safety.Groups = b.Groups
	}
	if b.OwnUsers {
		d.Safety.Users = b.Users
	}
	if len(c.Bots) > 1 && c.Safety.Audit != nil {
		d.Safety.Audit = c.Safety.Audit.ForBot(b.Label)
	}
	if d.Channel.Mode != channel.ModeOff {
		d.Channel.AllowGroups, d.Channel.AllowUsers = d.Safety.Groups, d.Safety.Users
		if b.OwnApprovers {
			d.Channel.Approvers = b.Approvers
		}
		if b.EventsURL == nil {
			d.Channel = channel.Config{Mode: channel.ModeOff}
		}
	}
	if i > 0 {
		d.TaskDir = ""
		d.Archive = nil
		if d.Streams.DownloadDir != "" {
			// Its own downloads, apart: two accounts' files of one name
			// never meet, and each has the quota.
			d.Streams.DownloadDir = filepath.Join(d.Streams.DownloadDir, b.Label)
		}
	}
	return &d
}

// parseBots reads SNOWLUMA_MCP_BOTS and the further bots' variables, once
// the first bot's and the mode are known.
func parseBots(e variables, c *Config, getenv func(string) string) error {
	first := Bot{Label: DefaultBot, Endpoint: c.Endpoint, Token: c.Token, EventsURL: c.EventsURL, EventsToken: c.EventsToken, EventsTokenFrom: c.EventsTokenFrom}
	c.Bots = []Bot{first}
	list := strings.TrimSpace(halfWidth(e.Bots))
	if list == "" {
		return nil
	}
	accepted := lang.T(lang.ConfigBots)
	var labels []string
	for _, f := range strings.Split(list, ",") {
		l := strings.ToLower(strings.TrimSpace(f))
		switch {
		case !botLabel.MatchString(l):
			return &Error{"BOTS", lang.T(lang.ConfigBadBots, fmt.Sprintf("%q is not a label", strings.TrimSpace(f))), accepted}
		case slices.Contains(labels, l):
			return &Error{"BOTS", lang.T(lang.ConfigBadBots, fmt.Sprintf("%s is named twice", l)), accepted}
		}
		labels = append(labels, l)
	}
	if len(labels) > maxBots {
		return &Error{"BOTS", lang.T(lang.ConfigBadBots, fmt.Sprintf("%d bots, more than %d", len(labels), maxBots)), accepted}
	}
	c.Bots[0].Label = labels[0]
	for _, l := range labels[1:] {
		b := Bot{Label: l, Suffix: "_" + strings.ToUpper(l)}
		if err := parseBotAllow(&b, getenv); err != nil {
			return err
		}
		ep := strings.TrimSpace(getenv(Prefix + "_ENDPOINT" + b.Suffix))
		if ep == "" {
			if c.Mode == ModeDocs {
				c.Bots = append(c.Bots, b)
				continue
			}
			return &Error{"ENDPOINT" + b.Suffix, lang.T(lang.ConfigBotNoEndpoint, l, Prefix+"_ENDPOINT"+b.Suffix), lang.T(lang.ConfigBotEndpoint, Prefix+"_ENDPOINT"+b.Suffix, l)}
		}
		var err error
		if b.Endpoint, err = parseURL("ENDPOINT"+b.Suffix, ep, [2]string{"http", "https"}, lang.T(lang.ConfigEndpointURL)); err != nil {
			return err
		}
		if b.Token, err = parseToken("TOKEN"+b.Suffix, getenv(Prefix+"_TOKEN"+b.Suffix)); err != nil {
			return err
		}
		evTok := getenv(Prefix + "_EVENTS_TOKEN" + b.Suffix)
		if b.EventsToken, err = parseToken("EVENTS_TOKEN"+b.Suffix, evTok); err != nil {
			return err
		}
		for _, t := range []struct{ name, tok string }{{"TOKEN" + b.Suffix, b.Token}, {"EVENTS_TOKEN" + b.Suffix, b.EventsToken}} {
			if n := len(t.tok); n > 0 && n < MinTokenLen {
				c.note(c.Lang.Sprintf(lang.NoteTokenShort, Prefix+"_"+t.name, n, MinTokenLen), c.Lang.Sprintf(lang.NoteTokenShortFix))
			}
		}
		switch {
		case b.EventsToken != "":
			b.EventsTokenFrom = "set"
		case b.Token != "":
			b.EventsToken, b.EventsTokenFrom = b.Token, "inherited"
		default:
			b.EventsTokenFrom = "unset"
		}
		if ev := strings.TrimSpace(getenv(Prefix + "_EVENTS_URL" + b.Suffix)); ev != "" && c.Mode != ModeDocs {
			if b.EventsURL, err = parseURL("EVENTS_URL"+b.Suffix, ev, [2]string{"ws", "wss"}, lang.T(lang.ConfigEventsURL)); err != nil {
				return err
			}
		}
		c.Bots = append(c.Bots, b)
	}
	return parseBotAllow(&c.Bots[0], getenv)
}

// checkBotChannels checks, with several bots, each bot's channel against
// its own allowlists, as parseChannel checks the shared ones.
func checkBotChannels(c *Config) error {
	if len(c.Bots) < 2 || c.Channel.Mode == channel.ModeOff {
		return nil
	}
	for i, b := range c.Bots {
		ch := c.ForBot(i).Channel
		if len(ch.Approvers) > 0 && c.Mode != ModeWrite {
			return &Error{"CHANNEL_APPROVERS" + b.Suffix, lang.T(lang.ConfigApproversWrite), lang.T(lang.ConfigApproversFix)}
		}
		if out := ch.Outside(); out != nil {
			p := out[0]
			own := map[bool]string{true: "_" + strings.ToUpper(b.Label)}
			v, allow := p.Var, p.Allow
			if p.Var == "CHANNEL_APPROVERS" {
				v += own[b.OwnApprovers]
			}
			if (p.Allow == "ALLOWED_GROUPS" && b.OwnGroups) || (p.Allow == "ALLOWED_USERS" && b.OwnUsers) {
				allow += own[true]
			}
			return &Error{v, lang.T(lang.ConfigChannelOutside, p.ID, Prefix+"_"+allow), lang.T(lang.ConfigChannelInside, Prefix+"_"+allow)}
		}
	}
	return nil
}

// parseBotAllow reads bot b's own allowlists, when set.
func parseBotAllow(b *Bot, getenv func(string) string) error {
	suffix := "_" + strings.ToUpper(b.Label)
	for _, l := range []struct {
		name     string
		set      *safety.IDSet
		own      *bool
		accepted lang.Message
	}{
		{"ALLOWED_GROUPS" + suffix, &b.Groups, &b.OwnGroups, lang.ConfigGroups},
		{"ALLOWED_USERS" + suffix, &b.Users, &b.OwnUsers, lang.ConfigUsers},
		{"CHANNEL_APPROVERS" + suffix, &b.Approvers, &b.OwnApprovers, lang.ConfigChannelUsers},
	} {
		v := halfWidth(getenv(Prefix + "_" + l.name))
		if strings.TrimSpace(v) == "" {
			continue
		}
		var err error
		if *l.set, err = safety.ParseIDs(v); err != nil {
			return &Error{l.name, lang.T(lang.ConfigBadList, err.Error()), lang.T(l.accepted)}
		}
		*l.own = true
	}
	return nil
}

// botVariables lists the further bots' variables that environ's
// SNOWLUMA_MCP_BOTS declares: SNOWLUMA_MCP_ENDPOINT_ALT and so on.
func botVariables(getenv func(string) string) []string {
	var out []string
	for i, f := range strings.Split(halfWidth(getenv(Prefix+"_BOTS")), ",") {
		l := strings.ToLower(strings.TrimSpace(f))
		if !botLabel.MatchString(l) {
			continue
		}
		for _, v := range botAllowVars {
			out = append(out, Prefix+"_"+v+"_"+strings.ToUpper(l))
		}
		if i == 0 {
			continue
		}
		for _, v := range perBotVars {
			out = append(out, Prefix+"_"+v+"_"+strings.ToUpper(l))
		}
	}
	return out
}

// note adds a start-up remark in c's language and what to do about it.
func (c *Config) note(text, fix string) {
	c.Notes = append(c.Notes, text)
	if c.Fixes == nil {
		c.Fixes = map[string]string{}
	}
	c.Fixes[text] = fix
}

// ArchiveConfig is the validated configuration of the message archive.
type ArchiveConfig struct {
	// Path is what may be shown of the archive: the file's absolute path,
	// or the database's URL without its password.
	Path string
	// URL is the PostgreSQL URL as given, password included: only for
	// connecting, never shown. Empty for a file.
	URL string
	// Reader names who reads a shared archive (ARCHIVE_READER).
	Reader string
	// AllGroups and AllUsers: * was given, every chat the allowlists
	// permit; else Groups and Users list the chats.
	AllGroups, AllUsers bool
	Groups, Users       safety.IDSet
	Days                int
	MaxBytes            int64
	KeepRecalled        bool
	// Location is Config.Location: the archive shows and reads times in it.
	Location *time.Location
}

// StreamConfig is the validated configuration of stream transfers.
type StreamConfig struct {
	DownloadDir      string // absolute; empty in docs mode
	UploadRoot       string // absolute, an existing directory; empty: automatic upload off
	MaxFileBytes     int64
	QuotaBytes       int64
	MaxStreams       int
	ConnectTimeoutMS int
	IdleTimeoutMS    int
	MaxImageBytes    int64 // of a picture view_media returns
}

// Largest accepted byte limits: a file of 1 TiB, a directory of 64 TiB.
const (
	maxFileBytesLimit  = 1 << 40
	maxQuotaBytesLimit = 1 << 46
	maxStreamsLimit    = 64 // SnowLuma's own limit of concurrent streams
	maxImageBytesLimit = 16 << 20
)

// An Error names the variable at fault, what is wrong with its value and
// what is accepted, in words put into a language when shown (In). It never
// repeats a secret value.
type Error struct {
	Var      string
	Problem  lang.Text
	Accepted lang.Text
}

// Error is the error in English.
func (e *Error) Error() string { return e.In(lang.En) }

// In is the error in l: the variable, the problem and what is accepted.
func (e *Error) In(l lang.Lang) string {
	return l.Sprintf(lang.ConfigLine, Prefix+"_"+e.Var, l.Text(e.Problem), l.Text(e.Accepted))
}

// PersonLang is the language of what a person reads at start-up, known
// before the rest of the configuration in environ is: SNOWLUMA_MCP_LANG
// when it names a language, else the locale's (a bad SNOWLUMA_MCP_LANG is
// itself reported, in the locale's language).
func PersonLang(environ []string) lang.Lang {
	getenv := Lookup(environ)
	if l, err := lang.Select(getenv(Prefix+"_LANG"), getenv); err == nil {
		return l
	}
	return lang.FromLocale(getenv)
}

// Lookup reads environ, a list of NAME=value entries, as os.Getenv reads
// the process's environment on this system; a later entry wins, as with
// os/exec. On Windows names are read in any case, as Windows reads them
// (set snowluma_mcp_mode=write sets SNOWLUMA_MCP_MODE); elsewhere exactly.
func Lookup(environ []string) func(string) string {
	return LookupOn(runtime.GOOS, environ)
}

// LookupOn is Lookup as it reads names on goos.
func LookupOn(goos string, environ []string) func(string) string {
	fold := foldsNames(goos)
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if fold {
				k = strings.ToUpper(k)
			}
			vars[k] = v
		}
	}
	return func(k string) string {
		if fold {
			k = strings.ToUpper(k)
		}
		return vars[k]
	}
}

// foldsNames reports whether goos reads environment variable names in any
// case: Windows does, every other system Go runs on does not.
func foldsNames(goos string) bool { return goos == "windows" }

// A Variable is one setting as --help, docs/configuration.md and the bundle's
// settings show it.
type Variable struct {
	Name    string // the full name, SNOWLUMA_MCP_ENDPOINT
	Default string // the value used when it is unset or empty; "" if none
	Shown   string // the default as a person reads it
	Meaning string
}

// In is v as a person reading l sees it: its default and meaning in l
// (internal/lang holds the Chinese ones), its name as it is.
func (v Variable) In(l lang.Lang) Variable {
	v.Shown, v.Meaning = lang.Variable(l, strings.TrimPrefix(v.Name, Prefix+"_"), v.Shown, v.Meaning)
	return v
}

// Variables lists every variable the server reads, in declaration order.
func Variables() []Variable {
	t := reflect.TypeFor[variables]()
	out := make([]Variable, 0, t.NumField())
	for i := range t.NumField() {
		tag := t.Field(i).Tag
		out = append(out, Variable{Name: Prefix + "_" + tag.Get("env"), Default: tag.Get("default"), Shown: tag.Get("shown"), Meaning: tag.Get("desc")})
	}
	return out
}

// Load reads the configuration from environ, a list of NAME=value entries
// such as os.Environ returns, and applies the baseline's mode rules. A
// variable that is unset or empty takes its default. The audit file, when
// one is configured, is opened here, so that a path that cannot be written
// stops the start.
func Load(environ []string) (*Config, error) {
	return load(runtime.GOOS, environ)
}

// load is Load with the environment's names read as goos reads them.
func load(goos string, environ []string) (*Config, error) {
	getenv := LookupOn(goos, environ)
	var e variables
	ev := reflect.ValueOf(&e).Elem()
	for i := range ev.NumField() {
		tag := ev.Type().Field(i).Tag
		v := getenv(Prefix + "_" + tag.Get("env"))
		if v == "" {
			v = tag.Get("default")
		}
		ev.Field(i).SetString(v)
	}
	c, err := parse(e, goos, getenv)
	if err != nil {
		return nil, err
	}
	c.Misspelt = misspelt(goos, c.Lang, environ)
	for _, m := range c.Misspelt {
		c.Notes = append(c.Notes, m.Note)
	}
	return c, nil
}

// knownVariables lists the full names of the variables Load reads.
func knownVariables() []string {
	var out []string
	for _, v := range Variables() {
		out = append(out, v.Name)
	}
	return out
}

// Unknown returns one warning for each variable in environ that
// carries our prefix but is not one we read (a typo such as
// SNOWLUMA_MCP_TIMEOUT), naming the closest known variable. The value is
// never repeated: a misspelt SNOWLUMA_MCP_TOKEN holds a secret. The
// warnings are in l.
func Unknown(l lang.Lang, environ []string) []string {
	var out []string
	for _, m := range Misspelt(l, environ) {
		out = append(out, m.Note)
	}
	return out
}

// A Misspelling is a variable set with our prefix that the server does not
// read, the known variable it most resembles, and the warning about it.
type Misspelling struct {
	Name, Closest string
	Note          string // in the configuration's language
}

// Misspelt finds the variables that Unknown warns about, with the closest
// known name of each, so that doctor can say which rename fixes it.
func Misspelt(l lang.Lang, environ []string) []Misspelling {
	return misspelt(runtime.GOOS, l, environ)
}

// misspelt is Misspelt with names read as goos reads them: on Windows
// snowluma_mcp_mode is SNOWLUMA_MCP_MODE, and snowluma_mcp_mdoe a typo.
func misspelt(goos string, l lang.Lang, environ []string) []Misspelling {
	perBot := botVariables(LookupOn(goos, environ))
	known := append(knownVariables(), perBot...)
	var out []Misspelling
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		upper := name
		if foldsNames(goos) {
			upper = strings.ToUpper(name)
		}
		if !strings.HasPrefix(upper, Prefix+"_") || slices.Contains(known, upper) {
			continue
		}
		closest := slices.MinFunc(known, func(a, b string) int {
			return cmp.Compare(nameDistance(upper, a), nameDistance(upper, b))
		})
		// A misspelt label (SNOWLUMA_MCP_TOKEN_BAKCUP) starts with a
		// shared variable's name, but means a further bot's.
		for _, v := range perBot {
			if editdist.Distance(upper, v) <= 2 {
				closest = v
				break
			}
		}
		out = append(out, Misspelling{Name: name, Closest: closest, Note: l.Sprintf(lang.NoteUnknownVariable, name, closest)})
	}
	return out
}

// nameDistance is how far a misspelt variable name is from a real one: 0
// when one is the start of the other (SNOWLUMA_MCP_TIMEOUT for
// SNOWLUMA_MCP_TIMEOUT_MS), else their edit distance.
func nameDistance(typed, real string) int {
	if strings.HasPrefix(real, typed) || strings.HasPrefix(typed, real) {
		return 0
	}
	return editdist.Distance(typed, real)
}

// parseToken trims surrounding white space from the token in variable v
// (TOKEN or EVENTS_TOKEN) and refuses what would make every call fail
// later as a transport error: a control character (a CRLF .env file
// leaves a carriage return), an invisible character anywhere in it (a
// zero-width space, a byte-order mark, a bidirectional control: see
// invisible), or a pasted "Bearer " prefix, since the server adds that
// itself. Errors never echo the token.
func parseToken(v, s string) (string, error) {
	accepted := lang.T(lang.ConfigTokenAccepted)
	tok := strings.TrimSpace(s)
	if i := strings.IndexFunc(tok, unicode.IsControl); i >= 0 {
		return "", &Error{v, lang.T(lang.ConfigTokenControl, []rune(tok[i:])[0]), accepted}
	}
	if i := strings.IndexFunc(tok, invisible); i >= 0 {
		r := []rune(tok[i:])[0]
		n := len(string(r))
		where := lang.T(lang.ConfigInside)
		switch {
		case i == 0:
			where = lang.T(lang.ConfigAtStart)
		case i+n == len(tok):
			where = lang.T(lang.ConfigAtEnd)
		}
		return "", &Error{v, lang.T(lang.ConfigTokenInvisible, r, where), accepted}
	}
	if len(tok) >= 14 && strings.EqualFold(tok[:14], "authorization:") {
		return "", &Error{v, lang.T(lang.ConfigTokenHeader), accepted}
	}
	if len(tok) >= 7 && strings.EqualFold(tok[:7], "bearer ") {
		return "", &Error{v, lang.T(lang.ConfigTokenBearer), accepted}
	}
	if open, close, ok := wrapped(tok, placeholderMarks); ok {
		return "", &Error{v, lang.T(lang.ConfigTokenWrapped, open, close), accepted}
	}
	if open, close, ok := wrapped(tok, quoteMarks); ok {
		return "", &Error{v, lang.T(lang.ConfigTokenQuoted, open, close), accepted}
	}
	for i, r := range []rune(tok) {
		if r > unicode.MaxASCII {
			return "", &Error{v, lang.T(lang.ConfigTokenChar, r, r, i+1), accepted}
		}
	}
	return tok, nil
}

// MinTokenLen is the fewest characters of an access token that draws no
// warning. A shorter one is served, since SnowLuma accepts it and refusing
// it would stop the operator until SnowLuma and every other client
// changed, but it is easily guessed, and hiding it from error messages
// (transfer's redaction replaces it wherever it appears) hides ordinary
// text as well: the start-up and doctor warn. SnowLuma generates tokens of
// 43 characters.
const MinTokenLen = 8

// noteShortTokens warns about each token shorter than MinTokenLen.
func noteShortTokens(e variables, c *Config) {
	for _, t := range []struct{ name, tok string }{{"TOKEN", c.Token}, {"EVENTS_TOKEN", strings.TrimSpace(e.EventsTok)}} {
		if n := len(t.tok); n > 0 && n < MinTokenLen {
			c.note(c.Lang.Sprintf(lang.NoteTokenShort, Prefix+"_"+t.name, n, MinTokenLen), c.Lang.Sprintf(lang.NoteTokenShortFix))
		}
	}
}

// The pairs of characters that wrap a placeholder in an example (<your
// access token>, 《访问令牌》) and the quotes a copied value keeps.
var (
	placeholderMarks = [][2]rune{{'<', '>'}, {'＜', '＞'}, {'《', '》'}, {'[', ']'}, {'【', '】'}, {'{', '}'}}
	quoteMarks       = [][2]rune{{'"', '"'}, {'\'', '\''}, {'“', '”'}, {'‘', '’'}, {'「', '」'}, {'`', '`'}}
)

// wrapped reports which of pairs, if any, opens and closes s.
func wrapped(s string, pairs [][2]rune) (open, close rune, ok bool) {
	rs := []rune(s)
	if len(rs) < 2 {
		return 0, 0, false
	}
	for _, p := range pairs {
		if rs[0] == p[0] && rs[len(rs)-1] == p[1] {
			return p[0], p[1], true
		}
	}
	return 0, 0, false
}

// halfWidth turns what a Chinese input method types into its ASCII form:
// full-width digits, letters and punctuation (２０００１，２０００２), the
// ideographic space and the enumeration comma (、). Numbers, lists and
// keywords are read through it; URLs, tokens and paths are not (see
// parseURL and parseToken, which refuse such characters by position).
func halfWidth(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r > unicode.MaxASCII }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
		case r == 0x3000:
			r = ' '
		case r == '、':
			r = ','
		}
		b.WriteRune(r)
	}
	return b.String()
}

// imeRune reports whether r is a character a Chinese input method types
// where ASCII was meant, and the ASCII to type instead ("" when it should
// be removed).
func imeRune(r rune) (instead string, ok bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return string(r - (0xFF01 - 0x21)), true
	case r == 0x3000:
		return "", true
	case r == '。':
		return ".", true
	case r == '、':
		return ",", true
	case r == '“', r == '”', r == '‘', r == '’':
		return "", true
	}
	return "", false
}

// invisible reports whether r shows as nothing, or changes only how the
// text around it shows: the format characters (zero-width spaces and
// joiners, the byte-order mark, bidirectional controls, soft hyphen,
// tags), the variation selectors, the combining grapheme joiner and the
// Hangul fillers. No token holds one on purpose, and a token that does
// looks right everywhere it is shown. They are refused rather than
// trimmed: one inside the token could not be trimmed, and removing
// characters from a secret silently would hide a bad copy.
func invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	}
	switch r {
	case '\u034F', '\u115F', '\u1160', '\u3164', '\uFFA0':
		return true
	}
	return false
}

func parse(e variables, goos string, getenv func(string) string) (*Config, error) {
	c := &Config{goos: goos}
	var err error
	// Numbers, lists and keywords as a Chinese keyboard types them.
	for _, f := range []*string{&e.Timeout, &e.Mode, &e.MaxRequest, &e.MaxBody, &e.Lang, &e.DryRun, &e.Seed, &e.Trickle, &e.Validate,
		&e.Sensitive, &e.Confirm, &e.SendInterval, &e.SendPerMinute, &e.Groups, &e.Users,
		&e.Channel, &e.ChannelGroups, &e.ChannelUsers, &e.ChannelApprovers,
		&e.MaxFileBytes, &e.DownloadQuota, &e.MaxStreams, &e.StreamConnect, &e.StreamIdle} {
		*f = halfWidth(*f)
	}
	// The language first: the notes below are in it.
	if c.Lang, err = lang.Select(e.Lang, getenv); err != nil {
		return nil, &Error{"LANG", lang.T(lang.ConfigNotLang, e.Lang), lang.T(lang.ConfigLangs)}
	}

	t, err := strconv.Atoi(strings.TrimSpace(e.Timeout))
	if err != nil || t <= 0 || t > maxTimeoutMS {
		return nil, &Error{"TIMEOUT_MS", lang.T(lang.ConfigNotPositive, e.Timeout, maxTimeoutMS), lang.T(lang.ConfigMillis, 30000)}
	}
	c.TimeoutMS = t

	m, err := strconv.Atoi(strings.TrimSpace(e.MaxRequest))
	if err != nil || m < minRequestBytes || m > maxRequestBytes {
		return nil, &Error{"MAX_REQUEST_BYTES", lang.T(lang.ConfigNotBytesIn, e.MaxRequest, minRequestBytes, maxRequestBytes), lang.T(lang.ConfigRequestBytes)}
	}
	c.MaxRequestBytes = m

	b, err := strconv.ParseInt(strings.TrimSpace(e.MaxBody), 10, 64)
	if err != nil || b < minBodyBytes || b > maxBodyBytes {
		return nil, &Error{"MAX_BODY_BYTES", lang.T(lang.ConfigNotBytesIn, e.MaxBody, minBodyBytes, maxBodyBytes), lang.T(lang.ConfigBodyBytes)}
	}
	c.MaxBodyBytes = b

	if c.ValidateParams, err = parseBool("VALIDATE_PARAMS", e.Validate); err != nil {
		return nil, err
	}
	if c.DryRun, err = parseBool("DRY_RUN", e.DryRun); err != nil {
		return nil, err
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(e.Seed), 10, 64)
	if err != nil {
		return nil, &Error{"SANDBOX_SEED", lang.T(lang.ConfigNotWholeFrom0, e.Seed, uint64(math.MaxUint64)), lang.T(lang.ConfigSeed)}
	}
	c.SandboxSeed = seed
	trickle, err := strconv.ParseInt(strings.TrimSpace(e.Trickle), 10, 64)
	if err != nil || trickle < 0 || trickle > maxTimeoutMS {
		return nil, &Error{"SANDBOX_TRICKLE_MS", lang.T(lang.ConfigNotWholeFrom0, e.Trickle, maxTimeoutMS), lang.T(lang.ConfigMillis0, 15000)}
	}
	c.SandboxTrickle = time.Duration(trickle) * time.Millisecond
	if c.SandboxReportSelf, err = parseBool("SANDBOX_REPORT_SELF", e.SelfMsgs); err != nil {
		return nil, err
	}

	tok, err := parseToken("TOKEN", e.Token)
	if err != nil {
		return nil, err
	}
	c.Token = tok
	if c.EventsToken, err = parseToken("EVENTS_TOKEN", e.EventsTok); err != nil {
		return nil, err
	}
	noteShortTokens(e, c)
	switch {
	case c.EventsToken != "":
		c.EventsTokenFrom = "set"
	case c.Token != "":
		c.EventsToken, c.EventsTokenFrom = c.Token, "inherited"
	default:
		c.EventsTokenFrom = "unset"
	}

	if err := parseSafety(e, c); err != nil {
		return nil, err
	}

	if err := parseStreams(e, goos, &c.Streams); err != nil {
		return nil, err
	}

	if e.Endpoint != "" {
		u, err := parseEndpoint(e.Endpoint)
		if err != nil {
			return nil, err
		}
		c.Endpoint = u
	}

	if e.Events != "" {
		u, err := parseURL("EVENTS_URL", e.Events, [2]string{"ws", "wss"}, lang.T(lang.ConfigEventsURL))
		if err != nil {
			return nil, err
		}
		c.EventsURL = u
	}
	if d := strings.TrimSpace(e.TaskDir); d != "" {
		if !filepath.IsAbs(d) {
			return nil, notAbsolute(goos, "TASK_DIR", d, lang.T(lang.ConfigPathNotAbsolute), lang.ConfigTaskDir, lang.ConfigTaskDirWindows)
		}
		c.TaskDir = filepath.Clean(d)
	}

	switch m := Mode(strings.ToLower(strings.TrimSpace(e.Mode))); m {
	case "":
		c.Mode = ModeDocs
		if c.Endpoint != nil {
			c.Mode = ModeRead
		}
	case ModeDocs, ModeRead, ModeWrite:
		c.Mode = m
		if c.Endpoint == nil && m != ModeDocs {
			c.Mode = ModeDocs
			c.note(c.Lang.Sprintf(lang.NoteModeIgnored, Prefix+"_MODE", m, Prefix+"_ENDPOINT"), c.Lang.Sprintf(lang.NoteModeIgnoredFix))
		}
	default:
		return nil, &Error{"MODE", lang.T(lang.ConfigNotMode, e.Mode), lang.T(lang.ConfigModes)}
	}
	if c.EventsURL != nil && c.Mode == ModeDocs {
		c.EventsURL = nil
		c.note(c.Lang.Sprintf(lang.NoteEventsIgnored, Prefix+"_EVENTS_URL"), c.Lang.Sprintf(lang.NoteEventsIgnoredFix))
	}
	if c.EventsURL == nil && c.EventsTokenFrom == "set" && e.Events == "" {
		c.note(c.Lang.Sprintf(lang.NoteEventsTokenIgnored, Prefix+"_EVENTS_TOKEN", Prefix+"_EVENTS_URL"), c.Lang.Sprintf(lang.NoteEventsTokenIgnoredFix))
	}
	if c.Mode != ModeDocs && c.Streams.DownloadDir == "" {
		dir, err := defaultDownloadDir(goos, getenv)
		if err != nil {
			return nil, &Error{"DOWNLOAD_DIR", lang.T(lang.ConfigNoCacheDir), lang.T(lang.ConfigDirPath)}
		}
		c.Streams.DownloadDir = dir
	}
	if c.Mode != ModeDocs {
		c.CacheDir, _ = userCacheDir(goos, getenv) // none: nothing is kept there
	}
	if c.TaskDir != "" && c.Mode != ModeWrite {
		c.note(c.Lang.Sprintf(lang.NoteTaskDirIgnored, Prefix+"_TASK_DIR"), c.Lang.Sprintf(lang.NoteTaskDirIgnoredFix))
		c.TaskDir = ""
	}
	if err := parseBots(e, c, getenv); err != nil {
		return nil, err
	}
	if err := parseChannel(e, c); err != nil {
		return nil, err
	}
	if err := checkBotChannels(c); err != nil {
		return nil, err
	}
	if err := parseArchive(e, c); err != nil {
		return nil, err
	}
	if c.Location, err = ParseZone(e.TZ); err != nil {
		return nil, &Error{"TZ", lang.T(lang.ConfigNotZone, e.TZ), lang.T(lang.ConfigZone)}
	}
	if c.Archive != nil {
		c.Archive.Location = c.Location
	}
	return c, nil
}

// notAbsolute is the error of path variable v, whose value is not an
// absolute path: problem, or, when the value holds a variable a shell
// would expand (%LOCALAPPDATA%, $HOME, ~), that it is not expanded here;
// and what is accepted, with an example of goos (a Windows path on
// Windows).
func notAbsolute(goos, v, value string, problem lang.Text, posix, windows lang.Message) *Error {
	if m := shellVariable.FindString(value); m != "" {
		problem = lang.T(lang.ConfigPathUnexpanded, m)
	}
	accepted := posix
	if goos == "windows" {
		accepted = windows
	}
	return &Error{v, problem, lang.T(accepted)}
}

// shellVariable finds what a shell would expand in a path and a host
// passes on as written: %NAME%, $NAME, $env:NAME or a leading ~.
var shellVariable = regexp.MustCompile(`%[A-Za-z_][A-Za-z0-9_()]*%|\$(env:)?[A-Za-z_][A-Za-z0-9_]*|^~`)

// ParseZone reads SNOWLUMA_MCP_TZ's value: an IANA zone name, or an
// offset from UTC such as +08:00, +8 or UTC+8 (a fixed zone, which needs
// no zone database: Windows has none unless Go brings it). Empty is the
// system's zone.
func ParseZone(v string) (*time.Location, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Local, nil
	}
	off := strings.TrimPrefix(strings.TrimPrefix(strings.ToUpper(v), "UTC"), "GMT")
	if off == "" {
		return time.UTC, nil
	}
	if off[0] == '+' || off[0] == '-' {
		sign := 1
		if off[0] == '-' {
			sign = -1
		}
		h, m, ok := strings.Cut(off[1:], ":")
		if !ok && len(h) == 4 {
			h, m = h[:2], h[2:]
		}
		hh, err := strconv.Atoi(h)
		mm := 0
		if err == nil && m != "" {
			mm, err = strconv.Atoi(m)
		}
		if err != nil || hh > 14 || mm > 59 || hh < 0 || mm < 0 {
			return nil, fmt.Errorf("%q is not an offset", v)
		}
		secs := sign * (hh*3600 + mm*60)
		name := fmt.Sprintf("UTC%+03d:%02d", sign*hh, mm)
		return time.FixedZone(name, secs), nil
	}
	return time.LoadLocation(v)
}

// parseArchive validates the archive's variables once the mode and the
// events URL are known.
func parseArchive(e variables, c *Config) error {
	path := strings.TrimSpace(e.Archive)
	if path == "" {
		return nil
	}
	var a *ArchiveConfig
	switch {
	case archive.IsURL(path):
		a = &ArchiveConfig{Path: archive.Redact(path), URL: path}
	case !filepath.IsAbs(path):
		return notAbsolute(c.goos, "ARCHIVE", path, lang.T(lang.ConfigPathNotAbsolute), lang.ConfigArchivePath, lang.ConfigArchivePathWindows)
	default:
		a = &ArchiveConfig{Path: filepath.Clean(path)}
	}
	a.Reader = strings.TrimSpace(e.ArchiveReader)
	if a.Reader == "" {
		a.Reader = osUser()
	}
	if utf8.RuneCountInString(a.Reader) > 64 || strings.IndexFunc(a.Reader, unicode.IsControl) >= 0 {
		return &Error{"ARCHIVE_READER", lang.T(lang.ConfigBadReader), lang.T(lang.ConfigReader)}
	}
	for _, l := range []struct {
		name, value string
		all         *bool
		set         *safety.IDSet
	}{
		{"ARCHIVE_GROUPS", e.ArchiveGroups, &a.AllGroups, &a.Groups},
		{"ARCHIVE_USERS", e.ArchiveUsers, &a.AllUsers, &a.Users},
	} {
		if strings.TrimSpace(l.value) == "*" {
			*l.all = true
			continue
		}
		var err error
		if *l.set, err = safety.ParseIDs(l.value); err != nil {
			return &Error{l.name, lang.T(lang.ConfigBadList, err.Error()), lang.T(lang.ConfigArchiveList)}
		}
	}
	days, err := parseInt("ARCHIVE_DAYS", e.ArchiveDays, 36500, lang.T(lang.ConfigArchiveDays))
	if err != nil {
		return err
	}
	a.Days = int(days)
	if a.MaxBytes, err = parseInt("ARCHIVE_MAX_BYTES", e.ArchiveMaxBytes, maxQuotaBytesLimit, lang.T(lang.ConfigBytesUpTo, int64(maxQuotaBytesLimit), "64 TiB", 1073741824)); err != nil {
		return err
	}
	if a.KeepRecalled, err = parseBool("ARCHIVE_KEEP_RECALLED", e.ArchiveKeepRecalled); err != nil {
		return err
	}
	if c.Mode == ModeDocs {
		c.note(c.Lang.Sprintf(lang.NoteArchiveIgnored, Prefix+"_ARCHIVE"), c.Lang.Sprintf(lang.NoteArchiveIgnoredFix))
		return nil
	}
	if !a.AllGroups && !a.AllUsers && a.Groups == nil && a.Users == nil {
		c.note(c.Lang.Sprintf(lang.NoteArchiveEmpty, Prefix+"_ARCHIVE_GROUPS", Prefix+"_ARCHIVE_USERS"), c.Lang.Sprintf(lang.NoteArchiveEmptyFix))
	}
	if c.EventsURL == nil {
		c.note(c.Lang.Sprintf(lang.NoteArchiveNoEvents, Prefix+"_EVENTS_URL"), c.Lang.Sprintf(lang.NoteArchiveNoEventsFix))
	}
	c.Archive = a
	return nil
}

// parseChannel validates the channel's variables once the mode, the
// events URL and the allowlists are known.
func parseChannel(e variables, c *Config) error {
	mode, err := channel.ParseMode(e.Channel)
	if err != nil {
		return &Error{"CHANNEL", lang.T(lang.ConfigNotChannel, e.Channel), lang.T(lang.ConfigChannelModes)}
	}
	ch := channel.Config{Mode: mode, AllowGroups: c.Safety.Groups, AllowUsers: c.Safety.Users}
	for _, l := range []struct {
		name     string
		value    string
		set      *safety.IDSet
		accepted lang.Message
	}{
		{"CHANNEL_GROUPS", e.ChannelGroups, &ch.Groups, lang.ConfigChannelGroups},
		{"CHANNEL_USERS", e.ChannelUsers, &ch.Users, lang.ConfigChannelUsers},
		{"CHANNEL_APPROVERS", e.ChannelApprovers, &ch.Approvers, lang.ConfigChannelUsers},
	} {
		if *l.set, err = safety.ParseIDs(l.value); err != nil {
			return &Error{l.name, lang.T(lang.ConfigBadList, err.Error()), lang.T(l.accepted)}
		}
	}
	if mode == channel.ModeOff {
		var set []string
		for name, v := range map[string]string{"CHANNEL_GROUPS": e.ChannelGroups, "CHANNEL_USERS": e.ChannelUsers, "CHANNEL_APPROVERS": e.ChannelApprovers} {
			if strings.TrimSpace(v) != "" {
				set = append(set, Prefix+"_"+name)
			}
		}
		if set != nil {
			slices.Sort(set)
			c.note(c.Lang.Sprintf(lang.NoteChannelIgnored, strings.Join(set, ", "), Prefix+"_CHANNEL"), c.Lang.Sprintf(lang.NoteChannelIgnoredFix))
		}
		c.Channel = channel.Config{Mode: channel.ModeOff}
		return nil
	}
	switch {
	case c.Mode == ModeDocs:
		return &Error{"CHANNEL", lang.T(lang.ConfigChannelNeedsMode), lang.T(lang.ConfigChannelNeedsFix)}
	case c.EventsURL == nil:
		return &Error{"CHANNEL", lang.T(lang.ConfigChannelNeeds, Prefix+"_EVENTS_URL"), lang.T(lang.ConfigChannelNeedsFix)}
	case len(ch.Approvers) > 0 && c.Mode != ModeWrite:
		return &Error{"CHANNEL_APPROVERS", lang.T(lang.ConfigApproversWrite), lang.T(lang.ConfigApproversFix)}
	}
	if out := ch.Outside(); out != nil {
		p := out[0]
		return &Error{p.Var, lang.T(lang.ConfigChannelOutside, p.ID, Prefix+"_"+p.Allow), lang.T(lang.ConfigChannelInside, Prefix+"_"+p.Allow)}
	}
	if ch.Empty() {
		c.note(c.Lang.Sprintf(lang.NoteChannelEmpty, Prefix+"_CHANNEL_GROUPS", Prefix+"_CHANNEL_USERS"), c.Lang.Sprintf(lang.NoteChannelEmptyFix))
	}
	c.Channel = ch
	return nil
}

// parseStreams validates the stream transfer variables.
func parseStreams(e variables, goos string, s *StreamConfig) error {
	var err error
	if s.MaxFileBytes, err = parseInt("MAX_FILE_BYTES", e.MaxFileBytes, maxFileBytesLimit, lang.T(lang.ConfigBytesUpTo, int64(maxFileBytesLimit), "1 TiB", 1073741824)); err != nil {
		return err
	}
	if s.MaxImageBytes, err = parseInt("MAX_IMAGE_BYTES", e.MaxImage, maxImageBytesLimit, lang.T(lang.ConfigBytesUpTo, int64(maxImageBytesLimit), "16 MiB", 1048576)); err != nil {
		return err
	}
	if s.QuotaBytes, err = parseInt("DOWNLOAD_QUOTA_BYTES", e.DownloadQuota, maxQuotaBytesLimit, lang.T(lang.ConfigBytesUpTo, int64(maxQuotaBytesLimit), "64 TiB", 4294967296)); err != nil {
		return err
	}
	n, err := parseInt("MAX_STREAMS", e.MaxStreams, maxStreamsLimit, lang.T(lang.ConfigStreamsAccepted))
	if err != nil {
		return err
	}
	s.MaxStreams = int(n)
	if n, err = parseInt("STREAM_CONNECT_TIMEOUT_MS", e.StreamConnect, maxTimeoutMS, lang.T(lang.ConfigMillis, 10000)); err != nil {
		return err
	}
	s.ConnectTimeoutMS = int(n)
	if n, err = parseInt("STREAM_IDLE_TIMEOUT_MS", e.StreamIdle, maxTimeoutMS, lang.T(lang.ConfigMillis, 60000)); err != nil {
		return err
	}
	s.IdleTimeoutMS = int(n)
	if d := strings.TrimSpace(e.DownloadDir); d != "" {
		if !filepath.IsAbs(d) {
			return notAbsolute(goos, "DOWNLOAD_DIR", d, lang.T(lang.ConfigNotAbsolute, e.DownloadDir), lang.ConfigDownloadDir, lang.ConfigDownloadDirWindows)
		}
		s.DownloadDir = filepath.Clean(d)
	}
	if r := strings.TrimSpace(e.UploadRoot); r != "" {
		accepted := lang.T(lang.ConfigUploadRoot)
		if !filepath.IsAbs(r) {
			return &Error{"UPLOAD_ROOT", lang.T(lang.ConfigNotAbsolute, e.UploadRoot), accepted}
		}
		fi, err := os.Stat(r)
		if err != nil {
			return &Error{"UPLOAD_ROOT", lang.T(lang.ConfigCannotUse, e.UploadRoot, errors.Unwrap(err)), accepted}
		}
		if !fi.IsDir() {
			return &Error{"UPLOAD_ROOT", lang.T(lang.ConfigNotDir, e.UploadRoot), accepted}
		}
		s.UploadRoot = filepath.Clean(r)
	}
	return nil
}

// parseBool reads variable name as true, 1 or yes, or false, 0 or no, in
// any case.
func parseBool(name, value string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, &Error{name, lang.T(lang.ConfigNotBoolean, value), lang.T(lang.ConfigBoolean)}
}

// parseInt reads a positive integer of at most limit from variable name.
func parseInt(name, value string, limit int64, accepted lang.Text) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil || n <= 0 || n > limit {
		return 0, &Error{name, lang.T(lang.ConfigNotPositive, value, limit), accepted}
	}
	return n, nil
}

// parseEndpoint accepts an absolute http(s) URL with a host and nothing
// secret in it: no user info, no query (SnowLuma's ?access_token= included)
// and no fragment. Errors never echo the value, which may hold a secret.
func parseEndpoint(s string) (*url.URL, error) {
	return parseURL("ENDPOINT", s, [2]string{"http", "https"}, lang.T(lang.ConfigEndpointURL))
}

// parseURL checks the URL in variable v: one of the two schemes, a host, a
// port from 1 to 65535 when one is given, and no user info, query or
// fragment.
func parseURL(v, s string, schemes [2]string, accepted lang.Text) (*url.URL, error) {
	s = strings.TrimSpace(s)
	for i, r := range []rune(s) {
		if instead, ok := imeRune(r); ok {
			fix := lang.T(lang.ConfigRemoveIt)
			if instead != "" {
				fix = lang.T(lang.ConfigTypeInstead, instead)
			}
			return nil, &Error{v, lang.T(lang.ConfigURLChar, r, r, i+1, fix), accepted}
		}
		if r == '"' || r == '\'' {
			return nil, &Error{v, lang.T(lang.ConfigURLQuote, r, i+1), accepted}
		}
	}
	u, err := url.Parse(s)
	switch {
	case err != nil && strings.Contains(err.Error(), "invalid port"):
		return nil, &Error{v, lang.T(lang.ConfigURLPort), accepted}
	case err != nil:
		return nil, &Error{v, lang.T(lang.ConfigNotURL), accepted}
	case !slices.Contains(schemes[:], u.Scheme):
		return nil, &Error{v, lang.T(lang.ConfigURLScheme, schemes[0], schemes[1]), accepted}
	case u.Host == "" || u.Hostname() == "":
		return nil, &Error{v, lang.T(lang.ConfigURLNoHost), accepted}
	case u.User != nil:
		return nil, &Error{v, lang.T(lang.ConfigURLCredentials), accepted}
	case u.RawQuery != "" || u.ForceQuery:
		return nil, &Error{v, lang.T(lang.ConfigURLQuery), accepted}
	case u.Fragment != "":
		return nil, &Error{v, lang.T(lang.ConfigURLFragment), accepted}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, &Error{v, lang.T(lang.ConfigURLPort), accepted}
		}
	}
	return u, nil
}

// parseSafety reads the account-safety variables into c. The audit file is
// opened (and created) here, so a path that cannot be written stops the
// start.
func parseSafety(e variables, c *Config) error {
	var err error
	if c.Safety.Sensitive, err = safety.ParseSensitive(e.Sensitive); err != nil {
		return &Error{"SENSITIVE", lang.T(lang.ConfigNotSensitive, e.Sensitive), lang.T(lang.ConfigSensitive)}
	}
	if c.Safety.Confirm, err = safety.ParseConfirm(e.Confirm); err != nil {
		return &Error{"CONFIRM", lang.T(lang.ConfigNotConfirm, e.Confirm), lang.T(lang.ConfigConfirm)}
	}
	if c.UntrustedSends, err = untrusted.ParseMode(e.Untrusted); err != nil {
		return &Error{"UNTRUSTED_SENDS", lang.T(lang.ConfigNotUntrusted, e.Untrusted), lang.T(lang.ConfigUntrusted)}
	}
	ms, err := strconv.Atoi(strings.TrimSpace(e.SendInterval))
	if err != nil || ms < 0 || ms > maxTimeoutMS {
		return &Error{"SEND_MIN_INTERVAL_MS", lang.T(lang.ConfigNotWholeFrom0, e.SendInterval, maxTimeoutMS), lang.T(lang.ConfigInterval)}
	}
	c.SendInterval = time.Duration(ms) * time.Millisecond
	n, err := strconv.Atoi(strings.TrimSpace(e.SendPerMinute))
	if err != nil || n < 0 || n > maxPerMinute {
		return &Error{"SEND_PER_MINUTE", lang.T(lang.ConfigNotWholeFrom0, e.SendPerMinute, maxPerMinute), lang.T(lang.ConfigPerMinute)}
	}
	c.SendPerMinute = n
	if c.Safety.Groups, err = safety.ParseIDs(e.Groups); err != nil {
		return &Error{"ALLOWED_GROUPS", lang.T(lang.ConfigBadList, err.Error()), lang.T(lang.ConfigGroups)}
	}
	if c.Safety.Users, err = safety.ParseIDs(e.Users); err != nil {
		return &Error{"ALLOWED_USERS", lang.T(lang.ConfigBadList, err.Error()), lang.T(lang.ConfigUsers)}
	}
	if p := strings.TrimSpace(e.AuditFile); p != "" {
		if !filepath.IsAbs(p) {
			// As OpenAudit would refuse it, but in our words.
			return notAbsolute(c.goos, "AUDIT_FILE", p, lang.T(lang.ConfigPathNotAbsolute), lang.ConfigAuditFile, lang.ConfigAuditFileWindows)
		}
		if c.Safety.Audit, err = safety.OpenAudit(p); err != nil {
			return &Error{"AUDIT_FILE", lang.T(lang.ConfigCannotOpen, err.Error()), lang.T(lang.ConfigAuditFile)}
		}
	}
	return nil
}

// defaultDownloadDir is where downloads go when SNOWLUMA_MCP_DOWNLOAD_DIR
// is unset. On Windows it is a snowluma-mcp folder in the user's Downloads
// (%USERPROFILE%\Downloads\snowluma-mcp), where Explorer shows it and a
// double-click opens a file, rather than under the hidden AppData; with no
// USERPROFILE, the cache folder as elsewhere. Elsewhere it is
// <user cache dir>/snowluma-mcp/downloads (~/.cache on Linux,
// ~/Library/Caches on macOS). A Downloads folder moved elsewhere in
// Explorer is not followed: set the variable to it.
func defaultDownloadDir(goos string, getenv func(string) string) (string, error) {
	if goos == "windows" {
		if home := getenv("USERPROFILE"); home != "" && isAbsOn(goos, home) {
			return joinOn(goos, home, "Downloads", "snowluma-mcp"), nil
		}
	}
	cache, err := userCacheDir(goos, getenv)
	if err != nil {
		return "", err
	}
	return joinOn(goos, cache, "snowluma-mcp", "downloads"), nil
}

// isAbsOn and joinOn are filepath.IsAbs and filepath.Join on goos, so that
// a Windows configuration can be tested anywhere (the running system's
// own rules apply when goos is it).
func isAbsOn(goos, p string) bool {
	if goos == runtime.GOOS {
		return filepath.IsAbs(p)
	}
	if goos == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

func joinOn(goos string, elem ...string) string {
	if goos == runtime.GOOS {
		return filepath.Join(elem...)
	}
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	return strings.Join(elem, sep)
}

// userCacheDir is os.UserCacheDir on goos with the environment read
// through getenv, so that a configuration loaded from a given environment
// does not depend on the process's own.
func userCacheDir(goos string, getenv func(string) string) (string, error) {
	var dir string
	switch goos {
	case "windows":
		// Windows spells it LOCALAPPDATA and reads names in any case;
		// os.UserCacheDir asks for LocalAppData through such a lookup.
		dir = getenv("LOCALAPPDATA")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Caches")
		}
	case "plan9":
		if h := getenv("home"); h != "" {
			dir = filepath.Join(h, "lib", "cache")
		}
	default:
		dir = getenv("XDG_CACHE_HOME")
		if !filepath.IsAbs(dir) {
			dir = ""
			if h := getenv("HOME"); h != "" {
				dir = filepath.Join(h, ".cache")
			}
		}
	}
	if dir == "" {
		return "", errors.New("no user cache directory")
	}
	return dir, nil
}

// osUser is the operator's user name, the default reader of a shared
// archive: the account's name, else USER or USERNAME, else "operator".
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		// A Windows account is DOMAIN\name: the name is the person.
		name := u.Username
		if i := strings.LastIndexByte(name, '\\'); i >= 0 {
			name = name[i+1:]
		}
		return name
	}
	for _, v := range []string{"USER", "USERNAME"} {
		if n := os.Getenv(v); n != "" {
			return n
		}
	}
	return "operator"
}
