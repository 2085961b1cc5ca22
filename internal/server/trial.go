package server

import (
	"fmt"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/server/toolkit"
	"github.com/snowluma/snowluma-mcp/safety"
)

// Trying the server without risk: the sandbox (the backend is the simulated
// SnowLuma that `snowluma-mcp sandbox` starts in its own process) and the
// dry run (SNOWLUMA_MCP_DRY_RUN: writes are checked and not sent). Both are
// properties of the backend; this file says what they change.
//
//   - In a sandbox every tool result's diagnostics carries sandbox: true
//     (toolkit.Config.Sandbox), get_runtime_info says sandbox, and the
//     instructions tell the model that the account is simulated.
//   - In a dry run the pipeline's send step is replaced, for every action
//     that is not read-only, by dryRun: the call has passed every check
//     (mode, params, targets, pacing, confirmation) and its audit line is
//     written, marked dry_run, but nothing goes to SnowLuma. Reads still
//     go. A background call runs the same step in its task, and the panel
//     reads the kind.

// trialFeature tells the model, through the server's instructions, that
// this server is a sandbox or a dry run.
func trialFeature(d *deps) (feature, error) {
	var f feature
	if d.backend.Sandbox {
		f.instructions += " This server drives the sandbox, a simulated SnowLuma with a simulated QQ account (snowluma-mcp sandbox): every answer carries diagnostics.sandbox, and nothing reaches QQ."
	}
	if d.backend.DryRun {
		f.instructions += " Dry run (SNOWLUMA_MCP_DRY_RUN): read-only actions run; every other action and upload is checked and not sent, answered with kind dry_run."
	}
	return f, nil
}

// dryRuns reports whether a call of a stops before SnowLuma: in a dry run,
// every action that is not read-only.
func (x *executor) dryRuns(a *catalog.Action) bool {
	return x.backend.DryRun && !a.ReadOnly
}

// dryRunResult is the result of a write that was not sent: the action and
// the targets it would have named, so that an agent can follow its plan
// and a person can check it.
type dryRunResult struct {
	DryRun dryRunCall `json:"dry_run"`
}

type dryRunCall struct {
	Action string  `json:"action"`
	Groups []int64 `json:"groups"`
	Users  []int64 `json:"users"`
	// InputFile is the file an automatic upload would have sent, as
	// execution.input_file named it.
	InputFile string `json:"input_file,omitempty"`
}

// dryRunUpload checks the file of an automatic upload as far as can be
// done without sending it: it opens inside the upload root and is not
// larger than the file limit.
func (x *executor) dryRunUpload(input string) (toolkit.Reply, bool) {
	f, err := x.backend.Uploads.Open(input)
	if err != nil {
		return failure(err, false, true), false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return toolkit.Fail(toolkit.KindLocalIO, "dry run: the input file could not be read: "+err.Error()+"; nothing was sent", "check the MCP host's disk and call again"), false
	}
	if limit := x.backend.MaxFileBytes(); limit > 0 && fi.Size() > limit {
		return toolkit.Fail(toolkit.KindTooLarge, fmt.Sprintf("dry run: the input file is %d bytes, over SNOWLUMA_MCP_MAX_FILE_BYTES (%d); nothing was sent", fi.Size(), limit),
			"the file is larger than SNOWLUMA_MCP_MAX_FILE_BYTES allows: raise it and restart the server, or transfer a smaller file"), false
	}
	return toolkit.Reply{}, true
}

// dryRun answers a write that passed every check and is not sent. The
// outcome is success (the checks passed) and the kind dry_run says that
// nothing was sent, so that no reader takes it for a sent message: there
// is no envelope, no message_id. An automatic upload's file is checked as
// the upload would check it first: readable inside the root, within the
// size limit.
func (x *executor) dryRun(a *catalog.Action, t safety.Targets, p plan) toolkit.Reply {
	call := dryRunCall{Action: a.Name, Groups: t.Groups, Users: t.Users}
	if call.Groups == nil {
		call.Groups = []int64{}
	}
	if call.Users == nil {
		call.Users = []int64{}
	}
	if p.upload != nil {
		if r, ok := x.dryRunUpload(p.upload.input); !ok {
			return r
		}
		call.InputFile = p.upload.input
	}
	return toolkit.Reply{
		Result: dryRunResult{call},
		Diag: toolkit.Diagnostics{Outcome: toolkit.OutcomeSuccess, Kind: toolkit.KindDryRun,
			Message:  "dry run: " + a.Name + " passed every check and was not sent to SnowLuma; nothing reached QQ",
			NextStep: "treat it as a rehearsal: there is no message_id or other answer from SnowLuma; the operator sets SNOWLUMA_MCP_DRY_RUN=false to send for real"},
	}
}
