// Package backend holds everything about the one SnowLuma bot this server
// drives: the client that reaches it, its event hub, the download store and
// the upload root, the background task runner, the account-safety policy
// and the settings that do not depend on the server's mode. It is built
// once, from configuration, and handed to the server's features, so that a
// second bot later is a second Backend, not edits across the server.
//
// The package knows no MCP: it only builds the domain packages' values
// from the configuration and gives their defaults.
package backend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/snowluma/snowluma-mcp/archive"
	"github.com/snowluma/snowluma-mcp/channel"
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/media"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
	"github.com/snowluma/snowluma-mcp/untrusted"
)

// A Backend is one SnowLuma bot. The zero Backend is a bot with nothing
// configured: the docs mode's.
type Backend struct {
	// Client reaches SnowLuma's OneBot HTTP endpoint. It is required in
	// read and write modes and nil in docs mode.
	Client *transfer.Client
	// Downloads is the directory download streams are saved to; nil
	// refuses them. Uploads, when set, is the root automatic uploads
	// (invoke_action's execution.input_file) read from.
	Downloads *transfer.Store
	Uploads   *transfer.UploadRoot
	// Events, when set, is the live event connection. Its owner closes it
	// when the session ends.
	Events *events.Hub
	// Tasks runs background transfers; nil when no task directory is set
	// or its store could not be opened, for the reason in TasksProblem.
	Tasks        *tasks.Runner
	TasksProblem string
	// TasksErr is the error behind TasksProblem (a *tasks.InUseError
	// when another server holds the directory).
	TasksErr error
	// Safety is the account-safety policy; nil means the documented
	// defaults (see Policy).
	Safety *safety.Policy
	// SkipParamsCheck turns off checking action params against the
	// catalog's inputSchema, for a SnowLuma newer than the catalog.
	SkipParamsCheck bool
	// DryRun checks every write action and upload and then does not send
	// it (SNOWLUMA_MCP_DRY_RUN); read-only actions still go to SnowLuma.
	DryRun bool
	// UntrustedSends is what happens to a write that could carry QQ users'
	// text elsewhere (SNOWLUMA_MCP_UNTRUSTED_SENDS); "" means
	// untrusted.ModeConfirm.
	UntrustedSends untrusted.Mode
	// Provenance records, per client connection, which chats' text the
	// model was handed; nil until the server fills it in.
	Provenance *untrusted.Registry
	// Sandbox says the bot is the simulated SnowLuma of `snowluma-mcp
	// sandbox`, not a QQ account: every answer says so.
	Sandbox bool
	// Channel, when set, is the QQ channel's configuration: the account's
	// messages it pushes to the host, and who approves from QQ. It needs
	// Events.
	Channel *channel.Config
	// Archive, when set, is the local message archive. ArchivePath is its
	// configured file, and ArchiveProblem why it could not be opened (the
	// archive's tools then answer with it; the rest of the server works).
	Archive        *archive.Store
	ArchivePath    string
	ArchiveProblem error
	// Media prepares the pictures view_media shows (nil in docs mode), and
	// MediaStats counts what it did.
	Media      *media.Decoder
	MediaStats media.Stats
}

// Policy returns b's safety policy with its defaults filled in: without
// one, credentials denied, no confirmation and the default pacing; a
// policy without a pacer gets the default pacer. b's own policy is never
// changed.
func (b *Backend) Policy() *safety.Policy {
	def := func() *safety.Pacer {
		return safety.NewPacer(safety.DefaultSendInterval, safety.DefaultSendPerMinute, nil)
	}
	switch {
	case b.Safety == nil:
		return &safety.Policy{Sensitive: safety.SensitiveDeny, Confirm: safety.ConfirmNone, Pacer: def()}
	case b.Safety.Pacer == nil:
		p := *b.Safety
		p.Pacer = def()
		return &p
	}
	return b.Safety
}

// MaxFileBytes is the file size limit downloads and uploads share: the
// download store's, or 0 (transfer's default) without one.
func (b *Backend) MaxFileBytes() int64 {
	if b.Downloads != nil {
		return b.Downloads.MaxFileBytes()
	}
	return 0
}

// A SettingError is a setting that names something unusable (a download
// directory that cannot be made private, say): a configuration error.
type SettingError struct {
	Var string // the variable without its prefix, DOWNLOAD_DIR
	Err error
}

func (e *SettingError) Error() string { return fmt.Sprintf("%s_%s: %v", config.Prefix, e.Var, e.Err) }

func (e *SettingError) Unwrap() error { return e.Err }

