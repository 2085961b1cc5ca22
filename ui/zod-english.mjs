// An esbuild plugin shared by build.mjs (the panel) and the browser test's
// host page: zod's namespace re-exports its sixty-odd locales for error
// messages, and the SDK uses that namespace whole, so the bundler cannot
// drop them; they were a third of the panel. zod speaks English unless
// configured, and neither page configures it, so every locale resolves to
// the English one.
import { dirname, join } from "node:path";

export const englishZod = {
  name: "english-zod",
  setup(b) {
    b.onResolve({ filter: /^\.\/[A-Za-z-]+\.js$/ }, (args) => {
      if (!args.importer.endsWith(join("zod", "v4", "locales", "index.js"))) return undefined;
      return { path: join(dirname(args.importer), "en.js") };
    });
  },
};
