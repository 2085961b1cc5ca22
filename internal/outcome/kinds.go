package outcome

// Kind names the cause of a failure. The vocabulary is closed: every Kind is
// declared in Kinds with its meaning, and that list is what the table of
// docs/tools.md and the failure-kinds resource show. Output schemas leave
// kind a string, so that the vocabulary is not repeated in every tool
// definition. It is the one vocabulary of failures: transfer.Error carries
// a Kind too, and a tool reports that very kind.
type Kind string

const (
	KindInvalidArguments Kind = "invalid_arguments"
	KindUnknownAction    Kind = "unknown_action"
	KindModeGate         Kind = "mode_gate"
	KindNotConfigured    Kind = "not_configured"
	KindCapability       Kind = "capability"
	KindWriteAction      Kind = "write_action"
	KindInvalidParams    Kind = "invalid_params"
	KindBusiness         Kind = "business"
	KindUnconfirmed      Kind = "unconfirmed"
	KindUnauthorized     Kind = "unauthorized"
	KindTransport        Kind = "transport"
	KindTimeout          Kind = "timeout"
	KindCancelled        Kind = "cancelled"
	KindProtocol         Kind = "protocol"
	KindTooLarge         Kind = "too_large"
	KindStreamFailed     Kind = "stream_failed"
	KindQuota            Kind = "quota"
	KindBusy             Kind = "busy"
	KindPathRefused      Kind = "path_refused"
	KindLocalIO          Kind = "local_io"

	KindElicitationUnsupported Kind = "elicitation_unsupported"
	KindDeclined               Kind = "declined"
	KindInvalidAnswer          Kind = "invalid_answer"
	KindContinuation           Kind = "continuation"
	KindTooManyPending         Kind = "too_many_pending"

	KindSensitive               Kind = "sensitive"
	KindConfirmationUnavailable Kind = "confirmation_unavailable"
	KindNotConfirmed            Kind = "not_confirmed"
	KindRateLimited             Kind = "rate_limited"
	KindTargetNotAllowed        Kind = "target_not_allowed"
	KindUntrustedContext        Kind = "untrusted_context"
	KindAuditFailed             Kind = "audit_failed"
	KindUnknownResource         Kind = "unknown_resource"
	KindTooManyResources        Kind = "too_many_resources"
	KindReleaseRequired         Kind = "release_required"
	KindTaskStore               Kind = "task_store"
	KindArchive                 Kind = "archive"
	KindMediaUnreadable         Kind = "media_unreadable"
	// KindDryRun is not a failure: the outcome is success, and the kind
	// says that the write passed every check and was not sent.
	KindDryRun Kind = "dry_run"

	KindInternal Kind = "internal"
)

// A KindDoc declares one failure kind: its name, what it means and what to
// do about it, as the vocabulary table of docs/tools.md shows them (generated from
// this list by scripts/docs).
type KindDoc struct {
	Kind    Kind   `json:"kind"`
	Meaning string `json:"meaning"`
	Fix     string `json:"fix"`
}

