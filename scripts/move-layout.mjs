#!/usr/bin/env node
/**
 * Puts the files of src/ in their folder per concern, and can be run again at
 * any time: a file already where it belongs is left alone, so a second run
 * changes nothing. Features written against the older layout are moved the
 * same way after they are merged.
 *
 * What it does:
 *   1. Moves each file named in LAYOUT, and each other file found directly in
 *      one of its folders whose name matches a RULE, with `git mv`.
 *   2. Rewrites every relative path in code (src/, tests/, bench/, scripts/,
 *      mod.ts) that named a moved file, and recomputes those of the moved
 *      files themselves; rewrites `src/…` path mentions in code and docs
 *      (docs/, *.md). Only paths and string literals are read, never meaning.
 *   3. Lists every folder under src/ holding more than LIMIT source files
 *      directly, and any file that stays in a split folder without being
 *      named in LAYOUT (exit code 1 when a folder is over the limit).
 *
 * Usage: node scripts/move-layout.mjs [--dry-run]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const DRY = process.argv.includes("--dry-run");
/** Most source files one folder may hold directly. */
const LIMIT = 25;

/**
 * The layout: for each folder that is split, the subfolder of each of its files
 * (by name without `.ts`); "." keeps a file where it is. A file of a split folder
 * named nowhere here is placed by RULES, or stays and is reported.
 */
const LAYOUT = {
  "src/sessions": {
    ".": [
      "live-session", "live-title", "services", "session-attach", "session-broadcast", "session-context",
      "session-emitter", "session-error", "session-mcp", "session-notices", "session-registry", "session-settings",
      "session-status", "session-system-prompt", "session-tools",
    ],
    lifecycle: ["archive-session", "delete-session", "join-session", "open-session", "rename-session", "revive-session", "start-session"],
    turns: ["prompt-queue", "prompt-session", "steer-session", "turn-claim", "turn-slot", "turn-warm-up"],
    journal: ["session-entries", "session-entry-check", "session-entry-schemas", "session-recorder", "session-restore"],
    commands: ["builtin-commands", "command-invocation", "slash-arguments", "slash-commands"],
    setup: [
      "file-references", "frontmatter", "linked-resource", "prompt-templates", "session-setup", "setup-file", "setup-places",
      "shell-lines", "skill-loading", "skills", "yaml-document",
    ],
  },
  "src/acp": {
    ".": ["agent-app", "errors", "lazy-schemas", "sdk"],
    connection: [
      "cancel-in-order", "connection-guard", "connection-state", "deferred-handlers", "either-signal", "idle-warm-up",
      "in-process-client", "jsonrpc-envelope", "outbound-redaction", "protocol-handlers",
    ],
    http: ["http-idle-connections", "http-transport", "sdk-server"],
    handlers: ["auth-methods", "config-options", "session-access", "session-handlers"],
    params: ["image-data", "initialize-params", "own-params", "prompt-content", "steering-params"],
    client: ["ask-user", "bounded-client-request", "client-turn", "client-workspace", "question-form", "terminal-new-text"],
    updates: ["prepared-update", "projection", "session-announce", "session-client", "session-replay", "turn-usage"],
  },
  "src/tools": {
    ".": ["ask", "builtin", "local-workspace", "paths", "plan", "skill", "truncate", "types"],
    files: ["change-basis", "edit", "edit-match", "file-lock", "ls", "read", "text-format", "write"],
    search: [
      "file-walker", "find", "gitignore", "gitignore-pattern", "glob-regex", "grep", "linear-regex", "search-engines",
      "time-slice", "withheld-note",
    ],
    shell: ["bash", "local-exec", "output-buffer"],
  },
};

/**
 * Where a file not named in LAYOUT goes, by its name (first match wins), for
 * files that arrive with later features. Only files directly in the folder.
 */
