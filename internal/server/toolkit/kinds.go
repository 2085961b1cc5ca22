package toolkit

// Kind names the cause of a failure. The vocabulary is closed: every Kind is
// declared in Kinds with its meaning, diagnostics.kind in every outputSchema
// is an enum of exactly that list, and the README's table follows it.
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
	KindAuditFailed             Kind = "audit_failed"
	KindUnknownResource         Kind = "unknown_resource"
	KindTooManyResources        Kind = "too_many_resources"
	KindReleaseRequired         Kind = "release_required"
	KindTaskStore               Kind = "task_store"

	KindInternal Kind = "internal"
)

// A KindDoc declares one failure kind: its name and what it means.
type KindDoc struct {
	Kind    Kind
	Meaning string
}

// Kinds returns the whole vocabulary in the order the README lists it.
// Adding a Kind means adding it here; a test fails for a Kind used by the
// server but missing from this list.
func Kinds() []KindDoc {
	return []KindDoc{
		{KindInvalidArguments, "the tool's own arguments are wrong"},
		{KindUnknownAction, "the action is neither a catalog action nor an alias"},
		{KindModeGate, "the configured mode does not allow the tool"},
		{KindNotConfigured, "the tool needs a service that is not configured"},
		{KindCapability, "the tool needs a client capability this client did not advertise"},
		{KindWriteAction, "a write action was sent through a read-only tool"},
		{KindInvalidParams, "the action's params fail the catalog's inputSchema"},
		{KindBusiness, "SnowLuma answered with a failure (retcode not 0)"},
		{KindUnconfirmed, "the answer neither confirms nor denies success"},
		{KindUnauthorized, "SnowLuma refused the token"},
		{KindTransport, "SnowLuma could not be reached"},
		{KindTimeout, "no answer within the timeout"},
		{KindCancelled, "the call was cancelled"},
		{KindProtocol, "SnowLuma's answer was not a OneBot envelope"},
		{KindTooLarge, "an answer exceeded its documented cap"},
		{KindStreamFailed, "a stream ended without its final frame"},
		{KindQuota, "a download would take the download directory past its quota"},
		{KindBusy, "a limit of concurrent work is reached: SNOWLUMA_MCP_MAX_STREAMS stream calls, or four background tasks"},
		{KindPathRefused, "execution.input_file is outside the upload root or not a readable regular file; nothing was sent"},
		{KindLocalIO, "the MCP host's disk failed a transfer's read or write"},
		{KindElicitationUnsupported, "the client cannot show a form"},
		{KindDeclined, "the user declined the form"},
		{KindInvalidAnswer, "the form's answer is unusable"},
		{KindContinuation, "requestState is forged, stale, reused or foreign"},
		{KindTooManyPending, "256 continuations already wait"},
		{KindSensitive, "the action answers with a credential of the account and SNOWLUMA_MCP_SENSITIVE is deny"},
		{KindConfirmationUnavailable, "the action must be confirmed by a person and the client cannot show a form"},
		{KindNotConfirmed, "the person answered the confirmation with confirm false"},
		{KindRateLimited, "a message send over the pacing limits; diagnostics.retry_after_ms says when to retry"},
		{KindTargetNotAllowed, "the params name a group or user outside the allowlists"},
		{KindAuditFailed, "the audit file cannot be written, so the write action was not run"},
		{KindUnknownResource, "the URI names no live event resource"},
		{KindTooManyResources, "16 event resources already exist"},
		{KindReleaseRequired, "existing event resources must be released first: their connection ended, or serves another account"},
		{KindTaskStore, "the background task directory could not be read or written"},
		{KindInternal, "a defect of snowluma-mcp itself"},
	}
}
