package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/snowluma/snowluma-mcp/internal/lang"
	"github.com/snowluma/snowluma-mcp/internal/server"
	"github.com/snowluma/snowluma-mcp/safety"
)

// envPrefix prefixes every variable: SNOWLUMA_MCP_ENDPOINT and so on.
const envPrefix = "SNOWLUMA_MCP"

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

// env is the environment as read, every value a string so that a bad value
// is reported in our words. The desc and shown tags feed --help: shown is the
// default as a person reads it.
type env struct {
	Endpoint   string `envconfig:"ENDPOINT" shown:"unset (docs mode)" desc:"SnowLuma OneBot HTTP endpoint: an absolute http(s) URL such as http://127.0.0.1:3000/, without credentials, query or fragment. Unset: docs mode, nothing is executed."`
	Token      string `envconfig:"TOKEN" shown:"unset" desc:"Access token, sent only as 'Authorization: Bearer <token>'. Give the bare token: surrounding white space is trimmed; a control character, an invisible one anywhere (zero-width space U+200B, byte-order mark U+FEFF, bidirectional controls such as U+202E) or a 'Bearer ' prefix stops the server at start. Never logged, returned or written to disk."`
	Timeout    string `envconfig:"TIMEOUT_MS" default:"30000" shown:"30000" desc:"Timeout of one ordinary action call, in milliseconds (1 to 86400000)."`
	Mode       string `envconfig:"MODE" shown:"read with an endpoint, else docs" desc:"docs, read or write. Without an endpoint the mode is docs whatever this says."`
	Events     string `envconfig:"EVENTS_URL" shown:"unset (no event tools)" desc:"SnowLuma's WebSocket server, which carries events: a ws:// or wss:// URL such as ws://127.0.0.1:3001/ (SnowLuma's default: port 3001, path /), without credentials, query or fragment (the token goes in the Authorization header). Set: read and write modes offer subscribe_events and unsubscribe_events. Never guessed from the endpoint; redirects are never followed."`
	EventsTok  string `envconfig:"EVENTS_TOKEN" shown:"SNOWLUMA_MCP_TOKEN" desc:"Access token of SnowLuma's WebSocket server, which SnowLuma's generated configuration sets apart from the HTTP server's. Unset or empty: SNOWLUMA_MCP_TOKEN is sent. Same rules and secrecy as SNOWLUMA_MCP_TOKEN: trimmed, a control character or a 'Bearer ' prefix stops the server at start, never logged, returned or written to disk."`
	TaskDir    string `envconfig:"TASK_DIR" shown:"unset (no background tasks)" desc:"Write mode: an absolute private directory (created 0700) where background transfer tasks are recorded; enables invoke_action_background and list_tasks for 2026-07-28 clients with the Tasks extension. Bound to this mode, endpoint and token."`
	MaxRequest string `envconfig:"MAX_REQUEST_BYTES" default:"4194304" shown:"4194304 (4 MiB)" desc:"Longest request line read from stdin, in bytes (65536 to 268435456); a longer line is discarded and answered with an error."`
	MaxBody    string `envconfig:"MAX_BODY_BYTES" default:"2097152" shown:"2097152 (2 MiB)" desc:"Largest request body sent to SnowLuma, in bytes (16384 to 1073741824): SnowLuma cuts off a longer body and drops the connection, so a call over it is refused with kind too_large before sending, and upload chunks are cut to fit. Raise it only for a OneBot server that accepts more."`
	Lang       string `envconfig:"LANG" shown:"from the locale (LC_ALL, LC_MESSAGES, LANG): zh for a Chinese one, else en" desc:"zh or en: the language of what a person reads (the missing-parameter and confirmation forms). Tool descriptions and results stay English."`
	Validate   string `envconfig:"VALIDATE_PARAMS" default:"true" shown:"true" desc:"true, 1 or yes: check action params against the catalog's inputSchema before sending; false, 0 or no: send them unchecked (for a SnowLuma newer than the catalog). Case is ignored."`

	// Account safety (README, Safety).
	Sensitive     string `envconfig:"SENSITIVE" default:"deny" shown:"deny" desc:"Actions whose answer is a credential of the account (get_cookies, get_clientkey, ...): deny refuses them, redact runs them and masks every string and number of the answer's data, allow returns them unchanged."`
	Confirm       string `envconfig:"CONFIRM" default:"none" shown:"none" desc:"none, destructive or writes: which actions a person must confirm through a form before they run (destructive: kicks, leaving a group, recalls, deletions...; writes: every write action)."`
	SendInterval  string `envconfig:"SEND_MIN_INTERVAL_MS" default:"1000" shown:"1000" desc:"Least milliseconds between two message sends to the same group or user (0 to 86400000; 0 turns it off). A faster send is refused with kind rate_limited."`
	SendPerMinute string `envconfig:"SEND_PER_MINUTE" default:"20" shown:"20" desc:"Most message sends in any minute across all targets (0 to 100000; 0 turns it off). A send over it is refused with kind rate_limited."`
	Groups        string `envconfig:"ALLOWED_GROUPS" shown:"unset (any group)" desc:"Comma-separated group numbers the actions may name in group_id (or a param whose catalog role is group_id); any other is refused with kind target_not_allowed, reads included."`
	Users         string `envconfig:"ALLOWED_USERS" shown:"unset (any user)" desc:"Comma-separated QQ numbers the actions may name in user_id (or a param whose catalog role is user_id or member_id, such as target_id or target_uin); any other is refused with kind target_not_allowed, reads included."`
	AuditFile     string `envconfig:"AUDIT_FILE" shown:"unset (no audit)" desc:"Absolute path of a file that gets one JSON line per write action attempted (ids and outcome only), created 0600. When it cannot be written, write actions are refused."`

	// Stream transfers.
	DownloadDir   string `envconfig:"DOWNLOAD_DIR" shown:"<user cache dir>/snowluma-mcp/downloads" desc:"Absolute directory on the MCP host where downloads are saved; created 0700 when missing. An existing one other users can write to stops the server at start (POSIX; run chmod go-w on it)."`
	UploadRoot    string `envconfig:"UPLOAD_ROOT" shown:"unset (automatic upload off)" desc:"Absolute path of an existing directory: the only place invoke_action's execution.input_file may read from (symlinks resolved)."`
	MaxFileBytes  string `envconfig:"MAX_FILE_BYTES" default:"1073741824" shown:"1073741824 (1 GiB)" desc:"Largest file a download saves or an automatic upload sends, in bytes."`
	DownloadQuota string `envconfig:"DOWNLOAD_QUOTA_BYTES" default:"4294967296" shown:"4294967296 (4 GiB)" desc:"Most bytes the whole download directory may hold; a download that would pass it fails with kind quota."`
	MaxStreams    string `envconfig:"MAX_STREAMS" default:"4" shown:"4" desc:"Stream calls that may run at once (1 to 64); one more fails at once with kind busy."`
	StreamConnect string `envconfig:"STREAM_CONNECT_TIMEOUT_MS" default:"10000" shown:"10000" desc:"Longest time to connect to SnowLuma and send a stream call's request, in milliseconds (1 to 86400000)."`
	StreamIdle    string `envconfig:"STREAM_IDLE_TIMEOUT_MS" default:"60000" shown:"60000" desc:"Longest wait for the next bytes of a stream, in milliseconds (1 to 86400000); a long stream that keeps moving never times out."`
}

