// Builds panel.html: src/panel.js bundled with its dependencies and
// src/panel.css, both inlined into src/panel.html, so the panel is one
// self-contained file with nothing to fetch. package ui embeds the result;
// run it with scripts/build-ui (CI checks the committed file is current).
import { build } from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

const here = new URL(".", import.meta.url);
const read = (p) => readFile(new URL(p, here), "utf8");

// zod's namespace re-exports its sixty-odd locales for error messages, and
// the SDK uses that namespace whole, so the bundler cannot drop them: they
// were a third of the panel. zod speaks English unless configured, and the
// panel neither configures it nor shows its messages, so every locale
// resolves to the English one.
const englishZod = {
  name: "english-zod",
  setup(b) {
    b.onResolve({ filter: /^\.\/[A-Za-z-]+\.js$/ }, (args) => {
      if (!args.importer.endsWith(join("zod", "v4", "locales", "index.js"))) return undefined;
      return { path: join(dirname(args.importer), "en.js") };
    });
  },
};

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
