/**
 * What code the agent loads on its way to an answer: starts `dist/cli.js` on
 * Node with the module-load log preloaded (module-load-log.mjs), drives it over
 * NDJSON one request at a time, and splits the logged modules by the answer
 * they came before. A `dist/` chunk is named by the sources it was bundled
 * from (its source map's `sources`), so a report names the module someone
 * imported, not a content hash.
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanEnv, NODE, ROOT } from "./agent-process.ts";

const MARK = "#module-load ";

/** One module Node loaded: a `dist/` chunk, a file outside it, or a built-in (`node:fs`). */
export interface LoadedModule {
  url: string;
  /** Bytes of JavaScript read for it (0 for a built-in). */
  bytes: number;
  /** What it is made of: `src/…` paths and `npm:<package>` names (for a chunk, from its source map); the url's own name otherwise. */
  sources: string[];
}

/** The modules loaded before each answer, in request order; a module appears under the first answer it came before. */
export interface StartPathLog {
  phases: LoadedModule[][];
  /** Everything the agent wrote that was not a load line (its answers and notifications), for diagnosis. */
  frames: unknown[];
}

/** `src/…` for the program's own files, `npm:<name>` for a package's. */
export function sourceName(path: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (pkg) return `npm:${pkg[1]}`;
  const rel = relative(ROOT, path).replaceAll("\\", "/");
  return rel;
}

function describe(url: string): LoadedModule {
  if (!url.startsWith("file:")) return { url, bytes: 0, sources: [url] };
  const file = fileURLToPath(url);
  const bytes = statSync(file).size;
  let sources = [sourceName(file)];
  try {
    const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
    const names = map.sources.map((s) => sourceName(join(file, "..", s)));
    if (names.length) sources = [...new Set(names)];
  } catch {
    // No source map (a file outside dist/): the file itself is the source.
  }
  return { url, bytes, sources };
}

type Request = { method: string; params: unknown };

/**
 * Starts the agent, sends each request after the previous answer, and
 * returns the modules loaded before each answer. `requests` get ids 1, 2, …;
 * one given as a function is made from the results of the answers before it.
 */
export async function logStartPath(
  args: string[],
  requests: Array<Request | ((answers: unknown[]) => Request)>,
  options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<StartPathLog> {
  const hook = join(ROOT, "tests", "helpers", "module-load-log.mjs");
  const child = spawn(NODE, ["--import", hook, join(ROOT, "dist", "cli.js"), ...args], {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const phases: LoadedModule[][] = [[]];
  const frames: unknown[] = [];
  const seen = new Set<string>();
  let answered: ((id: number) => void) | undefined;
  const answers: unknown[] = [];
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith(MARK)) {
        const url = line.slice(MARK.length);
        if (!seen.has(url)) {
          seen.add(url);
          phases.at(-1)!.push(describe(url));
        }
        continue;
      }
      if (!line.trim()) continue;
      const frame = JSON.parse(line) as { id?: number; method?: string; result?: unknown; error?: { message?: string } };
      frames.push(frame);
      // Answer the agent's own requests (none are expected on this path) with "not supported".
      if (frame.method && frame.id !== undefined) {
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: frame.id, error: { code: -32601, message: "not supported" } })}\n`);
      } else if (frame.id !== undefined && !frame.method) {
        phases.push([]);
        answers.push(frame.result);
        if (frame.error) stderr += `answer ${frame.id}: ${frame.error.message}\n`;
        answered?.(frame.error ? -frame.id : frame.id);
      }
    }
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  try {
    for (const [index, given] of requests.entries()) {
      const id = index + 1;
      const request = typeof given === "function" ? given(answers) : given;
      const done = new Promise<void>((resolve, reject) => {
        answered = (got) => (got === id ? resolve() : reject(new Error(`${request.method} was not answered as expected (${got}): ${stderr.trim().slice(-500)}`)));
        child.once("exit", () => reject(new Error(`the agent exited before answering ${request.method}: ${stderr.trim().slice(-500)}`)));
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, ...request })}\n`);
      await done;
    }
  } finally {
    clearTimeout(timer);
    child.kill("SIGKILL");
  }
  return { phases: phases.slice(0, requests.length), frames };
}
