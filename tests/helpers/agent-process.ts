/**
 * Spawning the acp-edge CLI under each runtime, the way an editor does:
 * node runs the built `dist/cli.js`, bun and deno run `mod.ts` from source.
 * `ACP_EDGE_TEST_NODE=/path/to/node` runs the node runtime on that Node
 * (another release line than the one on PATH).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";

export type RuntimeName = "node" | "bun" | "deno";

export const ROOT = resolve(import.meta.dir, "../..");
export const BIN = join(ROOT, "node_modules", ".bin");

/** Runtimes the e2e suites run on; `ACP_EDGE_TEST_RUNTIMES=node,bun` narrows it. */
export const RUNTIMES: RuntimeName[] = (process.env.ACP_EDGE_TEST_RUNTIMES?.split(",") as RuntimeName[] | undefined) ?? [
  "node",
  "bun",
  "deno",
];

/** The Node the node runtime runs on: ACP_EDGE_TEST_NODE when set, else this process's when it is Node, else `node` from PATH. */
export const NODE = process.env.ACP_EDGE_TEST_NODE || (process.execPath.endsWith("node") ? process.execPath : "node");

/** A command that starts the agent some other way (an installed package, a release artifact); CLI arguments follow `args`. */
export interface Launcher {
  command: string;
  args: string[];
  /** Working directory when the caller gives none. */
  cwd?: string;
}

export function agentCommand(runtime: RuntimeName | Launcher, args: string[]): { command: string; args: string[] } {
  if (typeof runtime !== "string") return { command: runtime.command, args: [...runtime.args, ...args] };
  switch (runtime) {
    case "node":
      return { command: NODE, args: [join(ROOT, "dist", "cli.js"), ...args] };
    case "bun":
      return { command: join(BIN, "bun"), args: [join(ROOT, "mod.ts"), ...args] };
    case "deno":
      return { command: join(BIN, "deno"), args: ["run", "-A", "--quiet", join(ROOT, "mod.ts"), ...args] };
  }
}

export interface AgentProcess {
  child: ChildProcess;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  /** Everything written to stderr so far. */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The home directory children get: nobody's, so no test sees the developer's own `~/.claude` or
 * `~/.agents` (the agent reads their instructions, commands and skills). Made once per test process.
 */
export const TEST_USER_HOME = mkdtempSync(join(tmpdir(), "acp-edge-user-home-"));
process.on("exit", () => rmSync(TEST_USER_HOME, { recursive: true, force: true }));

/** Deno's cache as it is without a HOME of the test's own, so each spawn does not compile everything again. */
function denoCacheDirectory(): string {
  if (process.env.DENO_DIR) return process.env.DENO_DIR;
  if (process.platform === "darwin") return join(homedir(), "Library", "Caches", "deno");
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "deno");
}

/**
 * Environment for a child: no real credentials from the developer's shell leak in, no home of theirs,
 * and no proxy settings of theirs (the fake servers are on the loopback; proxy tests set their own).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    // The clouds too: a developer's own credentials must never reach (or be used by) a test agent.
    if (/^(ANTHROPIC|OPENAI|ACP_EDGE|AWS|GOOGLE|GEMINI|AZURE|CLOUDSDK|GCE_METADATA)_/.test(key) || key === "CLAUDE_CONFIG_DIR") continue;
    if (/^(https?|no|all)_proxy$/i.test(key) || key === "NODE_USE_ENV_PROXY") continue;
    env[key] = value;
  }
  env.NO_COLOR = "1";
  env.DENO_DIR = denoCacheDirectory();
  // Deno's own daily check for a newer release is a request of its own, through any proxy a test sets.
  env.DENO_NO_UPDATE_CHECK = "1";
  env.HOME = TEST_USER_HOME;
  if (process.platform === "win32") env.USERPROFILE = TEST_USER_HOME;
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

export function spawnAgent(
  runtime: RuntimeName | Launcher,
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): AgentProcess {
  const { command, args: fullArgs } = agentCommand(runtime, args);
  const cwd = options.cwd ?? (typeof runtime === "string" ? undefined : runtime.cwd) ?? ROOT;
  const child = spawn(command, fullArgs, { cwd, env: cleanEnv(options.env), stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) => {
    child.on("exit", (code, signal) => resolvePromise({ code, signal }));
  });
  return {
    child,
    stdin: Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    stdout: Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    stderr: () => stderr,
    exited,
  };
}

/** Runs the CLI to completion and collects its output. */
export async function runAgentCommand(
  runtime: RuntimeName | Launcher,
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string | Uint8Array; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { command, args: fullArgs } = agentCommand(runtime, args);
  const cwd = options.cwd ?? (typeof runtime === "string" ? undefined : runtime.cwd) ?? ROOT;
  const child = spawn(command, fullArgs, { cwd, env: cleanEnv(options.env), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  child.stdin!.end(options.input ?? "");
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  const code = await new Promise<number | null>((r) => child.on("close", (c) => r(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A temporary directory tree: `home` for ACP_EDGE_HOME and `project` as a session cwd. */
export interface Sandbox {
  root: string;
  home: string;
  project: string;
  write(relative: string, content: string | Uint8Array): string;
  cleanup(): void;
}

export function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "acp-edge-test-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return {
    root,
    home,
    project,
    write(relative, content) {
      const path = join(root, relative);
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