// Open builds the backend cfg describes, identifying itself to SnowLuma as
// userAgent. In docs mode it has no client and no stores. A task directory
// that cannot be opened does not fail Open: background tasks are off, for
// the reason in TasksProblem. The caller closes the backend.
func Open(cfg *config.Config, userAgent string) (*Backend, error) {
	policy := cfg.Safety
	policy.Pacer = safety.NewPacer(cfg.SendInterval, cfg.SendPerMinute, nil)
	b := &Backend{Safety: &policy, SkipParamsCheck: !cfg.ValidateParams, DryRun: cfg.DryRun, Sandbox: cfg.Sandbox,
		UntrustedSends: cfg.UntrustedSends, Provenance: &untrusted.Registry{Path: RecordPath(cfg)}}
	if cfg.Mode != config.ModeDocs {
		st := cfg.Streams
		var err error
		b.Client, err = transfer.New(transfer.Options{
			Endpoint:             cfg.Endpoint.String(),
			Token:                cfg.Token,
			Timeout:              time.Duration(cfg.TimeoutMS) * time.Millisecond,
			MaxBodyBytes:         cfg.MaxBodyBytes,
			StreamConnectTimeout: time.Duration(st.ConnectTimeoutMS) * time.Millisecond,
			StreamIdleTimeout:    time.Duration(st.IdleTimeoutMS) * time.Millisecond,
			MaxStreams:           st.MaxStreams,
			UserAgent:            userAgent,
		})
		if err != nil {
			return nil, err
		}
		b.Media = media.NewDecoder(int(st.MaxImageBytes), 0)
		if b.Downloads, err = transfer.NewStore(st.DownloadDir, st.MaxFileBytes, st.QuotaBytes); err != nil {
			return nil, &SettingError{"DOWNLOAD_DIR", err}
		}
		if st.UploadRoot != "" {
			if b.Uploads, err = transfer.NewUploadRoot(st.UploadRoot); err != nil {
				return nil, &SettingError{"UPLOAD_ROOT", err}
			}
		}
	}
	if cfg.EventsURL != nil {
		// Nothing connects until the first subscribe_events.
		b.Events = events.New(events.Options{URL: cfg.EventsURL.String(), Token: cfg.EventsToken, UserAgent: userAgent,
			AllowGroups: policy.Groups.Sorted(), AllowUsers: policy.Users.Sorted()})
	}
	if cfg.Channel.Mode != channel.ModeOff && b.Events != nil {
		ch := cfg.Channel
		b.Channel = &ch
	}
	if a := cfg.Archive; a != nil && cfg.Mode != config.ModeDocs {
		b.ArchivePath = a.Path
		b.Archive, b.ArchiveProblem = archive.Open(context.Background(), ArchiveOptions(a, &policy))
	}
	if cfg.TaskDir != "" {
		store, err := tasks.Open(cfg.TaskDir, TaskScope(cfg), tasks.Options{})
		if err != nil {
			b.TasksProblem, b.TasksErr = err.Error(), err
		} else {
			b.Tasks = tasks.NewRunner(store)
		}
	}
	return b, nil
}

// RecordPath is the file the send gate's record is kept in, so that a
// restart does not hand the model, which still holds the text it read, an
// unarmed gate (untrusted/record.go): beside the task store when there is
// one, else in the user's cache directory, one file per bot
// (<cache>/snowluma-mcp/untrusted-record-<hash of the endpoint>.json; the
// token is in neither the name nor the file). "" keeps the record in
// memory only: docs mode, or an environment with no cache directory.
func RecordPath(cfg *config.Config) string {
	switch {
	case cfg.TaskDir != "":
		return filepath.Join(cfg.TaskDir, untrusted.RecordFile)
	case cfg.CacheDir == "" || cfg.Endpoint == nil:
		return ""
	}
	sum := sha256.Sum256([]byte(TaskScope(cfg).Endpoint))
	return filepath.Join(cfg.CacheDir, "snowluma-mcp", "untrusted-record-"+hex.EncodeToString(sum[:6])+".json")
}

// TaskScope is the configuration a task directory is bound to: the mode,
// the endpoint and the token, so that a directory never serves another
// bot. The sandbox's port and tokens are new on every start, so its
// directory is bound to its seed instead.
func TaskScope(cfg *config.Config) tasks.Scope {
	if cfg.Sandbox {
		return tasks.Scope{Mode: string(cfg.Mode), Endpoint: fmt.Sprintf("snowluma-mcp sandbox, seed %d", cfg.SandboxSeed)}
	}
	endpoint := ""
	if cfg.Endpoint != nil {
		endpoint = cfg.Endpoint.String()
	}
	return tasks.Scope{Mode: string(cfg.Mode), Endpoint: endpoint, Token: cfg.Token}
}

// ArchiveOptions are the archive's options for the configuration a and
// the allowlists of policy.
func ArchiveOptions(a *config.ArchiveConfig, policy *safety.Policy) archive.Options {
	sel := func(all bool, ids safety.IDSet) archive.Selection {
		s := archive.Selection{All: all, IDs: map[int64]bool{}}
		for id := range ids {
			s.IDs[id] = true
		}
		return s
	}
	path := a.Path
	if a.URL != "" {
		path = a.URL
	}
	return archive.Options{Path: path, Reader: a.Reader, Groups: sel(a.AllGroups, a.Groups), Users: sel(a.AllUsers, a.Users),
		Days: a.Days, MaxBytes: a.MaxBytes, KeepRecalled: a.KeepRecalled, Location: a.Location,
		Allowed: func(group bool, id int64) bool {
			if group {
				return policy.Groups.Allows(id)
			}
			return policy.Users.Allows(id)
		}}
}

// Close stops the background tasks, closes their store and then the event
// connection. The other values hold nothing open.
func (b *Backend) Close() {
	if b.Tasks != nil {
		b.Tasks.Close()
		b.Tasks.Store().Close()
	}
	if b.Events != nil {
		b.Events.Close()
	}
	if b.Archive != nil {
		b.Archive.Close()
	}
}
