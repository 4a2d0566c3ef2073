// The Node build: dist/ (code-split, for the npm package) or --single (release/acp-edge.mjs, one
// file). Both bundle src/ with esbuild and defer the ACP SDK's schema building (see
// src/acp/lazy-schemas.ts). Usage: node scripts/build.mjs [--single]
import { build } from "esbuild";
import { chmodSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cloudCredentialsLeftOut } from "./cloud-credentials-left-out.mjs";
import { lazyAcpSchemas } from "./lazy-acp-schemas.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const single = process.argv.includes("--single");

// The fetch tool's page converter runs on a worker thread (src/tools/web/page-conversion.ts). Its script
// is bundled on its own and carried as a data: URL, so dist/, the single file and the compiled binary
// start it the same way, with no file of its own to find next to them.
const worker = await build({
  entryPoints: [join(root, "src", "tools", "web", "html-worker.ts")],
  bundle: true, write: false, platform: "node", format: "esm", target: "node20", minify: true, logLevel: "warning",
});
const workerUrl = `data:text/javascript,${encodeURIComponent(new TextDecoder().decode(worker.outputFiles[0].contents))}`;

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  logLevel: "warning",
  plugins: [lazyAcpSchemas(join(root, "src", "acp", "lazy-schemas.ts"))],
  define: { ACP_EDGE_HTML_WORKER_URL: JSON.stringify(workerUrl) },
  // Bundled CommonJS dependencies call require; ESM output has none of its own.
  banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
};

if (single) {
  await build({
    ...common,
    plugins: [...common.plugins, cloudCredentialsLeftOut()],
    entryPoints: [join(root, "src", "cli", "bin.ts")],
    outfile: join(root, "release", "acp-edge.mjs"),
  });
  chmodSync(join(root, "release", "acp-edge.mjs"), 0o755);
} else {
  await build({
    ...common,
    entryPoints: { cli: join(root, "src", "cli", "bin.ts"), mod: join(root, "mod.ts") },
    splitting: true,
    sourcemap: true,
    outdir: join(root, "dist"),
    // Dependencies the package installs anyway; undici is only loaded on Node when a proxy is set,
    // linkedom only when an HTML page names an entity the converter does not know itself, the
    // clouds' provider packages and credential libraries only by a session that uses that cloud.
    external: [
      "@modelcontextprotocol/sdk", "ws", "hono", "@hono/node-server", "undici", "linkedom",
      "@ai-sdk/google", "@ai-sdk/google-vertex", "@ai-sdk/amazon-bedrock", "@ai-sdk/azure", "google-auth-library", "@aws-sdk/credential-provider-node",
    ],
  });
  chmodSync(join(root, "dist", "cli.js"), 0o755);
}