const RULES = {
  "src/sessions": [
    [/^(archive|delete|fork|join|load|open|rename|resume|revive|start|unarchive|close)-session\.ts$/, "lifecycle"],
    [/^(turn|prompt|steer|queue)-|-(queue|turn|claim)\.ts$/, "turns"],
    [/^(session-entr|session-record|session-restore|journal)/, "journal"],
    [/^(slash-|builtin-command|command-)/, "commands"],
    [/^(setup-|skill|template|frontmatter|yaml-|agent-file|agent-definition|custom-agent|agents?\.ts$|agent-loading)/, "setup"],
  ],
  "src/acp": [
    [/^(connection-|jsonrpc-|cancel-)/, "connection"],
    [/^(http-|sdk-server)/, "http"],
    [/-params\.ts$/, "params"],
    [/^(projection|session-replay|session-announce)|-update\.ts$|-usage\.ts$/, "updates"],
    [/^(client-|ask-|question-)/, "client"],
  ],
  "src/tools": [
    [/^(bash|shell|background|local-background|local-exec|unread-output|command-output|output-)/, "shell"],
    [/^(fetch|web-|html|markdown|url|page-|host-|dns-|ip-|private-addr|redirect|turndown|readability)/, "web"],
    [/^(task|subagent|delegat|agent)/, "delegation"],
    [/^(grep|find|glob|gitignore|walk|search|regex|linear-)/, "search"],
    [/^((read|write|edit|ls)(\.ts$|-)|file-|text-)/, "files"],
  ],
};

const isSource = (name) => name.endsWith(".ts") && !name.endsWith(".d.ts");

/** Old path → new path for every file of a split folder that is not yet where it belongs. */
function plannedMoves() {
  const moves = new Map();
  const unplaced = [];
  for (const [folder, groups] of Object.entries(LAYOUT)) {
    const named = new Map();
    for (const [sub, names] of Object.entries(groups)) for (const name of names) named.set(`${name}.ts`, sub);
    const dir = join(ROOT, folder);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isFile() || !isSource(entry.name)) continue;
      let sub = named.get(entry.name);
      if (sub === undefined) sub = (RULES[folder] ?? []).find(([pattern]) => pattern.test(entry.name))?.[1];
      if (sub === undefined) {
        unplaced.push(`${folder}/${entry.name}`);
        continue;
      }
      if (sub === ".") continue;
      const to = `${folder}/${sub}/${entry.name}`;
      if (existsSync(join(ROOT, to))) throw new Error(`${to} exists already: cannot move ${folder}/${entry.name} there`);
      moves.set(`${folder}/${entry.name}`, to);
    }
  }
  return { moves, unplaced };
}

/** Where LAYOUT puts a file named by its old path (for paths written against the older layout after a run). */
function layoutTarget(oldPath) {
  const folder = posix.dirname(oldPath);
  const groups = LAYOUT[folder];
  if (!groups) return undefined;
  const name = posix.basename(oldPath, ".ts");
  for (const [sub, names] of Object.entries(groups)) if (sub !== "." && names.includes(name)) return `${folder}/${sub}/${name}.ts`;
  return undefined;
}

/** The text files whose paths follow the moves: code and docs, never dependencies or build output. */
function filesToRewrite() {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js|md)$/.test(entry.name)) out.push(path);
    }
  };
  for (const dir of ["src", "tests", "bench", "scripts", "docs"]) if (existsSync(join(ROOT, dir))) walk(dir);
  for (const entry of readdirSync(ROOT)) if (entry === "mod.ts" || entry.endsWith(".md")) out.push(entry);
  // This script names old places on purpose.
  return out.filter((path) => path !== "scripts/move-layout.mjs");
}

/** A relative specifier from `fromFile` to `target` (both repository-relative), spelled as an import. */
function specifier(fromFile, target) {
  const spec = posix.relative(posix.dirname(fromFile), target);
  return spec.startsWith(".") ? spec : `./${spec}`;
}

