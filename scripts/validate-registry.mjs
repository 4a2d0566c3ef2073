// What the ACP Registry checks before it lists an agent, run here: the manifest against the registry's
// schema and rules (ids, pinned versions equal to package.json's, platforms of every OS, archives with
// their sha256), the icon's rules (16x16, well-formed XML without comments, only currentColor), and
// each distribution launched as the registry's verifier does: a fresh empty HOME, a minimal
// environment (PATH, HOME, TERM=dumb, and the variables by which this machine reaches the network),
// `initialize` with the older terminal-auth flag, and within the time limit one stdout line that
// answers it with an `agent` or `terminal` auth method. Beyond that: stdout carries JSON-RPC only,
// until the agent exits at the end of its input, and an agent started with no input exits 0 having
// written nothing.
// Usage: node scripts/validate-registry.mjs [--manifest FILE] [--icon FILE]
//          [--npx SPEC]      launch the npx form: the manifest's package (SPEC "manifest", once published) or a packed tarball
//          [--binary FILE]   launch this platform's archive (.tar.gz or .zip) as the binary form
//          [--timeout SECONDS]  (default 60)
// Exits 1 when anything fails; prints one line per check.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { unzipSync } from "fflate";
import { extract as extractTar } from "tar";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PLATFORMS = ["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"];
const COLOURS = new Set(["currentcolor", "none", "inherit"]);
const NETWORK_VARIABLES = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const isUri = (v) => typeof v === "string" && /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v);
const stringArray = (v) => Array.isArray(v) && v.every((s) => typeof s === "string");
const stringMap = (v) => isObject(v) && Object.values(v).every((s) => typeof s === "string");

/** Problems of one distribution entry against the fields it may have. */
function checkFields(where, entry, required, optional) {
  const problems = [];
  if (!isObject(entry)) return [`${where}: must be an object`];
  for (const key of required) if (!(key in entry)) problems.push(`${where}: missing "${key}"`);
  for (const key of Object.keys(entry)) if (!required.includes(key) && !optional.includes(key)) problems.push(`${where}: unknown field "${key}"`);
  if ("args" in entry && !stringArray(entry.args)) problems.push(`${where}.args: must be an array of strings`);
  if ("env" in entry && !stringMap(entry.env)) problems.push(`${where}.env: must map names to strings`);
  return problems;
}

