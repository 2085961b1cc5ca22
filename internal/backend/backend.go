// Package backend holds everything about the one SnowLuma bot this server
// drives: the client that reaches it, its event hub, the download store and
// the upload root, the background task runner, the account-safety policy
// and the settings that do not depend on the server's mode. It is built
// once, from configuration, and handed to the server's features, so that a
// second bot later is a second Backend, not edits across the server.
//
// The package knows no MCP: it only gathers the domain packages' values
// and their defaults.
package backend

import (
	"github.com/snowluma/snowluma-mcp/events"
	"github.com/snowluma/snowluma-mcp/safety"
	"github.com/snowluma/snowluma-mcp/tasks"
	"github.com/snowluma/snowluma-mcp/transfer"
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
	// Safety is the account-safety policy; nil means the documented
	// defaults (see Policy).
	Safety *safety.Policy
	// SkipParamsCheck turns off checking action params against the
	// catalog's inputSchema, for a SnowLuma newer than the catalog.
	SkipParamsCheck bool
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
