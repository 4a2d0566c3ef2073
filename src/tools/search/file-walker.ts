/**
 * Recursive, gitignore-aware directory traversal for find and grep, plus the
 * glob matcher they share. Behaves like `rg --hidden` / `fd --hidden`:
 * dotfiles are included, `.git/` never is, `.gitignore` files at every level
 * and `.git/info/exclude` are honoured, symlinks are followed only while they
 * stay inside the session's roots, and entries the permission rules withhold
 * (a `PathFilter`) are neither yielded nor entered. Ignore files come with
 * the repository, so they are read with `readConfinedFile` (inside the roots
 * or the repository, regular, at most 1 MiB); one that is not read is
 * reported through `onIgnoreFileSkipped` and its rules do not apply. Every
 * path is matched against every rule that applies to it, so one walk applies
 * at most `MAX_WALK_IGNORE_RULES` rules in all: an ignore file that would
 * pass that is not applied either, and said so (a repository we did not
 * write cannot make a walk crawl with a file of a hundred thousand rules).
 * @module
 */
import { describeSkip, readConfinedFile } from "../../runtime/files/confined-file.ts";
import { errorCode, isNotFound, readDir, realPath, stat } from "../../runtime/files/fs.ts";
import { containingRoot, dirname, isWithin, join, relative } from "../../runtime/files/path.ts";
import { platform } from "../../runtime/process/process.ts";
import { repositoryRoot } from "../../runtime/files/repository-root.ts";
import { globMatcher } from "./glob-regex.ts";
import { loadSearchEngines } from "./search-engines.ts";
import { parseIgnoreRules, ruleLines, type IgnoreRules } from "./gitignore.ts";
import { UnsupportedRegexError } from "./linear-regex.ts";
import { toPosix } from "../paths.ts";
import { ToolError, type PathFilter } from "../types.ts";

// git's core.ignorecase defaults to true where the file system folds case.
const CASE_INSENSITIVE_FS = platform() === "darwin" || platform() === "win32";

