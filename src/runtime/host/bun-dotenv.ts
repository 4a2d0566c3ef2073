/**
 * Bun reads `.env` files from the folder it starts in before any of our
 * code runs (`bunx --bun acp-edge`, `bun dist/cli.js`, `bun mod.ts`). An
 * editor starts the agent in the user's project, which may not be trusted:
 * a `.env` there could point `ANTHROPIC_BASE_URL` at someone else's server,
 * which would then receive the user's key. Node and Deno never read these
 * files and acp-edge does not either, so on Bun what they set is undone.
 * Where `/proc/self/environ` holds the environment the process started with
 * (Linux), that environment is restored exactly; elsewhere every variable
 * the files name is removed (failing closed), with a notice naming them.
 * Those files are read as Bun reads them (links followed, only regular
 * files), but opened without blocking and within a byte budget; one too
 * large to read is reported, so the agent can refuse to start rather than
 * run with variables it cannot name.
 * @module
 */
import { readFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { readRegularFile } from "../files/bounded-read.ts";
import { runtimeName } from "./detect.ts";

/** A `.env` larger than this cannot be undone name by name (Bun itself reads any size). */
const DOTENV_BUDGET = 16 * 1024 * 1024;

/** The files Bun loads by default, for every NODE_ENV it knows, and for the one this process started with. */
function dotenvFiles(): string[] {
  const modes = new Set(["development", "production", "test"]);
  // A later Bun may load `.env.${NODE_ENV}` for any value (only a plain name: it becomes part of a path here).
  const mode = process.env.NODE_ENV;
  if (mode && /^[A-Za-z0-9_-]+$/.test(mode)) modes.add(mode);
  return [".env", ".env.local", ...[...modes].flatMap((m) => [`.env.${m}`, `.env.${m}.local`])];
}

/** What was undone: variables removed, and variables given back their value from the start. */
export interface DotenvUndo {
  removed: string[];
  restored: string[];
  /** False where the start environment could not be read, so every variable a file names was removed. */
  exact: boolean;
  /** Files that could not be read to find the names they set (too large); present only when there are some. */
  unread?: string[];
}

/**
 * Undoes Bun's loading of `.env` files; does nothing on Node and Deno. Where
 * the start environment can be read, whatever differs from it is undone
 * whichever file set it (a Bun version may load more names than listed
 * here); elsewhere, what the `.env` files in `folder` name is removed.
 */
export async function undoBunDotenv(folder = process.cwd(), runtime = runtimeName, readStart = startEnvironment): Promise<DotenvUndo> {
  const undo: DotenvUndo = { removed: [], restored: [], exact: true };
  if (runtime !== "bun") return undo;
  const start = readStart();
  if (start) {
    for (const name of Object.keys(process.env)) {
      if (!start.has(name)) {
        delete process.env[name];
        undo.removed.push(name);
      } else if (process.env[name] !== start.get(name) && !start.get(name)!.includes("\uFFFD")) {
        // (A start value that is not UTF-8 reads back garbled here; Bun never overrides a set variable, so it stays.)
        process.env[name] = start.get(name);
        undo.restored.push(name);
      }
    }
    return undo;
  }
  for (const path of dotenvFiles().map((name) => join(folder, name))) {
    const text = await readDotenv(path);
    if (text === undefined) continue;
    undo.exact = false;
    if (text === TOO_LARGE) {
      (undo.unread ??= []).push(path);
      continue;
    }
    for (const name of namesIn(text)) {
      if (name in process.env) {
        delete process.env[name];
        undo.removed.push(name);
      }
    }
  }
  return undo;
}

/** The environment this process was started with, or undefined where the system does not show it. */
function startEnvironment(): Map<string, string> | undefined {
  let raw: string;
  try {
    raw = readFileSync("/proc/self/environ", "utf8");
  } catch {
    return undefined;
  }
  const start = new Map<string, string>();
  for (const entry of raw.split("\0")) {
    const equals = entry.indexOf("=");
    if (equals > 0) start.set(entry.slice(0, equals), entry.slice(equals + 1));
  }
  return start;
}

const TOO_LARGE = Symbol("too large");

/**
 * A `.env` file's text as Bun would have loaded it; undefined where Bun loads
 * nothing (missing, not a regular file, unreadable).
 */
async function readDotenv(path: string): Promise<string | typeof TOO_LARGE | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return undefined;
  const read = await readRegularFile(real, DOTENV_BUDGET);
  if (read.ok) return new TextDecoder().decode(read.bytes);
  return read.reason === "too-large" ? TOO_LARGE : undefined;
}

/**
 * Every name a dotenv text may assign (`NAME=…`, `export NAME=…`, `NAME: …`).
 * Lines inside a multi-line value can look like assignments too; naming too
 * many only removes more, which is the safe side.
 */
export function namesIn(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z0-9_.-]+)\s*[=:]/.exec(line);
    if (match) names.push(match[1]!);
  }
  return names;
}
