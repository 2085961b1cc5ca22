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

// describe turns a CallToolResult of invoke_action into {kind, text}: kind
// is "success", "failed" (certainly not sent), "dry_run" (checked and not
// sent on purpose, SNOWLUMA_MCP_DRY_RUN) or "unknown". t is the
// panel's language (TEXTS.en or TEXTS.zh of i18n.js); SnowLuma's wording
// and the server's diagnostics are quoted as they came.
export function describe(res, t) {
  const sc = res && typeof res.structuredContent === "object" ? res.structuredContent : null;
  const diag = sc && sc.diagnostics ? sc.diagnostics : null;
  if (!diag) {
    return { kind: "unknown", text: t.unknown + t.noDiagnostics };
  }
  const envelope = sc.result && typeof sc.result === "object" ? sc.result : {};
  // A dry run's answer is a success of the checks: nothing was sent.
  if (diag.kind === "dry_run") {
    return { kind: "dry_run", text: t.dryRun };
  }
  if (diag.outcome === "success") {
    const id = envelope.data && envelope.data.message_id;
    const which = id === undefined || id === null ? null : String(id);
    // The sandbox's SnowLuma is simulated: nothing reached QQ.
    return { kind: "success", text: diag.sandbox === true ? t.sentSandbox(which) : t.sent(which) };
  }
  if (diag.outcome === "failed" && diag.kind === "business") {
    const wording = envelope.wording || envelope.message || "";
    const code = envelope.retcode === undefined ? null : String(envelope.retcode);
    return { kind: "failed", text: t.refused(String(wording), code) };
  }
  if (diag.outcome === "failed" && NOT_SENT.has(diag.kind)) {
    return { kind: "failed", text: t.notSent(diag.message || diag.kind) };
  }
  return { kind: "unknown", text: t.unknown + (diag.message ? t.unknownWhy(diag.message) : "") };
}
