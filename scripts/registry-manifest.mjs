// The ACP Registry manifest (registry/agent.json), made from package.json so its version, description
// and license never drift: everything that needs no release URL (the npx distribution). The release
// archives' `binary` distribution is added by scripts/release-archives.mjs for a given base URL.
// Usage: node scripts/registry-manifest.mjs          writes registry/agent.json
//        node scripts/registry-manifest.mjs --check  exits 1 when registry/agent.json is not what it should be
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const MANIFEST_PATH = join(root, "registry", "agent.json");
export const ICON_PATH = join(root, "registry", "icon.svg");
/** What the editor runs: ACP over stdio. */
export const AGENT_ARGS = ["agent", "stdio"];

/** package.json's `repository` as a URL (npm allows a string or `{ url }`, with a `git+` prefix and `.git` suffix). */
function repositoryUrl(repository) {
  const raw = typeof repository === "string" ? repository : repository?.url;
  return raw ? raw.replace(/^git\+/, "").replace(/\.git$/, "") : undefined;
}

/** The manifest's fields that need no release URL. */
export function baseManifest() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const authors = [pkg.author, ...(pkg.contributors ?? [])].filter(Boolean).map((person) => (typeof person === "string" ? person : person.name));
  const repository = repositoryUrl(pkg.repository);
  return {
    id: pkg.name,
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    ...(repository ? { repository } : {}),
    authors,
    license: pkg.license,
    distribution: { npx: { package: `${pkg.name}@${pkg.version}`, args: AGENT_ARGS } },
  };
}

/** The manifest as written to a file. */
export function manifestText(manifest) {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const expected = manifestText(baseManifest());
  if (process.argv.includes("--check")) {
    const actual = readFileSync(MANIFEST_PATH, "utf8");
    if (actual !== expected) {
      console.error("registry/agent.json is out of date with package.json; run: node scripts/registry-manifest.mjs");
      process.exit(1);
    }
  } else {
    writeFileSync(MANIFEST_PATH, expected);
    console.log(`wrote ${MANIFEST_PATH}`);
  }
}