/**
 * The text of one file with its paths following the moves. `oldPath` is where
 * the file was when its relative paths were written, `newPath` where it is now.
 */
function rewrite(text, oldPath, newPath, moves, existedBefore) {
  const isCode = !oldPath.endsWith(".md");
  const moved = oldPath !== newPath;
  const follow = (target) => moves.get(target) ?? (existedBefore(target) ? undefined : layoutTarget(target));
  let out = text;
  if (isCode) {
    // Quoted relative paths: import specifiers, dynamic imports, URLs built from import.meta.url.
    out = out.replace(/(["'`])(\.\.?\/[^"'`\n$]*)\1/g, (whole, quote, spec) => {
      const target = posix.normalize(posix.join(posix.dirname(oldPath), spec));
      const to = follow(target);
      if (to) return `${quote}${specifier(newPath, to)}${quote}`;
      if (moved && existedBefore(target)) return `${quote}${specifier(newPath, target)}${quote}`;
      return whole;
    });
    // A path from the repository root spelled as segments: join(ROOT, "src", "tools", "grep.ts").
    out = out.replace(/(["'])src\1(?:\s*,\s*(["'])[\w.-]+\2)+/g, (whole) => {
      const quote = whole[0];
      const segments = [...whole.matchAll(/["']([\w.-]+)["']/g)].map((m) => m[1]);
      const to = follow(segments.join("/"));
      return to ? to.split("/").map((segment) => `${quote}${segment}${quote}`).join(", ") : whole;
    });
  }
  // Paths from the repository root: `src/…` in docs, comments and strings (not after ./ or ../, which are relative).
  out = out.replace(/(?<![\w.-])(?<!\.\/)src\/[\w./-]*?\.ts\b/g, (path) => follow(path) ?? path);
  return out;
}

function main() {
  const { moves, unplaced } = plannedMoves();
  // Before any move, a path exists on disk or is one of the files about to move; after, the same answer holds.
  const existedBefore = (path) => moves.has(path) || existsSync(join(ROOT, path));

  // Each file's text is rewritten from its old place (where its relative paths were written) to its new one.
  const sources = filesToRewrite();
  const rewritten = new Map();
  for (const path of sources) {
    const text = readFileSync(join(ROOT, path), "utf8");
    const next = rewrite(text, path, moves.get(path) ?? path, moves, existedBefore);
    if (next !== text) rewritten.set(path, next);
  }

  for (const [from, to] of moves) {
    console.log(`${DRY ? "would move" : "move"} ${from} -> ${to}`);
    if (DRY) continue;
    mkdirSync(dirname(join(ROOT, to)), { recursive: true });
    execFileSync("git", ["mv", from, to], { cwd: ROOT, stdio: "inherit" });
  }
  for (const [path, text] of rewritten) {
    const now = moves.get(path) ?? path;
    console.log(`${DRY ? "would rewrite" : "rewrite"} ${now}`);
    if (!DRY) writeFileSync(join(ROOT, now), text);
  }
  console.log(`${moves.size} file(s) ${DRY ? "to move" : "moved"}, ${rewritten.size} file(s) ${DRY ? "to rewrite" : "rewritten"}`);

  for (const path of unplaced) console.log(`not in the layout (stays; name it in LAYOUT or RULES): ${path}`);
  // Count each folder's files where they stand after the moves (in a dry run, where they would).
  const after = new Map();
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (isSource(entry.name)) {
        const folder = posix.dirname(DRY ? (moves.get(path) ?? path) : path);
        after.set(folder, (after.get(folder) ?? 0) + 1);
      }
    }
  };
  walk("src");
  const over = [...after].filter(([, n]) => n > LIMIT).map(([dir, n]) => `${dir}: ${n} source files (limit ${LIMIT})`);
  for (const line of over) console.log(`OVER THE LIMIT: ${line}`);
  if (over.length > 0) process.exitCode = 1;
}

main();
