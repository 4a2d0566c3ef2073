// The Node build: dist/ (code-split, for the npm package) or --single (release/acp-edge.mjs, one
// file). Both bundle src/ with esbuild and defer the ACP SDK's schema building (see
// src/acp/lazy-schemas.ts). Usage: node scripts/build.mjs [--single]
import { build } from "esbuild";
import { chmodSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const single = process.argv.includes("--single");

/**
 * In the SDK's app layer, its generated zod schemas and the guards built from them become
 * namespaces of lazy stand-ins, loaded with `require` so esbuild defers their modules' evaluation.
 * Fails the build if the SDK's file no longer has the lines this replaces (a new SDK version).
 */
const lazyAcpSchemas = {
  name: "lazy-acp-schemas",
  setup(builder) {
    builder.onLoad({ filter: /@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/]stable[\\/]acp\.js$/ }, (args) => {
      let code = readFileSync(args.path, "utf8");
      const lazy = JSON.stringify(join(root, "src", "acp", "lazy-schemas.ts"));
      const replace = (from, to) => {
        if (!code.includes(from)) throw new Error(`lazy-acp-schemas: ${args.path} no longer contains ${JSON.stringify(from)}`);
        code = code.replace(from, to);
      };
      replace(
        'import * as validate from "../schema/zod.gen.js";',
        `import { lazyNamespace as __lazyNamespace } from ${lazy};\nconst validate = __lazyNamespace(() => require("../schema/zod.gen.js"));`,
      );
      const guards = /export \{([^}]*)\} from "\.\.\/schema\/guards\.gen\.js";/.exec(code);
      if (!guards) throw new Error(`lazy-acp-schemas: ${args.path} no longer re-exports ../schema/guards.gen.js`);
      const names = guards[1].split(",").map((n) => n.trim()).filter(Boolean);
      code = code.replace(
        guards[0],
        `const __guards = __lazyNamespace(() => require("../schema/guards.gen.js"));\n` +
          names.map((n) => `export const ${n} = __guards.${n};`).join("\n"),
      );
      // For the idle warm-up after `initialize` (src/acp/sdk.ts: prepareSchemas).
      code += '\nexport const __loadSchemas = () => void require("../schema/zod.gen.js");\n';
      return { contents: code, loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  logLevel: "warning",
  plugins: [lazyAcpSchemas],
  // Bundled CommonJS dependencies call require; ESM output has none of its own.
  banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
};

if (single) {
  await build({ ...common, entryPoints: [join(root, "src", "cli", "bin.ts")], outfile: join(root, "release", "acp-edge.mjs") });
  chmodSync(join(root, "release", "acp-edge.mjs"), 0o755);
} else {
  await build({
    ...common,
    entryPoints: { cli: join(root, "src", "cli", "bin.ts"), mod: join(root, "mod.ts") },
    splitting: true,
    sourcemap: true,
    outdir: join(root, "dist"),
    external: ["@modelcontextprotocol/sdk", "ws", "hono", "@hono/node-server"],
  });
  chmodSync(join(root, "dist", "cli.js"), 0o755);
}
