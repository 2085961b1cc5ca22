package server

import (
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/snowluma/snowluma-mcp/internal/backend"
	"github.com/snowluma/snowluma-mcp/internal/config"
	"github.com/snowluma/snowluma-mcp/internal/mcpseam"
	"github.com/snowluma/snowluma-mcp/internal/seal"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/tasks"
)

// A feature is what one adapter file adds to the server. New builds the
// shared pieces once (the backend, the executor, the sealer, the log) as a
// deps, calls each constructor of its list with it, in order, and composes
// what they return; it knows no feature beyond that list.
//
// A new feature (a channel, a dry-run step; prompts.go was one) is one
// new file with one constructor, func(*deps) (feature, error), added to
// New's list. It attaches itself through the fields below, all optional:
//
//   - tools: its toolkit.Specs. Every feature's specs are registered
//     together, in the order of features, by one toolkit.Register, which
//     derives the gate, the tools/list filter and the result shape from
//     each spec.
//   - instructions: a sentence appended to the server's instructions
//     (prompts.go's routing paragraph; keep the whole under 1 KB).
//   - configure: runs on the server's options before the server is built:
//     capabilities (Prompts, Completions, a Resources field), handlers the
//     SDK takes only as options (subscribe, CompletionHandler, initialized
//     and roots hooks), cache hints.
//   - attach: runs on the built server: resources and templates
//     (s.AddResource), prompts (s.AddPrompt), custom methods
//     (mcp.AddReceivingCustomMethod), wrappers of a method's handler
//     (deps.dispatch.On; never a receiving middleware), and the hooks through
//     which a domain value sends notifications (an event hub's updates, a
//     task runner's changes).
//
// A feature that runs an action builds a plan and hands it to the
// executor's pipeline (package pipeline: Run, or Read for a read); it
// does not call SnowLuma itself.
type feature struct {
	tools        []toolkit.Spec
	instructions string
	configure    func(*mcp.ServerOptions)
	attach       func(*mcp.Server) error
}

// deps is what every feature is built from: the one backend and the
// server-wide pieces New makes once.
type deps struct {
	opts Options
	mode config.Mode
	// dispatch is the server's one receiving middleware: a feature wraps
	// the handler of a method with dispatch.On, never with a middleware of
	// its own.
	dispatch *mcpseam.Dispatch
	catalog  catalogSource
	backend  *backend.Backend // the bot; never nil
	exec     *executor        // the pipeline over backend
	events   *eventService    // nil without events
	channel  *channelService  // nil when the QQ channel is off
	archive  *archiveService  // nil without an archive
	// tasks runs background tasks (nil when they are off, for the reason
	// in tasksOff): the backend's, or with several bots the first bot's.
	tasks    *tasks.Runner
	tasksOff string
	sealer   *seal.Sealer // continuations of every form
	log      *slog.Logger // the one line per call, and warnings
}