// Kinds returns the whole vocabulary in the order docs/tools.md lists it.
// Adding a Kind means adding it here; a test fails for a Kind used by the
// server but missing from this list.
func Kinds() []KindDoc {
	return []KindDoc{
		{KindInvalidArguments, "the tool's own arguments are wrong (named by JSON pointer)", "fix them per the tool's input schema"},
		{KindUnknownAction, "not a catalog action or alias", "use the suggested names or `search_actions`"},
		{KindModeGate, "the mode does not allow the tool", "set `SNOWLUMA_MCP_ENDPOINT` / `SNOWLUMA_MCP_MODE` and restart"},
		{KindNotConfigured, "the tool needs a service that is not configured", "set the variable the message names and restart"},
		{KindCapability, "the tool needs a client capability this client did not advertise", "use a client that has it, or the synchronous tools"},
		{KindWriteAction, "a write action through a read-only tool", "use `invoke_action` (write mode)"},
		{KindInvalidParams, "params fail the action's catalog schema; nothing was sent", "fix the named params; only when the catalog may be behind (a value outside a fixed list, or an action 1.11.1 does not implement) does the next step offer `SNOWLUMA_MCP_VALIDATE_PARAMS=false` for a newer SnowLuma"},
		{KindBusiness, "SnowLuma answered with a failure (returned as data)", "read `result.wording` and `result.retcode`"},
		{KindUnconfirmed, "the answer does not confirm success (returned as data)", "check the effect before repeating"},
		{KindUnauthorized, "SnowLuma refused the token (HTTP 401/403)", "set `SNOWLUMA_MCP_TOKEN`"},
		{KindTransport, "SnowLuma could not be reached, or the connection broke", "check SnowLuma and the endpoint"},
		{KindTimeout, "no answer within the timeout; a write may still have happened", "for a write, check before repeating; a read-only action is safe to call again; raise `SNOWLUMA_MCP_TIMEOUT_MS` for a slow SnowLuma"},
		{KindCancelled, "the client cancelled the call (or the form); a write may still have happened", "check before repeating"},
		{KindProtocol, "the answer is not a OneBot envelope (HTML, an array, truncated); the message names the HTTP status and content type, e.g. `HTTP 404, text/plain: not a OneBot envelope (...); check the endpoint path`", "check that the endpoint is SnowLuma's OneBot HTTP endpoint"},
		{KindTooLarge, "an answer exceeded its cap (16 MiB ordinary, 64 MiB generic stream, 8 MiB collected frames, 8 MiB result JSON), a file is larger than `SNOWLUMA_MCP_MAX_FILE_BYTES`, or a request body would pass `SNOWLUMA_MCP_MAX_BODY_BYTES` (2 MiB, SnowLuma's cap) (nothing kept or sent)", "narrow the request or make its params smaller; raise the file limit"},
		{KindStreamFailed, "a stream ended before its final frame", "check SnowLuma's logs, try again"},
		{KindQuota, "a download would take the download directory past `SNOWLUMA_MCP_DOWNLOAD_QUOTA_BYTES`; nothing was kept", "delete saved files you no longer need, or raise the quota"},
		{KindBusy, "`SNOWLUMA_MCP_MAX_STREAMS` stream calls, or four background tasks, are already running; nothing was sent or started", "wait for one to finish (or cancel a task), or raise the stream limit"},
		{KindPathRefused, "`execution.input_file` is outside `SNOWLUMA_MCP_UPLOAD_ROOT` (a symlink or `..` leading out included), a directory, a device, missing or unreadable; nothing was sent", "give a regular file inside the root"},
		{KindLocalIO, "the MCP host's disk failed a transfer's read or write (full disk, permissions), or the input file changed while it was sent", "check the disk and call again"},
		{KindElicitationUnsupported, "a `*_with_input` tool needs a client with form elicitation", "call the plain tool with complete params"},
		{KindDeclined, "the user declined the form; nothing ran", "ask the user how to proceed"},
		{KindInvalidAnswer, "the form's answer is unusable (not JSON, extra or overwritten fields, wrong types); nothing ran", "ask again"},
		{KindContinuation, "`requestState` is tampered, expired, replayed, from another tool, other arguments or an earlier run; nothing ran", "call the tool again without `requestState`"},
		{KindTooManyPending, "256 forms are already waiting", "answer or abandon some, or pass complete params"},
		{KindSensitive, "a credential action under `SNOWLUMA_MCP_SENSITIVE=deny`; nothing was sent", "ask the operator; `redact` or `allow` opens it"},
		{KindConfirmationUnavailable, "the action must be confirmed by a person and the client has no form elicitation; nothing was sent", "use a client with forms, or have a person do it"},
		{KindNotConfirmed, "the person answered `confirm: false`; nothing ran", "do not repeat unless the person asks"},
		{KindRateLimited, "a send over the pacing limits; nothing was sent; `diagnostics.retry_after_ms` says how long to wait", "wait that long; never loop on sends"},
		{KindTargetNotAllowed, "the params name a group or user outside the allowlists; nothing was sent", "use an allowed target (`get_runtime_info`'s `safety`)"},
		{KindUntrustedContext, "QQ users' text was read on this connection and the write could carry it elsewhere (another chat, a URL, a local file); nothing was sent", "reply only in the chats read, or have a person confirm or do it"},
		{KindAuditFailed, "the audit file cannot be written, so the write action was not run", "make `SNOWLUMA_MCP_AUDIT_FILE` writable again"},
		{KindUnknownResource, "the URI names no live event resource (never created, or released)", "use the `uri` `subscribe_events` returned"},
		{KindTooManyResources, "16 event resources already exist", "release one with `unsubscribe_events`"},
		{KindReleaseRequired, "the event connection ended, or serves another account, and existing resources still hold it", "read them, release them all, then subscribe again"},
		{KindTaskStore, "the task directory could not be read or written", "check `SNOWLUMA_MCP_TASK_DIR`: permissions, free space"},
		{KindArchive, "the message archive's file cannot be used (corrupt, another program's, locked by another snowluma-mcp, full, unwritable); the message names the file", "the operator fixes the file as the next step says and restarts; every other tool still works"},
		{KindMediaUnreadable, "a picture could not be read: not a JPEG, PNG, GIF or WebP, cut short or corrupt, over 50 megapixels or with a header claiming more than its bytes hold (refused before decoding), or too slow to decode; the server is unharmed", "say so to the user; `invoke_action download_file_image_stream` saves the original for a person to open"},
		{KindDryRun, "not a failure (outcome `success`): under `SNOWLUMA_MCP_DRY_RUN` the write passed every check and was not sent; `result.dry_run` names the action and its targets", "nothing reached SnowLuma or QQ: go on with the plan as a rehearsal; the operator sets `SNOWLUMA_MCP_DRY_RUN=false` to send for real"},
		{KindInternal, "a defect of snowluma-mcp itself (its catalog or a schema failed to load or compile; earlier builds reported a catalog schema that failed to compile as `invalid_params`)", "reinstall; report it"},
	}
}
