package server

// Trying the server without risk: the sandbox (the backend is the simulated
// SnowLuma that `snowluma-mcp sandbox` starts in its own process) and the
// dry run (SNOWLUMA_MCP_DRY_RUN: writes are checked and not sent). Both are
// properties of the backend; this file says what they change.
//
//   - In a sandbox every tool result's diagnostics carries sandbox: true
//     (toolkit.Config.Sandbox), get_runtime_info says sandbox, and the
//     instructions tell the model that the account is simulated.
//   - In a dry run the pipeline's send step is replaced, for every action
//     that is not read-only, by its dry run (internal/pipeline/dryrun.go): the call has passed every check
//     (mode, params, targets, pacing, confirmation) and its audit line is
//     written, marked dry_run, but nothing goes to SnowLuma. Reads still
//     go. A background call runs the same step in its task, and the panel
//     reads the kind.

// trialFeature tells the model, through the server's instructions, that
// this server is a sandbox or a dry run.
func trialFeature(d *deps) (feature, error) {
	var f feature
	if d.backend.Sandbox {
		f.instructions += " In this sandbox SnowLuma and QQ are simulated."
	}
	if d.backend.DryRun {
		f.instructions += " Dry run: writes are checked, not sent (kind dry_run)."
	}
	return f, nil
}
