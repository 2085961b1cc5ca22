// The message preview panel: an MCP Apps view for preview_message. It shows
// the draft the server prepared, as text, and sends it with invoke_action
// through the host only when the person presses Send: once, never retried.
// It speaks Chinese or English (i18n.js): the host's locale, else the
// server's language, else English.

import { App, applyDocumentTheme, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";
import { describe } from "./outcome.js";
import { pick, TEXTS } from "./i18n.js";

const $ = (id) => document.getElementById(id);

// The preview result's _meta entry with the server's language and mode.
const PANEL_META = "snowluma-mcp/panel";

// phase: "waiting" (no draft yet), "ready", "sending", "done" (one attempt
// made; the button never comes back). Problems and outcomes are kept as
// what happened, not as text, so that a change of locale rewords them.
const state = {
  phase: "waiting",
  preview: null,
  problem: null, // {kind: "rejected" | "host", message}
  sent: null, // {result} or {error}: the one attempt's answer
  // sandbox: the server drives the simulated SnowLuma of `snowluma-mcp
  // sandbox`; dryRun: it checks writes and sends none
  // (SNOWLUMA_MCP_DRY_RUN).
  server: { lang: "", mode: "", sandbox: false, dryRun: false },
};

const app = new App({ name: "snowluma-message-preview", version: "1.0.0" }, {}, { autoResize: true });

function theme(ctx) {
  if (!ctx) return;
  if (ctx.theme === "dark" || ctx.theme === "light") applyDocumentTheme(ctx.theme);
  if (ctx.styles && ctx.styles.variables) applyHostStyleVariables(ctx.styles.variables);
}

// words is the panel's language now: the host context as it stands (the
// App keeps it merged across changes), then the server's choice.
function words() {
  const ctx = app.getHostContext();
  return TEXTS[pick(ctx && ctx.locale, state.server.lang)];
}

function hostCanCallTools() {
  const caps = app.getHostCapabilities();
  return Boolean(caps && caps.serverTools);
}

function problemText(t) {
  if (!state.problem) return "";
  return state.problem.kind === "host" ? t.noHost(state.problem.message) : t.notAccepted(state.problem.message);
}

// reason says why Send is disabled, or "" when it may be pressed.
function reason(t) {
  switch (state.phase) {
    case "waiting":
      return problemText(t) || t.waiting;
    case "sending":
      return t.sending;
    case "done":
      return t.done;
  }
  if (!state.preview.can_send) {
    return t.cannotSend(state.server.mode, state.preview.cannot_send);
  }
  if (!hostCanCallTools()) {
    return t.noServerTools;
  }
  return "";
}

function outcome(t) {
  if (!state.sent) return null;
  if (state.sent.error !== undefined) {
    const err = state.sent.error;
    return { kind: "unknown", text: t.unknown + t.unknownWhy(err && err.message ? err.message : String(err)) };
  }
  return describe(state.sent.result, t);
}

function render() {
  const t = words();
  document.documentElement.lang = t.htmlLang;
  document.documentElement.dataset.lang = t.htmlLang;
  document.documentElement.dataset.phase = state.phase;
  document.title = t.title;
  for (const el of document.querySelectorAll("[data-text]")) el.textContent = t[el.dataset.text];
  $("text").setAttribute("aria-label", t.textLabel);
  const p = state.preview;
  if (p) {
    const d = p.draft;
    const group = d.message_type === "group";
    $("type").textContent = group ? t.group : t.private;
    $("target").textContent = group ? t.groupTarget(String(d.target_id)) : t.userTarget(String(d.target_id));
    const quoting = d.reply_to !== undefined && d.reply_to !== null;
    $("reply-row").hidden = !quoting;
    $("reply").textContent = quoting ? t.quoted(String(d.reply_to)) : "";
    $("text").textContent = d.text;
  } else {
    $("text").textContent = problemText(t) || t.waitingText;
  }
  const banner = [state.server.sandbox ? t.sandboxBanner : "", state.server.dryRun ? t.dryRunBanner : ""].filter(Boolean).join(" ");
  $("mode").hidden = banner === "";
  $("mode").textContent = banner;
  const why = reason(t);
  const send = $("send");
  send.disabled = why !== "";
  send.textContent = state.phase === "sending" ? t.sending : t.send;
  $("reason").textContent = why;
  const o = outcome(t);
  if (o) {
    const status = $("status");
    status.dataset.kind = o.kind;
    status.textContent = o.text;
  }
}

async function send() {
  // The phase changes before anything awaits, so a second click (or Enter
  // held down) finds the panel no longer ready and does nothing.
  if (state.phase !== "ready" || reason(words()) !== "") return;
  state.phase = "sending";
  render();
  let sent;
  try {
    sent = { result: await app.callServerTool({ name: "invoke_action", arguments: state.preview.invoke }) };
  } catch (err) {
    sent = { error: err };
  }
  state.phase = "done";
  state.sent = sent;
  render();
}

// serverSide reads the server's language and mode from a preview result,
// and whether it is a sandbox or a dry run.
function serverSide(res) {
  const m = res && res._meta && res._meta[PANEL_META];
  if (!m || typeof m !== "object") return;
  if (m.lang === "zh" || m.lang === "en") state.server.lang = m.lang;
  if (typeof m.mode === "string") state.server.mode = m.mode;
  state.server.sandbox = m.sandbox === true;
  state.server.dryRun = m.dry_run === true;
}

app.ontoolresult = (res) => {
  if (state.phase === "sending" || state.phase === "done") return;
  serverSide(res);
  const sc = res && res.structuredContent;
  const p = sc && sc.result;
  if (res.isError || !p || !p.draft || !p.invoke) {
    const msg = sc && sc.diagnostics && sc.diagnostics.message;
    state.preview = null;
    state.phase = "waiting";
    state.problem = { kind: "rejected", message: msg || "" };
  } else {
    state.preview = p;
    state.problem = null;
    state.phase = "ready";
  }
  render();
};
app.onhostcontextchanged = () => {
  theme(app.getHostContext());
  render();
};
app.onteardown = async () => ({});

$("send").addEventListener("click", send);

app.connect().then(
  () => {
    theme(app.getHostContext());
    render();
  },
  (err) => {
    state.problem = { kind: "host", message: err && err.message ? err.message : String(err) };
    render();
  },
);
render();