/** One file or directory found below the walk's start. */
export interface WalkEntry {
  /** Absolute path (under the start path as given, symlinks not resolved). */
  path: string;
  /** POSIX path relative to the start, without a trailing slash. */
  relativePath: string;
  name: string;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface WalkOptions {
  /** Symlink targets must stay inside these (absolute, symlink-free). */
  roots: readonly string[];
  signal?: AbortSignal;
  /** Entries it refuses are skipped (a directory is not entered). */
  filter?: PathFilter;
  /** Called once per entry the filter refused, so the caller can say that something was withheld. */
  onWithheld?(): void;
  /** Called with a notice (the file and why, never its content) for each ignore file that was found but not read. */
  onIgnoreFileSkipped?(notice: string): void;
  /** Ignore rules fold case (git's `core.ignorecase`); by default where file systems usually do (macOS, Windows). */
  ignoreCase?: boolean;
  /** False: symbolic links are neither yielded nor followed (a snapshot of the files themselves). Default true. */
  followLinks?: boolean;
  /** Directories with these names are neither yielded nor entered (besides `.git`). */
  skipDirectories?: ReadonlySet<string>;
  /** Called for each entry left out because it is ignored or skipped (a directory's contents are not walked, so not reported). */
  onIgnored?(path: string, isDirectory: boolean): void;
}

/** What a walk left out, for the closing note of a result: entries the filter withheld, ignore files not applied. */
export interface WalkReport {
  withheld: boolean;
  /** One notice per ignore file that was found but not read. */
  unappliedRules: string[];
}

/** Options for `walkFiles` that record what the walk left out in the returned report. */
export function reportingWalk(roots: readonly string[], signal: AbortSignal | undefined, filter: PathFilter | undefined): { options: WalkOptions; report: WalkReport } {
  const report: WalkReport = { withheld: false, unappliedRules: [] };
  const options: WalkOptions = {
    roots,
    ...(signal ? { signal } : {}),
    ...(filter ? { filter } : {}),
    onWithheld: () => (report.withheld = true),
    onIgnoreFileSkipped: (notice) => report.unappliedRules.push(notice),
  };
  return { options, report };
}

/** Rules from one ignore file, and how to express a walk-relative path relative to its directory. */
interface IgnoreLevel {
  rules: IgnoreRules;
  toLevel(relativePath: string): string;
}

interface PendingDir {
  path: string;
  relativePath: string;
  realPath: string;
  levels: IgnoreLevel[];
}

/** Throws the signal's reason when it has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error("Aborted");
}

/**
 * Yields every file and directory below `start` (depth first, names sorted
 * within a directory) that is not git-ignored. Directories that are ignored
 * are not entered. Stops with the abort reason when `signal` fires.
 */
export async function* walkFiles(start: string, options: WalkOptions): AsyncGenerator<WalkEntry> {
  await loadSearchEngines();
  const { roots, signal, filter, onWithheld } = options;
  const ignoreCase = options.ignoreCase ?? CASE_INSENSITIVE_FS;
  throwIfAborted(signal);
  const realStart = await realPath(start);
  const visitedLinks = new Set<string>();
  const { levels: startLevels, read } = await ancestorLevels(realStart, roots, ignoreCase, options.onIgnoreFileSkipped);
  const stack: PendingDir[] = [{ path: start, relativePath: "", realPath: realStart, levels: startLevels }];

  while (stack.length > 0) {
    throwIfAborted(signal);
    const dir = stack.pop() as PendingDir;
    let entries;
    try {
      entries = await readDir(dir.path);
    } catch (error) {
      if (isNotFound(error) || isPermissionError(error)) continue;
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

    let levels = dir.levels;
    if (entries.some((e) => e.name === ".gitignore" && !e.isDirectory)) {
      const lines = await read(join(dir.path, ".gitignore"));
      if (lines !== undefined && lines.length > 0) levels = [...levels, makeLevel(lines, dir.relativePath, ignoreCase)];
    }

    const subdirs: PendingDir[] = [];
    for (const entry of entries) {
      throwIfAborted(signal);
      if (entry.name === ".git") continue;
      const path = join(dir.path, entry.name);
      const relativePath = dir.relativePath === "" ? entry.name : `${dir.relativePath}/${entry.name}`;
      let isDirectory = entry.isDirectory;
      let entryReal = join(dir.realPath, entry.name);

      if (entry.isSymbolicLink && options.followLinks === false) continue;
      if (isDirectory && options.skipDirectories?.has(entry.name)) {
        options.onIgnored?.(path, true);
        continue;
      }
      if (entry.isSymbolicLink) {
        const target = await followLink(path, roots);
        if (target === undefined) continue;
        isDirectory = target.isDirectory;
        entryReal = target.realPath;
        // A link into the walk (or to a directory holding it) would list things twice or loop.
        if (isDirectory && (isWithin(entryReal, realStart) || isWithin(realStart, entryReal) || visitedLinks.has(entryReal))) {
          continue;
        }
      } else if (!isDirectory && !entry.isFile) {
        continue; // sockets, FIFOs, devices: nothing to find or grep
      }

      if (isIgnored(levels, relativePath, isDirectory)) {
        options.onIgnored?.(path, isDirectory);
        continue;
      }
      if (filter && !filter(path, entryReal)) {
        onWithheld?.();
        continue;
      }
      if (isDirectory && entry.isSymbolicLink) visitedLinks.add(entryReal);
      yield { path, relativePath, name: entry.name, isDirectory, isSymbolicLink: entry.isSymbolicLink };
      if (isDirectory) subdirs.push({ path, relativePath, realPath: entryReal, levels });
    }
    // Pushed in reverse so that the stack pops them in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as PendingDir);
  }
}

async function followLink(
  path: string,
  roots: readonly string[],
): Promise<{ realPath: string; isDirectory: boolean } | undefined> {
  try {
    const target = await realPath(path);
    if (containingRoot(target, roots) === undefined) return undefined;
    const info = await stat(target);
    if (!info.isDirectory && !info.isFile) return undefined;
    return { realPath: target, isDirectory: info.isDirectory };
  } catch {
    return undefined; // broken link or a loop
  }
}

function isPermissionError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "EACCES" || code === "EPERM";
}

/** Deepest rule file wins, as in git: the first level (from the bottom) with an opinion decides. */
function isIgnored(levels: IgnoreLevel[], relativePath: string, isDirectory: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i] as IgnoreLevel;
    const verdict = level.rules.verdict(level.toLevel(relativePath), isDirectory);
    if (verdict !== undefined) return verdict === "ignored";
  }
  return false;
}