// maxPerMinute bounds SNOWLUMA_MCP_SEND_PER_MINUTE.
const maxPerMinute = 100_000

// usage is the --help table of variables.
const usage = `{{range .}}{{.Key}}	{{.Tags.Get "shown"}}	{{.Tags.Get "desc"}}
{{end}}`

// Config is the validated configuration.
type Config struct {
	Endpoint  *url.URL // nil in docs mode without an endpoint
	Token     string
	TimeoutMS int
	// MaxRequestBytes is the longest stdin line read.
	MaxRequestBytes int
	// MaxBodyBytes is the longest request body sent to SnowLuma.
	MaxBodyBytes int64
	Mode         server.Mode
	// TaskDir is the background task directory; empty when unset.
	TaskDir string
	// Lang is the language of what a person reads.
	Lang lang.Lang
	// ValidateParams checks action params against the catalog before sending.
	ValidateParams bool
	// Safety is the account-safety policy; its pacer is built by the
	// caller from SendInterval and SendPerMinute.
	Safety        safety.Policy
	SendInterval  time.Duration
	SendPerMinute int
	// EventsURL is SnowLuma's event WebSocket; nil when events are off.
	EventsURL *url.URL
	// EventsToken is the token sent on the event WebSocket: that of
	// SNOWLUMA_MCP_EVENTS_TOKEN, or Token when it is unset.
	EventsToken string
	// EventsTokenFrom says where EventsToken came from, for doctor: "set",
	// "inherited" (from SNOWLUMA_MCP_TOKEN) or "unset" (no token at all).
	EventsTokenFrom string
	// Streams configures stream transfers.
	Streams StreamConfig
	// Notes are start-up remarks for stderr, e.g. an ignored mode.
	Notes []string
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
}

