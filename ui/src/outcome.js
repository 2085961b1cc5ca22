// What the panel says about one send, from invoke_action's result. Kept
// apart from the DOM so the browser test and the panel read the same rules.

// Kinds of failure where snowluma-mcp refused the call before anything went
// to SnowLuma, or SnowLuma refused it outright: nothing was sent.
const NOT_SENT = new Set([
  "invalid_arguments",
  "unknown_action",
  "mode_gate",
  "not_configured",
  "capability",
  "write_action",
  "invalid_params",
  "unauthorized",
  "internal",
]);

export const UNKNOWN = "Outcome unknown: check QQ before sending again.";

// describe turns a CallToolResult of invoke_action into {kind, text}: kind
// is "success", "failed" (certainly not sent), "dry_run" (checked and not
// sent on purpose) or "unknown".
export function describe(res) {
  const sc = res && typeof res.structuredContent === "object" ? res.structuredContent : null;
  const diag = sc && sc.diagnostics ? sc.diagnostics : null;
  if (!diag) {
    return { kind: "unknown", text: UNKNOWN + " The host returned no diagnostics." };
  }
  const envelope = sc.result && typeof sc.result === "object" ? sc.result : {};
  // A dry run checked the send and stopped before SnowLuma: whatever its
  // outcome, nothing was sent.
  if (diag.kind === "dry_run") {
    return {
      kind: "dry_run",
      text: "Dry run: not sent. It passed every check, and nothing went to SnowLuma or QQ (SNOWLUMA_MCP_DRY_RUN is on).",
    };
  }
  if (diag.outcome === "success") {
    const id = envelope.data && envelope.data.message_id;
    const which = id === undefined || id === null ? "" : " as message " + String(id);
    if (diag.sandbox === true) {
      return {
        kind: "success",
        text: "Sent to the sandbox: the simulated SnowLuma accepted it" + which + ". Nothing reached QQ.",
      };
    }
    return {
      kind: "success",
      text: "Sent: SnowLuma accepted it" + which + ". This is not proof that QQ delivered or showed it.",
    };
  }
  if (diag.outcome === "failed" && diag.kind === "business") {
    const wording = envelope.wording || envelope.message || "no reason given";
    const code = envelope.retcode === undefined ? "" : " (retcode " + String(envelope.retcode) + ")";
    return { kind: "failed", text: "Not sent: SnowLuma said: " + String(wording) + code + "." };
  }
  if (diag.outcome === "failed" && NOT_SENT.has(diag.kind)) {
    return { kind: "failed", text: "Not sent: " + (diag.message || diag.kind) + "." };
  }
  const why = diag.message ? " (" + diag.message + ")" : "";
  return { kind: "unknown", text: UNKNOWN + why };
}
