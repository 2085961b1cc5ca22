// The message preview panel: an MCP Apps view for preview_message. It shows
// the draft the server prepared, as text, and sends it with invoke_action
// through the host only when the person presses Send: once, never retried.

import { App, applyDocumentTheme, applyHostStyleVariables } from "@modelcontextprotocol/ext-apps";
import { describe, UNKNOWN } from "./outcome.js";

const $ = (id) => document.getElementById(id);

// phase: "waiting" (no draft yet), "ready", "sending", "done" (one attempt
// made; the button never comes back).
// sandbox says the server drives the simulated SnowLuma of
// `snowluma-mcp sandbox`, as every result's diagnostics.sandbox does.
const state = { phase: "waiting", preview: null, problem: "", outcome: null, sandbox: false };

const app = new App({ name: "snowluma-message-preview", version: "1.0.0" }, {}, { autoResize: true });

function theme(ctx) {
  if (!ctx) return;
  if (ctx.theme === "dark" || ctx.theme === "light") applyDocumentTheme(ctx.theme);
  if (ctx.styles && ctx.styles.variables) applyHostStyleVariables(ctx.styles.variables);
}

function hostCanCallTools() {
  const caps = app.getHostCapabilities();
  return Boolean(caps && caps.serverTools);
}

// reason says why Send is disabled, or "" when it may be pressed.
function reason() {
  switch (state.phase) {
    case "waiting":
      return state.problem || "Waiting for the draft.";
    case "sending":
      return "Sending…";
    case "done":
      return "This panel made its one attempt and never repeats it; draft again to send another message.";
  }
  if (!state.preview.can_send) {
    return state.preview.cannot_send || "This server cannot send messages in its current mode.";
  }
  if (!hostCanCallTools()) {
    return "This host cannot call server tools, so the panel cannot send; use invoke_action with the prepared arguments.";
  }
  return "";
}

function render() {
  const p = state.preview;
  if (p) {
    const d = p.draft;
    $("type").textContent = d.message_type === "group" ? "Group message" : "Private message";
    $("target").textContent = (d.message_type === "group" ? "group " : "QQ user ") + String(d.target_id);
    const quoting = d.reply_to !== undefined && d.reply_to !== null;
    $("reply-row").hidden = !quoting;
    $("reply").textContent = quoting ? "message " + String(d.reply_to) : "";
    $("text").textContent = d.text;
  } else if (state.problem) {
    $("text").textContent = state.problem;
  }
  const mode = $("mode");
  mode.hidden = !state.sandbox;
  mode.textContent = state.sandbox ? "Sandbox: a simulated QQ account. Nothing sent from here reaches QQ." : "";
  const why = reason();
  const send = $("send");
  send.disabled = why !== "";
  send.textContent = state.phase === "sending" ? "Sending…" : "Send";
  $("reason").textContent = why;
  const status = $("status");
  if (state.outcome) {
    status.dataset.kind = state.outcome.kind;
    status.textContent = state.outcome.text;
  }
}

async function send() {
  // The phase changes before anything awaits, so a second click (or Enter
  // held down) finds the panel no longer ready and does nothing.
  if (state.phase !== "ready" || reason() !== "") return;
  state.phase = "sending";
  render();
  let outcome;
  try {
    const res = await app.callServerTool({ name: "invoke_action", arguments: state.preview.invoke });
    outcome = describe(res);
  } catch (err) {
    outcome = { kind: "unknown", text: UNKNOWN + " (" + (err && err.message ? err.message : String(err)) + ")" };
  }
  state.phase = "done";
  state.outcome = outcome;
  render();
}

app.ontoolresult = (res) => {
  if (state.phase === "sending" || state.phase === "done") return;
  const sc = res && res.structuredContent;
  const p = sc && sc.result;
  state.sandbox = Boolean(sc && sc.diagnostics && sc.diagnostics.sandbox === true);
  if (res.isError || !p || !p.draft || !p.invoke) {
    const msg = sc && sc.diagnostics && sc.diagnostics.message;
    state.preview = null;
    state.phase = "waiting";
    state.problem = "The draft was not accepted: " + (msg || "preview_message returned no draft") + ".";
  } else {
    state.preview = p;
    state.problem = "";
    state.phase = "ready";
  }
  render();
};
app.onhostcontextchanged = (ctx) => theme(ctx);
app.onteardown = async () => ({});

$("send").addEventListener("click", send);

app.connect().then(
  () => {
    theme(app.getHostContext());
    render();
  },
  (err) => {
    state.problem = "Could not connect to the host: " + (err && err.message ? err.message : String(err));
    render();
  },
);
render();