// Largest accepted byte limits: a file of 1 TiB, a directory of 64 TiB.
const (
	maxFileBytesLimit  = 1 << 40
	maxQuotaBytesLimit = 1 << 46
	maxStreamsLimit    = 64 // SnowLuma's own limit of concurrent streams
)

// A ConfigError names the variable at fault, what is wrong with its value
// and what is accepted. It never repeats a secret value.
type ConfigError struct {
	Var      string
	Problem  string
	Accepted string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("%s_%s: %s; accepted: %s", envPrefix, e.Var, e.Problem, e.Accepted)
}

// loadConfig reads environ (as os.Environ gives it) and applies the
// baseline's mode rules.
func loadConfig(environ []string) (*Config, error) {
	lookup := lookupIn(environ)
	e := readEnv(lookup)
	getenv := func(name string) string { v, _ := lookup(name); return v }
	c, err := parseConfig(e, getenv)
	if err != nil {
		return nil, err
	}
	c.Notes = append(c.Notes, unknownVariables(environ)...)
	return c, nil
}

// lookupIn returns os.LookupEnv over environ instead of the process's
// environment: the last value of a name wins, as in exec.Cmd, and names
// are compared without case on Windows, as there.
func lookupIn(environ []string) func(string) (string, bool) {
	fold := func(s string) string { return s }
	if runtime.GOOS == "windows" {
		fold = strings.ToUpper
	}
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[fold(k)] = v
		}
	}
	return func(name string) (string, bool) {
		v, ok := m[fold(name)]
		return v, ok
	}
}

// readEnv fills env from lookup: each field from its SNOWLUMA_MCP_ name,
// or its default tag when the variable is not set (set and empty stays
// empty). Only our own names are read: a bare TOKEN or LANG is not ours.
func readEnv(lookup func(string) (string, bool)) env {
	var e env
	v := reflect.ValueOf(&e).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		k := f.Tag.Get("envconfig")
		if k == "" {
			continue
		}
		val, ok := lookup(envPrefix + "_" + k)
		if !ok {
			val = f.Tag.Get("default")
		}
		v.Field(i).SetString(val)
	}
	return e
}