/** Rules from `lines`, for a rules file in the walk-relative directory `dirRelative`. */
function makeLevel(lines: readonly string[], dirRelative: string, ignoreCase: boolean): IgnoreLevel {
  const rules = parseIgnoreRules(lines, { ignoreCase });
  const prefix = dirRelative === "" ? "" : `${dirRelative}/`;
  return { rules, toLevel: (rel) => (prefix !== "" && rel.startsWith(prefix) ? rel.slice(prefix.length) : rel) };
}

/** Ignore files are a few KiB; a larger one is not read. */
const IGNORE_FILE_BUDGET = 1024 * 1024;

/** Ignore rules one walk applies at most (real projects have a few hundred; each path is matched against all that apply). */
export const MAX_WALK_IGNORE_RULES = 2_000;

/**
 * Reads ignore files inside `areas` as rule lines; a missing one has no rules, any other not read is reported, and so
 * is one whose rules would take the walk past `MAX_WALK_IGNORE_RULES`.
 */
function ignoreFileReader(areas: readonly string[], onSkipped?: (notice: string) => void): (file: string) => Promise<string[] | undefined> {
  let rulesLeft = MAX_WALK_IGNORE_RULES;
  return async (file) => {
    const read = await readConfinedFile(file, { areas, budget: IGNORE_FILE_BUDGET });
    if (!read.ok) {
      if (read.reason !== "missing") onSkipped?.(`The ignore rules in ${file} were not applied: ${describeSkip(read, "the session's folders", IGNORE_FILE_BUDGET)}`);
      return undefined;
    }
    const lines = ruleLines(read.text);
    if (lines.length > rulesLeft) {
      onSkipped?.(`The ignore rules in ${file} were not applied: with them one walk would apply more than ${MAX_WALK_IGNORE_RULES} ignore rules`);
      return undefined;
    }
    rulesLeft -= lines.length;
    return lines;
  };
}

/**
 * Ignore rules that apply to `realStart` from above it: every `.gitignore`
 * from the repository root (see `repositoryRoot`), or else the session root
 * holding the start, down to the start's parent, plus the repository's
 * `.git/info/exclude`. Also returns the reader for ignore files below, which
 * may read inside the roots and that base folder.
 */
async function ancestorLevels(
  realStart: string,
  roots: readonly string[],
  ignoreCase: boolean,
  onSkipped?: (notice: string) => void,
): Promise<{ levels: IgnoreLevel[]; read: (file: string) => Promise<string[] | undefined> }> {
  const repository = await repositoryRoot(realStart);
  const base = repository ?? containingRoot(realStart, roots) ?? realStart;
  const read = ignoreFileReader([...roots, base], onSkipped);

  const chain: string[] = [];
  for (let dir = realStart; ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === base || dirname(dir) === dir) break;
  }

  const levels: IgnoreLevel[] = [];
  for (const dir of chain) {
    const files: string[] = [];
    // Lower precedence than any .gitignore, so it goes first (later levels win).
    if (dir === base && repository !== undefined) files.push(join(dir, ".git", "info", "exclude"));
    // The start directory's own .gitignore is read by the walk itself.
    if (dir !== realStart) files.push(join(dir, ".gitignore"));
    const offset = toPosix(relative(dir, realStart));
    const prefix = offset === "" ? "" : `${offset}/`;
    for (const file of files) {
      const lines = (await read(file)) ?? [];
      if (lines.length === 0) continue;
      const { rules } = makeLevel(lines, "", ignoreCase);
      levels.push({ rules, toLevel: (rel) => prefix + rel });
    }
  }
  return { levels, read };
}

/**
 * A predicate for a glob as fd and rg read it: a pattern without `/` matches
 * the base name at any depth, one with `/` matches the whole relative path.
 * Dotfiles match like any other name. Matching is linear-time; a glob that
 * cannot be matched that way is a ToolError.
 */
export function compileGlob(pattern: string): (relativePath: string) => boolean {
  let glob = pattern.trim();
  while (glob.startsWith("..")) glob = glob.slice(2);
  if (glob.endsWith("/") && glob.length > 1) glob = glob.slice(0, -1);
  const matchBase = !glob.includes("/");
  let isMatch: (path: string) => boolean;
  try {
    isMatch = globMatcher(glob);
  } catch (error) {
    if (error instanceof UnsupportedRegexError) throw new ToolError(`Invalid glob "${pattern}": ${error.message}`);
    throw error;
  }
  return (relativePath) => isMatch(matchBase ? (relativePath.split("/").pop() ?? relativePath) : relativePath);
}
