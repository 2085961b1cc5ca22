// Builds panel.html: src/panel.js bundled with its dependencies and
// src/panel.css, both inlined into src/panel.html, so the panel is one
// self-contained file with nothing to fetch. package ui embeds the result;
// run it with scripts/build-ui (CI checks the committed file is current).
import { build } from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import { englishZod } from "./zod-english.mjs";

const here = new URL(".", import.meta.url);
const read = (p) => readFile(new URL(p, here), "utf8");

const js = await build({
  entryPoints: [new URL("src/panel.js", here).pathname],
  bundle: true,
  write: false,
  format: "iife",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "inline",
  charset: "utf8",
  logLevel: "warning",
  plugins: [englishZod],
});
const css = await build({
  entryPoints: [new URL("src/panel.css", here).pathname],
  bundle: true,
  write: false,
  minify: true,
  logLevel: "warning",
});
let script = js.outputFiles[0].text.trim();
let style = css.outputFiles[0].text.trim();
// An inlined script or style must not close its own element early.
script = script.replace(/<\/(script)/gi, "<\\/$1");
if (/<\/style/i.test(style)) throw new Error("panel.css contains </style");

let html = await read("src/panel.html");
for (const [marker, body] of [["/*PANEL_CSS*/", style], ["/*PANEL_JS*/", script]]) {
  if (!html.includes(marker)) throw new Error("src/panel.html lacks " + marker);
  html = html.replace(marker, () => body);
}
await writeFile(new URL("panel.html", here), html);
console.log(`ui/panel.html: ${Buffer.byteLength(html)} bytes`);
