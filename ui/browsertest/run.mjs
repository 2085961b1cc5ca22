// The browser test's driver, run by cmd/snowluma-mcp/panel_test.go. For each
// scenario it starts the real snowluma-mcp over stdio (an MCP client that
// advertises the Apps extension), calls preview_message, reads the panel
// from the server's ui:// resource, and shows it in Debian's headless
// Chromium inside host.js, which relays the panel's tool calls back to the
// binary. It clicks as a person would, takes a screenshot of each state
// when asked to, and prints what it observed as JSON; the Go test judges it
// (and counts the requests the fake SnowLuma received).
//
// Input: PANEL_TEST, a JSON object {bin, shots, scenarios: [...]}, shots
// being the folder for screenshots or "" for none. Every request the page
// makes is intercepted: the host page is served from memory and anything
// else is blocked and reported.
import { build } from "esbuild";
import { englishZod } from "../zod-english.mjs";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const config = JSON.parse(process.env.PANEL_TEST);
const HOST_URL = "http://panel-host.test/host.html";
const APPS = { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } };

const hostBundle = (
  await build({
    entryPoints: [new URL("host.js", import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    // Parsed once per scenario: minified and without zod's other
    // locales it is a third of its 1.2 MB.
    minify: true,
    plugins: [englishZod],
    logLevel: "warning",
  })
).outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
const hostPage = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head><body style="margin:0"><script>${hostBundle}</script></body></html>`;

const userData = await mkdtemp(join(tmpdir(), "snowluma-panel-chromium-"));
const context = await chromium.launchPersistentContext(userData, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // One renderer for the host page and its sandboxed panel: the sandbox
    // (an opaque origin, scripts only) holds in one process as in two,
    // and a process of its own for each frame and page cost a tenth of
    // the test's CPU.
    "--disable-features=IsolateSandboxedIframes,site-per-process",
    "--renderer-process-limit=1",
  ],
  viewport: { width: 600, height: 420 },
});

// Every request of every page and frame: the host page is answered from
// memory, everything else is blocked and reported.
const requests = [];
const blocked = [];
context.on("request", (r) => requests.push(r.url()));
await context.route("**/*", (route) => {
  const url = route.request().url();
  if (url === HOST_URL) return route.fulfill({ status: 200, contentType: "text/html", body: hostPage });
  blocked.push(url);
  return route.abort("blockedbyclient");
});

async function connect(sc) {
  const env = { HOME: process.env.HOME || "/tmp", SNOWLUMA_MCP_MODE: sc.mode };
  if (sc.endpoint) env.SNOWLUMA_MCP_ENDPOINT = sc.endpoint;
  if (sc.timeoutMs) env.SNOWLUMA_MCP_TIMEOUT_MS = String(sc.timeoutMs);
  if (sc.lang) env.SNOWLUMA_MCP_LANG = sc.lang;
  if (sc.dryRun) env.SNOWLUMA_MCP_DRY_RUN = "true";
  if (sc.sandbox) env.SNOWLUMA_MCP_SANDBOX_TRICKLE_MS = "0";
  const args = sc.sandbox ? ["sandbox"] : [];
  const transport = new StdioClientTransport({ command: config.bin, args, env, stderr: "pipe" });
  const client = new Client({ name: "snowluma-browser-test", version: "1.0.0" }, { capabilities: { extensions: APPS } });
  await client.connect(transport);
  return client;
}

async function runScenario(sc) {
  const out = { name: sc.name, relayed: [], dialogs: [], shots: [], consoleErrors: [] };
  const client = await connect(sc);
  try {
    const tools = await client.listTools();
    const tool = tools.tools.find((t) => t.name === "preview_message");
    out.resourceUri = tool && tool._meta && tool._meta.ui ? tool._meta.ui.resourceUri : null;
    const resources = await client.listResources();
    out.listed = resources.resources.map((r) => r.uri);
    const read = await client.readResource({ uri: out.resourceUri });
    const panel = read.contents[0];
    out.panelMime = panel.mimeType;
    out.panelMeta = panel._meta || null;
    const toolResult = await client.callTool({ name: "preview_message", arguments: sc.args });
    out.preview = toolResult.structuredContent;

    const page = await context.newPage();
    page.on("dialog", (d) => {
      out.dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    page.on("console", (m) => {
      if (m.type() === "error") out.consoleErrors.push(m.text());
    });
    await page.exposeFunction("relayCallTool", async (params) => {
      out.relayed.push(params);
      return client.callTool(params, { timeout: 60000 });
    });
    await page.goto(HOST_URL);
    await page.evaluate((a) => window.startHost(a), {
      html: panel.text,
      theme: sc.theme,
      locale: sc.locale || null,
      serverTools: sc.serverTools,
      toolInput: sc.args,
      toolResult,
    });
    await page.waitForFunction(() => window.hostReady === true);
    const frame = await (await page.$("iframe")).contentFrame();
    await frame.waitForFunction(() => document.documentElement.dataset.phase === "ready");
    const shot = async (label) => {
      if (!config.shots) return;
      const path = join(config.shots, `${sc.name}-${label}.png`);
      await page.locator("iframe").screenshot({ path });
      out.shots.push(path);
    };
    const look = () =>
      frame.evaluate(() => ({
        type: document.getElementById("type").textContent,
        target: document.getElementById("target").textContent,
        reply: document.getElementById("reply-row").hidden ? null : document.getElementById("reply").textContent,
        text: document.getElementById("text").textContent,
        elements: document.querySelectorAll("img, script[src], iframe, link, object, embed").length,
        sendDisabled: document.getElementById("send").disabled,
        reason: document.getElementById("reason").textContent,
        status: document.getElementById("status").textContent,
        banner: document.getElementById("mode").hidden ? "" : document.getElementById("mode").textContent,
        statusKind: document.getElementById("status").dataset.kind || "",
        theme: document.documentElement.dataset.theme || "",
        lang: document.documentElement.lang,
        title: document.title,
        labels: [...document.querySelectorAll("[data-text]")].map((e) => e.textContent),
        textLabel: document.getElementById("text").getAttribute("aria-label"),
        sendLabel: document.getElementById("send").textContent,
        background: getComputedStyle(document.body).backgroundColor,
      }));
    out.before = await look();
    await shot("ready");

    switch (sc.click) {
      case "keyboard": {
        // Reach Send with Tab from the message text, press Enter.
        await frame.locator("#text").focus();
        await page.keyboard.press("Tab");
        out.focused = await frame.evaluate(() => document.activeElement && document.activeElement.id);
        await page.keyboard.press("Enter");
        break;
      }
      case "dblclick":
        await frame.locator("#send").dblclick();
        break;
      case "click":
        await frame.locator("#send").click();
        break;
      case "none":
        // Send is disabled: a forced click and Enter on it must do nothing.
        await frame.locator("#send").click({ force: true });
        await frame.locator("#send").press("Enter");
        break;
    }
    if (sc.click !== "none") {
      await frame.waitForFunction(() => document.getElementById("status").textContent !== "", null, { timeout: 30000 });
    }
    out.after = await look();
    await shot("after");
    // More attempts once the outcome is shown: the button stays disabled and
    // nothing more is relayed.
    await frame.locator("#send").click({ force: true });
    await page.keyboard.press("Enter");
    out.final = await look();
    // A host whose user switches language: the panel rewords what it shows,
    // the outcome too, and still sends nothing more.
    if (sc.switchLocale) {
      await page.evaluate((l) => window.setLocale(l), sc.switchLocale);
      const lang = sc.switchLocale.toLowerCase().startsWith("zh") ? "zh-CN" : "en";
      await frame.waitForFunction((l) => document.documentElement.lang === l, lang);
      out.switched = await look();
      await shot("switched");
    }
    await page.close();
  } finally {
    await client.close();
  }
  return out;
}

const results = [];
try {
  for (const sc of config.scenarios) results.push(await runScenario(sc));
} finally {
  await context.close();
  await rm(userData, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify({ results, requests, blocked }));
