// A minimal MCP Apps host page for the browser test: it renders the panel in
// a sandboxed iframe through ext-apps' AppBridge, hands it the
// preview_message input and result, and relays the panel's tool calls to
// the real snowluma-mcp through relayCallTool, a function run.mjs exposes.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

// locale, when given, goes in the host context (none when null);
// window.setLocale changes it later, as a host whose user switched
// language would.
window.startHost = async ({ html, theme, locale, serverTools, toolInput, toolResult }) => {
  document.documentElement.style.background = theme === "dark" ? "#111316" : "#eef0f3";
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "Message preview";
  iframe.style.cssText = "width:560px;height:300px;border:1px solid #888;border-radius:8px;display:block;margin:12px;";
  document.body.appendChild(iframe);
  const caps = serverTools ? { serverTools: {} } : {};
  const hostContext = { theme, displayMode: "inline", platform: "web" };
  if (locale) hostContext.locale = locale;
  const bridge = new AppBridge(null, { name: "snowluma-browser-test-host", version: "1.0.0" }, caps, { hostContext });
  window.setLocale = (l) => bridge.setHostContext({ ...hostContext, locale: l });
  bridge.oncalltool = (params) => window.relayCallTool(params);
  bridge.onsizechange = ({ height }) => {
    if (height) iframe.style.height = Math.ceil(height) + "px";
  };
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = resolve;
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
  window.hostReady = true;
};