/** The manifest's problems under the registry's schema and rules, and ours (version equal to package.json's). */
export function manifestProblems(manifest, packageVersion) {
  const problems = [];
  if (!isObject(manifest)) return ["the manifest must be a JSON object"];
  for (const key of ["id", "name", "version", "description", "distribution"]) if (!(key in manifest)) problems.push(`missing "${key}"`);
  if ("id" in manifest && (typeof manifest.id !== "string" || !/^[a-z][a-z0-9-]*$/.test(manifest.id))) problems.push("id: lowercase letters, digits and hyphens, starting with a letter");
  for (const key of ["name", "description"]) if (key in manifest && (typeof manifest[key] !== "string" || manifest[key] === "")) problems.push(`${key}: a non-empty string`);
  const version = manifest.version;
  if ("version" in manifest && (typeof version !== "string" || !/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/.test(version))) problems.push(`version: semantic version, got ${JSON.stringify(version)}`);
  if (packageVersion !== undefined && version !== packageVersion) problems.push(`version ${version} is not package.json's ${packageVersion}`);
  if ("repository" in manifest && !isUri(manifest.repository)) problems.push("repository: a URL");
  if ("authors" in manifest && !stringArray(manifest.authors)) problems.push("authors: an array of strings");
  for (const key of ["license", "icon"]) if (key in manifest && typeof manifest[key] !== "string") problems.push(`${key}: a string`);
  const distribution = manifest.distribution;
  if (!isObject(distribution) || Object.keys(distribution).length === 0) return [...problems, "distribution: an object with at least one way to launch"];
  for (const kind of Object.keys(distribution)) if (!["binary", "npx", "uvx"].includes(kind)) problems.push(`distribution: unknown kind "${kind}"`);
  for (const kind of ["npx", "uvx"]) {
    if (!(kind in distribution)) continue;
    const entry = distribution[kind];
    problems.push(...checkFields(`distribution.${kind}`, entry, ["package"], ["args", "env"]));
    const spec = isObject(entry) && typeof entry.package === "string" ? entry.package : "";
    if (spec === "") problems.push(`distribution.${kind}.package: a non-empty string`);
    else if (kind === "npx") {
      const at = spec.lastIndexOf("@");
      const pinned = at > 0 ? spec.slice(at + 1) : undefined;
      if (pinned === undefined || pinned === "latest") problems.push(`distribution.npx.package: pin the version (${spec})`);
      else if (pinned !== version) problems.push(`distribution.npx.package: version ${pinned} is not the manifest's ${version}`);
    }
  }
  if ("binary" in distribution) {
    const binary = distribution.binary;
    if (!isObject(binary) || Object.keys(binary).length === 0) problems.push("distribution.binary: an object with at least one platform");
    else {
      for (const [platform, target] of Object.entries(binary)) {
        const where = `distribution.binary.${platform}`;
        if (!PLATFORMS.includes(platform)) problems.push(`${where}: unknown platform`);
        problems.push(...checkFields(where, target, ["archive", "cmd"], ["args", "env", "sha256"]));
        if (!isObject(target)) continue;
        if (!isUri(target.archive)) problems.push(`${where}.archive: a URL`);
        else if (target.archive.includes("/latest/")) problems.push(`${where}.archive: pin the version, not /latest/`);
        else {
          const inUrl = /\/(?:download|releases)\/v?(\d+\.\d+\.\d+)\//.exec(target.archive)?.[1];
          if (inUrl && inUrl !== version) problems.push(`${where}.archive: version ${inUrl} is not the manifest's ${version}`);
        }
        if (typeof target.cmd !== "string" || target.cmd === "") problems.push(`${where}.cmd: a non-empty string`);
        if ("sha256" in target && !/^[0-9a-f]{64}$/.test(String(target.sha256))) problems.push(`${where}.sha256: 64 lowercase hex digits`);
        if (/\.(msi|pkg|dmg|exe|deb|rpm)$/i.test(String(target.archive))) problems.push(`${where}.archive: an archive, not an installer`);
      }
      const families = new Set(Object.keys(binary).map((p) => p.split("-")[0]));
      for (const os of ["darwin", "linux", "windows"]) if (!families.has(os)) problems.push(`distribution.binary: no build for ${os} (every OS is needed)`);
    }
  }
  return problems;
}