// userCacheDir is os.UserCacheDir with the variables read through getenv.
func userCacheDir(getenv func(string) string) (string, error) {
	var dir string
	switch runtime.GOOS {
	case "windows":
		if dir = getenv("LocalAppData"); dir == "" {
			return "", errors.New("%LocalAppData% is not defined")
		}
	case "darwin", "ios":
		if dir = getenv("HOME"); dir == "" {
			return "", errors.New("$HOME is not defined")
		}
		dir += "/Library/Caches"
	case "plan9":
		if dir = getenv("home"); dir == "" {
			return "", errors.New("$home is not defined")
		}
		dir += "/lib/cache"
	default:
		dir = getenv("XDG_CACHE_HOME")
		if dir == "" {
			if dir = getenv("HOME"); dir == "" {
				return "", errors.New("neither $XDG_CACHE_HOME nor $HOME are defined")
			}
			dir += "/.cache"
		} else if !filepath.IsAbs(dir) {
			return "", errors.New("path in $XDG_CACHE_HOME is relative")
		}
	}
	return dir, nil
}

// knownVariables lists the full names of the variables env declares, read
// from its tags so that a new field is known without another list.
func knownVariables() []string {
	t := reflect.TypeFor[env]()
	var out []string
	for i := range t.NumField() {
		if k := t.Field(i).Tag.Get("envconfig"); k != "" {
			out = append(out, envPrefix+"_"+k)
		}
	}
	return out
}

