package pipeline

import (
	"fmt"

	"github.com/snowluma/snowluma-mcp/catalog"
	"github.com/snowluma/snowluma-mcp/internal/outcome"
	"github.com/snowluma/snowluma-mcp/safety"
)

// The dry run (SNOWLUMA_MCP_DRY_RUN): the send step is replaced, for every
// action that is not read-only, by dryRun. The call has passed every check
// (params, targets, pacing, confirmation) and its audit line is written,
// marked dry_run, but nothing goes to SnowLuma. Reads still go.

// dryRuns reports whether a call of a stops before SnowLuma: in a dry run,
// every action that is not read-only.
func (x *Executor) dryRuns(a *catalog.Action) bool {
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

// dryRun answers a write that passed every check and is not sent. The
// outcome is success (the checks passed) and the kind dry_run says that
// nothing was sent, so that no reader takes it for a sent message: there
// is no envelope, no message_id. An automatic upload's file is checked as
// the upload would check it first: readable inside the root, within the
// size limit.
func (x *Executor) dryRun(a *catalog.Action, t safety.Targets, p Plan) outcome.Reply {
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
	return outcome.Reply{
		Result: dryRunResult{call},
		Diag: outcome.Diagnostics{Outcome: outcome.OutcomeSuccess, Kind: outcome.KindDryRun,
			Message:  "dry run: " + a.Name + " passed every check and was not sent to SnowLuma; nothing reached QQ",
			NextStep: "treat it as a rehearsal: there is no message_id or other answer from SnowLuma; the operator sets SNOWLUMA_MCP_DRY_RUN=false to send for real"},
	}
}

// dryRunUpload checks the file of an automatic upload as far as can be
// done without sending it: it opens inside the upload root and is not
// larger than the file limit.
func (x *Executor) dryRunUpload(input string) (outcome.Reply, bool) {
	f, err := x.backend.Uploads.Open(input)
	if err != nil {
		return failure(err, false, true), false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return outcome.Fail(outcome.KindLocalIO, "dry run: the input file could not be read: "+err.Error()+"; nothing was sent", "check the MCP host's disk and call again"), false
	}
	if limit := x.backend.MaxFileBytes(); limit > 0 && fi.Size() > limit {
		return outcome.Fail(outcome.KindTooLarge, fmt.Sprintf("dry run: the input file is %d bytes, over SNOWLUMA_MCP_MAX_FILE_BYTES (%d); nothing was sent", fi.Size(), limit),
			"the file is larger than SNOWLUMA_MCP_MAX_FILE_BYTES allows: raise it and restart the server, or transfer a smaller file"), false
	}
	return outcome.Reply{}, true
}
