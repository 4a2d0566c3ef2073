// Release archives of the compiled binary for every platform the ACP Registry lists, and the manifest
// that points at them: scripts/build-binary.mjs's steps (this machine's binary first, to record the
// start-up order the other targets reuse), `bun build --compile --target=…` for each platform (bun
// downloads each target's runtime from the npm registry), a .tar.gz (or .zip for Windows) holding
// `acp-edge` with fixed times and owners, its sha256, and <out>/agent.json with registry/icon.svg.
// Usage: node scripts/release-archives.mjs --base-url URL [--targets linux-x64,…] [--out DIR]
//   URL is where the archives will be downloaded from (the release's folder); DIR defaults to
//   release/registry. Prints each archive's size and sha256.
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { zipSync } from "fflate";
import { create as createTar } from "tar";
import { buildDist, buildHostBinary, compileBinary, root } from "./build-binary.mjs";
import { AGENT_ARGS, baseManifest, ICON_PATH, manifestText } from "./registry-manifest.mjs";

/** Each platform: Bun's target name, the registry's platform key, the archive kind and the executable's name. */
export const TARGETS = {
  "linux-x64": { bun: "bun-linux-x64", platform: "linux-x86_64", kind: "tar.gz", executable: "acp-edge" },
  "linux-arm64": { bun: "bun-linux-arm64", platform: "linux-aarch64", kind: "tar.gz", executable: "acp-edge" },
  "darwin-arm64": { bun: "bun-darwin-arm64", platform: "darwin-aarch64", kind: "tar.gz", executable: "acp-edge" },
  "darwin-x64": { bun: "bun-darwin-x64", platform: "darwin-x86_64", kind: "tar.gz", executable: "acp-edge" },
  "windows-x64": { bun: "bun-windows-x64", platform: "windows-x86_64", kind: "zip", executable: "acp-edge.exe" },
};

/** Archive times: fixed, so the same binary always makes the same archive. */
const EPOCH = new Date("2000-01-01T00:00:00Z");

/** Packs `file` (named `name` inside) into `archive`. */
async function pack(kind, file, name, archive) {
  if (kind === "zip") {
    const data = new Uint8Array(readFileSync(file));
    // External attributes: a regular file, mode 0755, for unzip on unix-like systems.
    writeFileSync(archive, zipSync({ [name]: [data, { level: 9, mtime: EPOCH, os: 3, attrs: (0o100755 << 16) >>> 0 }] }));
    return;
  }
  utimesSync(file, EPOCH, EPOCH);
  await createTar({ gzip: { level: 9 }, file: archive, cwd: resolve(file, ".."), portable: true, mtime: EPOCH }, [name]);
}

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Builds the archives of `targets` into `out`; resolves with, for each, its file, size and sha256. */
export async function buildArchives({ targets, out }) {
  const version = baseManifest().version;
  mkdirSync(out, { recursive: true });
  buildDist();
  const work = mkdtempSync(join(tmpdir(), "acp-edge-archives-"));
  try {
    const order = await buildHostBinary(join(work, "host-acp-edge"), work);
    const built = [];
    for (const name of targets) {
      const target = TARGETS[name];
      if (!target) throw new Error(`unknown target ${name}; known: ${Object.keys(TARGETS).join(", ")}`);
      const folder = join(work, name);
      mkdirSync(folder);
      const binary = join(folder, target.executable);
      compileBinary({ outfile: binary, target: target.bun, order });
      const file = `acp-edge-${version}-${name}.${target.kind}`;
      const archive = join(out, file);
      rmSync(archive, { force: true });
      await pack(target.kind, binary, target.executable, archive);
      built.push({ name, file, size: statSync(archive).size, sha256: sha256(archive), ...target });
    }
    return built;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The manifest with a `binary` distribution for `archives` downloadable under `baseUrl`. */
export function releaseManifest(baseUrl, archives) {
  const manifest = baseManifest();
  const base = baseUrl.replace(/\/+$/, "");
  const binary = {};
  for (const archive of archives) {
    binary[archive.platform] = { archive: `${base}/${archive.file}`, cmd: `./${archive.executable}`, args: AGENT_ARGS, sha256: archive.sha256 };
  }
  return { ...manifest, distribution: { ...manifest.distribution, binary } };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { "base-url": { type: "string" }, targets: { type: "string" }, out: { type: "string" } } });
  const baseUrl = values["base-url"];
  if (!baseUrl || !/^https?:\/\/[^\s]+$/.test(baseUrl)) {
    console.error("release-archives: --base-url URL is required (the folder the archives will be downloaded from)");
    process.exit(2);
  }
  const out = resolve(values.out ?? join(root, "release", "registry"));
  const targets = values.targets ? values.targets.split(",") : Object.keys(TARGETS);
  const archives = await buildArchives({ targets, out });
  writeFileSync(join(out, "agent.json"), manifestText(releaseManifest(baseUrl, archives)));
  copyFileSync(ICON_PATH, join(out, "icon.svg"));
  for (const a of archives) console.log(`${a.file.padEnd(36)} ${(a.size / 1024 / 1024).toFixed(1).padStart(6)} MiB  sha256 ${a.sha256}`);
  console.log(`manifest: ${join(out, "agent.json")}`);
}