// unknownVariables returns one warning for each variable in environ that
// carries our prefix but is not one we read (a typo such as
// SNOWLUMA_MCP_TIMEOUT), naming the closest known variable. The value is
// never repeated: a misspelt SNOWLUMA_MCP_TOKEN holds a secret.
func unknownVariables(environ []string) []string {
	known := knownVariables()
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") || slices.Contains(known, name) {
			continue
		}
		closest := slices.MinFunc(known, func(a, b string) int {
			return cmp.Compare(nameDistance(name, a), nameDistance(name, b))
		})
		out = append(out, fmt.Sprintf("warning: %s is not a variable this server reads and is ignored; did you mean %s? (see --help)", name, closest))
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
	return editDistance(typed, real)
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (variable names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// parseToken trims surrounding white space from the token in variable v
// (TOKEN or EVENTS_TOKEN) and refuses what would make every call fail
// later as a transport error: a control character (a CRLF .env file
// leaves a carriage return), an invisible character anywhere in it (a
// zero-width space, a byte-order mark, a bidirectional control: see
// invisible), or a pasted "Bearer " prefix, since the server adds that
// itself. Errors never echo the token.
func parseToken(v, s string) (string, error) {
	const accepted = "the bare access token on one line, without control or invisible characters or a 'Bearer ' prefix (the server sends 'Authorization: Bearer <token>' itself)"
	tok := strings.TrimSpace(s)
	if i := strings.IndexFunc(tok, unicode.IsControl); i >= 0 {
		return "", &ConfigError{v, fmt.Sprintf("the token contains a control character (%U), as a line break or a CRLF .env file leaves", []rune(tok[i:])[0]), accepted}
	}
	if i := strings.IndexFunc(tok, invisible); i >= 0 {
		r := []rune(tok[i:])[0]
		n := len(string(r))
		where := "inside it"
		switch {
		case i == 0:
			where = "at its start"
		case i+n == len(tok):
			where = "at its end"
		}
		return "", &ConfigError{v, fmt.Sprintf("the token holds an invisible character (%U) %s, as copying from a web page, a chat or an editor leaves; it would be sent as part of the token", r, where), accepted}
	}
	if len(tok) >= 7 && strings.EqualFold(tok[:7], "bearer ") {
		return "", &ConfigError{v, "the token starts with a 'Bearer ' prefix", accepted}
	}
	return tok, nil
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

// parseConfig validates e; getenv reads the locale and the user's cache
// directory.
func parseConfig(e env, getenv func(string) string) (*Config, error) {
	c := &Config{}

	t, err := strconv.Atoi(strings.TrimSpace(e.Timeout))
	if err != nil || t <= 0 || t > maxTimeoutMS {
		return nil, &ConfigError{"TIMEOUT_MS", fmt.Sprintf("%q is not a positive integer of at most %d", e.Timeout, maxTimeoutMS), "a whole number of milliseconds from 1 to 86400000 (a day), e.g. 30000"}
	}
	c.TimeoutMS = t

	m, err := strconv.Atoi(strings.TrimSpace(e.MaxRequest))
	if err != nil || m < minRequestBytes || m > maxRequestBytes {
		return nil, &ConfigError{"MAX_REQUEST_BYTES", fmt.Sprintf("%q is not a whole number of bytes from %d to %d", e.MaxRequest, minRequestBytes, maxRequestBytes), "a whole number of bytes from 65536 (64 KiB) to 268435456 (256 MiB), e.g. 4194304"}
	}
	c.MaxRequestBytes = m

	b, err := strconv.ParseInt(strings.TrimSpace(e.MaxBody), 10, 64)
	if err != nil || b < minBodyBytes || b > maxBodyBytes {
		return nil, &ConfigError{"MAX_BODY_BYTES", fmt.Sprintf("%q is not a whole number of bytes from %d to %d", e.MaxBody, minBodyBytes, maxBodyBytes), "a whole number of bytes from 16384 (16 KiB) to 1073741824 (1 GiB), e.g. 2097152 (SnowLuma's limit)"}
	}
	c.MaxBodyBytes = b

	switch strings.ToLower(strings.TrimSpace(e.Validate)) {
	case "true", "1", "yes":
		c.ValidateParams = true
	case "false", "0", "no":
	default:
		return nil, &ConfigError{"VALIDATE_PARAMS", fmt.Sprintf("%q is not a boolean", e.Validate), "true or false (also 1/yes or 0/no, any case)"}
	}

	if c.Lang, err = lang.Select(e.Lang, getenv); err != nil {
		return nil, &ConfigError{"LANG", err.Error(), "zh or en (unset: from LC_ALL, LC_MESSAGES or LANG)"}
	}

	tok, err := parseToken("TOKEN", e.Token)
	if err != nil {
		return nil, err
	}
	c.Token = tok
	if c.EventsToken, err = parseToken("EVENTS_TOKEN", e.EventsTok); err != nil {
		return nil, err
	}
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

	if err := parseStreams(e, &c.Streams); err != nil {
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
		u, err := parseURL("EVENTS_URL", e.Events, []string{"ws", "wss"},
			"an absolute ws:// or wss:// URL with a host, e.g. ws://127.0.0.1:3001/ (SnowLuma's default), with the token in SNOWLUMA_MCP_EVENTS_TOKEN or SNOWLUMA_MCP_TOKEN")
		if err != nil {
			return nil, err
		}
		c.EventsURL = u
	}
	if d := strings.TrimSpace(e.TaskDir); d != "" {
		if !filepath.IsAbs(d) {
			return nil, &ConfigError{"TASK_DIR", "the path is not absolute", "an absolute path to a private directory, e.g. /home/me/.local/state/snowluma-mcp/tasks"}
		}
		c.TaskDir = filepath.Clean(d)
	}

	switch m := server.Mode(strings.ToLower(strings.TrimSpace(e.Mode))); m {
	case "":
		c.Mode = server.ModeDocs
		if c.Endpoint != nil {
			c.Mode = server.ModeRead
		}
	case server.ModeDocs, server.ModeRead, server.ModeWrite:
		c.Mode = m
		if c.Endpoint == nil && m != server.ModeDocs {
			c.Mode = server.ModeDocs
			c.Notes = append(c.Notes, fmt.Sprintf("%s_MODE=%s ignored: no %s_ENDPOINT is set, so the mode is docs", envPrefix, m, envPrefix))
		}
	default:
		return nil, &ConfigError{"MODE", fmt.Sprintf("%q is not a mode", e.Mode), "docs, read or write"}
	}
	if c.EventsURL != nil && c.Mode == server.ModeDocs {
		c.EventsURL = nil
		c.Notes = append(c.Notes, fmt.Sprintf("%s_EVENTS_URL ignored: docs mode stays offline, so no event tools are offered", envPrefix))
	}
	if c.EventsURL == nil && c.EventsTokenFrom == "set" && e.Events == "" {
		c.Notes = append(c.Notes, fmt.Sprintf("%s_EVENTS_TOKEN ignored: no %s_EVENTS_URL is set", envPrefix, envPrefix))
	}
	if c.Mode != server.ModeDocs && c.Streams.DownloadDir == "" {
		cache, err := userCacheDir(getenv)
		if err != nil {
			return nil, &ConfigError{"DOWNLOAD_DIR", "it is unset and this system has no user cache directory", "an absolute directory path"}
		}
		c.Streams.DownloadDir = filepath.Join(cache, "snowluma-mcp", "downloads")
	}
	if c.TaskDir != "" && c.Mode != server.ModeWrite {
		c.Notes = append(c.Notes, fmt.Sprintf("%s_TASK_DIR ignored: background tasks need write mode", envPrefix))
		c.TaskDir = ""
	}
	return c, nil
}

// parseStreams validates the stream transfer variables.
func parseStreams(e env, s *StreamConfig) error {
	var err error
	if s.MaxFileBytes, err = parseInt("MAX_FILE_BYTES", e.MaxFileBytes, maxFileBytesLimit, "a whole number of bytes from 1 to 1099511627776 (1 TiB), e.g. 1073741824"); err != nil {
		return err
	}
	if s.QuotaBytes, err = parseInt("DOWNLOAD_QUOTA_BYTES", e.DownloadQuota, maxQuotaBytesLimit, "a whole number of bytes from 1 to 70368744177664 (64 TiB), e.g. 4294967296"); err != nil {
		return err
	}
	n, err := parseInt("MAX_STREAMS", e.MaxStreams, maxStreamsLimit, "a whole number from 1 to 64, e.g. 4")
	if err != nil {
		return err
	}
	s.MaxStreams = int(n)
	if n, err = parseInt("STREAM_CONNECT_TIMEOUT_MS", e.StreamConnect, maxTimeoutMS, "a whole number of milliseconds from 1 to 86400000 (a day), e.g. 10000"); err != nil {
		return err
	}
	s.ConnectTimeoutMS = int(n)
	if n, err = parseInt("STREAM_IDLE_TIMEOUT_MS", e.StreamIdle, maxTimeoutMS, "a whole number of milliseconds from 1 to 86400000 (a day), e.g. 60000"); err != nil {
		return err
	}
	s.IdleTimeoutMS = int(n)
	if d := strings.TrimSpace(e.DownloadDir); d != "" {
		if !filepath.IsAbs(d) {
			return &ConfigError{"DOWNLOAD_DIR", fmt.Sprintf("%q is not an absolute path", e.DownloadDir), "an absolute directory path on the MCP host; it is created 0700 when missing"}
		}
		s.DownloadDir = filepath.Clean(d)
	}
	if r := strings.TrimSpace(e.UploadRoot); r != "" {
		const accepted = "the absolute path of an existing directory on the MCP host, or unset to turn automatic upload off"
		if !filepath.IsAbs(r) {
			return &ConfigError{"UPLOAD_ROOT", fmt.Sprintf("%q is not an absolute path", e.UploadRoot), accepted}
		}
		fi, err := os.Stat(r)
		if err != nil {
			return &ConfigError{"UPLOAD_ROOT", fmt.Sprintf("%q cannot be used: %v", e.UploadRoot, errors.Unwrap(err)), accepted}
		}
		if !fi.IsDir() {
			return &ConfigError{"UPLOAD_ROOT", fmt.Sprintf("%q is not a directory", e.UploadRoot), accepted}
		}
		s.UploadRoot = filepath.Clean(r)
	}
	return nil
}

// parseInt reads a positive integer of at most limit from variable name.
func parseInt(name, value string, limit int64, accepted string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
	if err != nil || n <= 0 || n > limit {
		return 0, &ConfigError{name, fmt.Sprintf("%q is not a positive integer of at most %d", value, limit), accepted}
	}
	return n, nil
}

// parseEndpoint accepts an absolute http(s) URL with a host and nothing
// secret in it: no user info, no query (SnowLuma's ?access_token= included)
// and no fragment. Errors never echo the value, which may hold a secret.
func parseEndpoint(s string) (*url.URL, error) {
	return parseURL("ENDPOINT", s, []string{"http", "https"},
		"an absolute http:// or https:// URL with a host, e.g. http://127.0.0.1:3000/, with the token in SNOWLUMA_MCP_TOKEN")
}

// parseURL checks the URL in variable v: one of schemes, a host, a port
// from 1 to 65535 when one is given, and no user info, query or fragment.
func parseURL(v, s string, schemes []string, accepted string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	switch {
	case err != nil && strings.Contains(err.Error(), "invalid port"):
		return nil, &ConfigError{v, "the URL's port is not a number from 1 to 65535", accepted}
	case err != nil:
		return nil, &ConfigError{v, "the value is not a URL", accepted}
	case !slices.Contains(schemes, u.Scheme):
		return nil, &ConfigError{v, "the URL's scheme is not " + strings.Join(schemes, " or "), accepted}
	case u.Host == "" || u.Hostname() == "":
		return nil, &ConfigError{v, "the URL has no host", accepted}
	case u.User != nil:
		return nil, &ConfigError{v, "the URL embeds credentials", accepted}
	case u.RawQuery != "" || u.ForceQuery:
		return nil, &ConfigError{v, "the URL has a query string", accepted}
	case u.Fragment != "":
		return nil, &ConfigError{v, "the URL has a fragment", accepted}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, &ConfigError{v, "the URL's port is not a number from 1 to 65535", accepted}
		}
	}
	return u, nil
}

// parseSafety reads the account-safety variables into c. The audit file is
// opened (and created) here, so a path that cannot be written stops the
// start.
func parseSafety(e env, c *Config) error {
	var err error
	if c.Safety.Sensitive, err = safety.ParseSensitive(e.Sensitive); err != nil {
		return &ConfigError{"SENSITIVE", err.Error(), "deny, redact or allow"}
	}
	if c.Safety.Confirm, err = safety.ParseConfirm(e.Confirm); err != nil {
		return &ConfigError{"CONFIRM", err.Error(), "none, destructive or writes"}
	}
	ms, err := strconv.Atoi(strings.TrimSpace(e.SendInterval))
	if err != nil || ms < 0 || ms > maxTimeoutMS {
		return &ConfigError{"SEND_MIN_INTERVAL_MS", fmt.Sprintf("%q is not a whole number from 0 to %d", e.SendInterval, maxTimeoutMS), "milliseconds from 0 (off) to 86400000, e.g. 1000"}
	}
	c.SendInterval = time.Duration(ms) * time.Millisecond
	n, err := strconv.Atoi(strings.TrimSpace(e.SendPerMinute))
	if err != nil || n < 0 || n > maxPerMinute {
		return &ConfigError{"SEND_PER_MINUTE", fmt.Sprintf("%q is not a whole number from 0 to %d", e.SendPerMinute, maxPerMinute), "a count from 0 (off) to 100000, e.g. 20"}
	}
	c.SendPerMinute = n
	if c.Safety.Groups, err = safety.ParseIDs(e.Groups); err != nil {
		return &ConfigError{"ALLOWED_GROUPS", err.Error(), "comma-separated positive group numbers, e.g. 20001,20002, or unset for any group"}
	}
	if c.Safety.Users, err = safety.ParseIDs(e.Users); err != nil {
		return &ConfigError{"ALLOWED_USERS", err.Error(), "comma-separated positive QQ numbers, e.g. 30001,30002, or unset for any user"}
	}
	if p := strings.TrimSpace(e.AuditFile); p != "" {
		if c.Safety.Audit, err = safety.OpenAudit(p); err != nil {
			return &ConfigError{"AUDIT_FILE", err.Error(), "an absolute path of a file this process may create and append to, e.g. /var/log/snowluma-mcp/audit.jsonl"}
		}
	}
	return nil
}