/** The icon's problems: size, well-formed XML without comments, colours only through currentColor. */
export function iconProblems(svg) {
  const problems = [];
  if (/<!--/.test(svg)) problems.push("comments are not allowed");
  if (/<!DOCTYPE|<!ENTITY/i.test(svg)) problems.push("no DOCTYPE or entities");
  // Well-formed: every tag closed in order, one root element, nothing but whitespace outside it.
  const stack = [];
  let roots = 0;
  const outside = svg.replace(/<\?xml[^>]*\?>/, "").replace(/<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g, (_, close, name, _attrs, selfClose) => {
    if (close) {
      if (stack.pop() !== name) problems.push(`</${name}> closes nothing open`);
    } else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name);
    } else if (stack.length === 0) roots++;
    return "";
  });
  if (stack.length > 0) problems.push(`<${stack.at(-1)}> is never closed`);
  if (roots !== 1) problems.push("exactly one root element");
  if (/[<>]/.test(outside)) problems.push("not well-formed XML");
  const open = /<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
  if (!open) problems.push("the root is not <svg>");
  const attr = (name) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`).exec(open)?.[1];
  let [width, height] = [Number(attr("width")), Number(attr("height"))];
  if (!(width > 0 && height > 0)) {
    const box = (attr("viewBox") ?? "").trim().split(/[\s,]+/).map(Number);
    [width, height] = [box[2], box[3]];
  }
  if (!(width > 0 && height > 0)) problems.push("no width/height or viewBox");
  else if (width !== 16 || height !== 16) problems.push(`16x16 is required, got ${width}x${height}`);
  for (const [, property, value] of svg.matchAll(/\b(fill|stroke|stop-color|color|flood-color|lighting-color)\s*=\s*["']([^"']*)["']/gi)) {
    if (!COLOURS.has(value.trim().toLowerCase())) problems.push(`${property}="${value}": only currentColor, none or inherit`);
  }
  for (const [, style] of svg.matchAll(/\bstyle\s*=\s*["']([^"']*)["']/gi)) {
    for (const [, property, value] of style.matchAll(/(fill|stroke|stop-color|color)\s*:\s*([^;]+)/gi)) {
      if (!COLOURS.has(value.trim().toLowerCase())) problems.push(`style ${property}: ${value.trim()}: only currentColor, none or inherit`);
    }
  }
  if (/<style[\s>]/i.test(svg)) problems.push("no <style> elements (colours must be attributes with currentColor)");
  if (!/currentColor/i.test(svg)) problems.push("currentColor must be used (the icon follows the editor's theme)");
  return problems;
}

/** How the registry tells an auth method's kind: its `type`, else `_meta` keys, else `agent`. */
function methodKind(method) {
  if (typeof method?.type === "string") return method.type;
  if (isObject(method?._meta) && "terminal-auth" in method._meta) return "terminal";
  return "agent";
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: 1,
    clientInfo: { name: "acp-edge registry check", version: "1.0.0" },
    clientCapabilities: { terminal: true, fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true, "terminal-auth": true } },
  },
};

/** Runs `command` in `cwd` with a minimal environment and `input` on stdin; resolves with its first stdout line (when `firstLine`) and, at exit, everything. */
function launch(command, args, cwd, home, input, timeoutMs) {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TERM: "dumb" };
  // How this machine reaches the network (its CAs, its proxy) is not the agent's configuration: a package manager needs it.
  for (const name of NETWORK_VARIABLES) if (process.env[name]) env[name] = process.env[name];
  const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let onLine;
  const firstLine = new Promise((resolve) => (onLine = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
    if (stdout.includes("\n")) onLine(stdout.slice(0, stdout.indexOf("\n")));
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => {
    child.on("error", (error) => resolve({ code: null, error }));
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
  exited.then(() => onLine(undefined));
  if (input === undefined) child.stdin.end();
  else child.stdin.write(input);
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return {
    firstLine,
    endInput: () => child.stdin.end(),
    done: exited.then((result) => {
      clearTimeout(timer);
      return { ...result, stdout, stderr };
    }),
  };
}

/** The registry's launch check and ours for one way to start the agent; resolves with its problems. */
export async function launchProblems(label, command, args, cwd, timeoutSeconds) {
  const problems = [];
  const sandbox = mkdtempSync(join(tmpdir(), "acp-edge-registry-home-"));
  try {
    const home = join(sandbox, "home");
    mkdirSync(home);
    const run = launch(command, args, cwd, home, `${JSON.stringify(INITIALIZE)}\n`, timeoutSeconds * 1000);
    const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), timeoutSeconds * 1000).unref());
    const line = await Promise.race([run.firstLine, timeout]);
    run.endInput();
    const { code, stdout, stderr } = await run.done;
    if (line === "timeout") problems.push(`${label}: no answer to initialize within ${timeoutSeconds} s`);
    else if (line === undefined) problems.push(`${label}: exited (${code}) without answering: ${stderr.trim().split("\n").slice(-3).join(" | ")}`);
    else {
      let answer;
      try {
        answer = JSON.parse(line);
      } catch {
        problems.push(`${label}: the first stdout line is not JSON: ${line.slice(0, 120)}`);
      }
      if (answer?.error) problems.push(`${label}: initialize failed: ${JSON.stringify(answer.error)}`);
      else if (answer) {
        const methods = Array.isArray(answer.result?.authMethods) ? answer.result.authMethods : [];
        if (!methods.some((m) => ["agent", "terminal"].includes(methodKind(m)))) problems.push(`${label}: no auth method of kind agent or terminal`);
        for (const method of methods) {
          const text = `${method.name ?? ""} ${method.description ?? ""} ${method._meta?.["terminal-auth"]?.label ?? ""}`;
          if (text.includes(home) || text.includes(sandbox)) problems.push(`${label}: auth method ${method.id} shows a path of the machine`);
        }
      }
      for (const extra of stdout.split("\n").filter((l) => l.trim() !== "")) {
        let message;
        try {
          message = JSON.parse(extra);
        } catch {
          // reported below
        }
        if (message?.jsonrpc !== "2.0") problems.push(`${label}: stdout carries something that is not JSON-RPC: ${extra.slice(0, 120)}`);
      }
      if (code !== 0) problems.push(`${label}: exit code ${code} at the end of its input (0 expected)`);
    }
    // The older verifier starts the agent with no input at all: it must end cleanly, saying nothing on stdout.
    const quiet = await launch(command, args, cwd, home, undefined, timeoutSeconds * 1000).done;
    if (quiet.code !== 0 || quiet.stdout.trim() !== "") problems.push(`${label}: with no input it exited ${quiet.code} and wrote ${JSON.stringify(quiet.stdout.slice(0, 80))} on stdout`);
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
  return problems;
}

/** Extracts a release archive into `into`; resolves with the path of `cmd` inside it. */
async function extractArchive(archive, cmd, into) {
  mkdirSync(into, { recursive: true });
  if (archive.endsWith(".zip")) {
    for (const [name, data] of Object.entries(unzipSync(new Uint8Array(readFileSync(archive))))) {
      if (name.includes("..") || name.startsWith("/")) throw new Error(`unsafe path in the archive: ${name}`);
      mkdirSync(dirname(join(into, name)), { recursive: true });
      writeFileSync(join(into, name), data);
    }
  } else await extractTar({ file: archive, cwd: into, strict: true });
  const wanted = cmd.replace(/^\.\//, "");
  const found = [join(into, wanted), ...readdirSync(into, { recursive: true }).map((p) => join(into, String(p)))].find((p) => existsSync(p) && basename(p) === basename(wanted) && statSync(p).isFile());
  if (!found) throw new Error(`${cmd} is not in ${archive}`);
  chmodSync(found, 0o755);
  return found;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: { manifest: { type: "string" }, icon: { type: "string" }, npx: { type: "string" }, binary: { type: "string" }, timeout: { type: "string" } },
  });
  const manifestPath = resolve(values.manifest ?? join(root, "registry", "agent.json"));
  const iconPath = resolve(values.icon ?? join(dirname(manifestPath), "icon.svg"));
  const timeout = Number(values.timeout ?? 60);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const packageVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  const report = [];
  report.push(["manifest", manifestProblems(manifest, packageVersion)]);
  report.push(["icon", iconProblems(readFileSync(iconPath, "utf8"))]);
  const work = mkdtempSync(join(tmpdir(), "acp-edge-registry-"));
  try {
    if (values.npx !== undefined) {
      const npx = manifest.distribution?.npx ?? {};
      const spec = values.npx === "manifest" ? npx.package : values.npx;
      const prefix = join(work, "npx");
      mkdirSync(prefix);
      // As the registry runs it (`npx <package> args`); a packed tarball (not yet published) is named with --package.
      const packageName = String(npx.package ?? manifest.id).replace(/(.)@[^@/]*$/, "$1");
      const what = /\.(tgz|tar\.gz)$/.test(spec) ? ["--package", resolve(spec), packageName] : [spec];
      report.push(["npx", await launchProblems(`npx ${basename(spec)}`, "npx", ["--prefix", prefix, "--yes", ...what, ...(npx.args ?? [])], prefix, timeout)]);
    }
    if (values.binary !== undefined) {
      const platform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "x86_64" : "aarch64"}`;
      const target = manifest.distribution?.binary?.[platform] ?? { cmd: "./acp-edge", args: manifest.distribution?.npx?.args ?? [] };
      const extracted = join(work, "extracted");
      const executable = await extractArchive(resolve(values.binary), target.cmd, extracted);
      report.push([`binary ${platform}`, await launchProblems(`binary ${basename(values.binary)}`, executable, target.args ?? [], extracted, timeout)]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  let failed = false;
  for (const [what, problems] of report) {
    console.log(`${problems.length === 0 ? "ok  " : "FAIL"} ${what}`);
    for (const problem of problems) console.log(`     ${problem}`);
    failed ||= problems.length > 0;
  }
  process.exit(failed ? 1 : 0);
}
