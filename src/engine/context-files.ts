/**
 * Instructions users leave for agents: `AGENTS.md` (or `CLAUDE.md`) in the
 * acp-edge home, then in every directory from the filesystem root down to
 * the session's cwd — outermost first, so the nearest file speaks last.
 * @module
 */
import { readTextFile, isNotFound, statOrUndefined } from "../runtime/fs.ts";
import { dirname, join, resolve } from "../runtime/path.ts";
import { log } from "../runtime/log.ts";

export interface ContextFile {
  path: string;
  content: string;
}

const NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];
/** Larger files are cut: they would crowd the context window on every request. */
const MAX_BYTES = 64 * 1024;

async function firstIn(directory: string): Promise<ContextFile | undefined> {
  for (const name of NAMES) {
    const path = join(directory, name);
    try {
      let content = await readTextFile(path);
      if (content.length > MAX_BYTES) content = `${content.slice(0, MAX_BYTES)}\n[truncated at 64 KiB]`;
      return { path, content };
    } catch (error) {
      if (!isNotFound(error) && (error as { code?: string }).code !== "EISDIR") log.warn(`cannot read ${path}`, error);
    }
  }
  return undefined;
}

/** Directories from the root down to `cwd`, inclusive. */
function ancestry(cwd: string): string[] {
  const chain: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return chain;
}

function searchedDirectories(home: string, cwd: string): string[] {
  return [home, ...ancestry(cwd).filter((d) => d !== home)];
}

/** The context files for a session in `cwd`, outermost first. */
export async function loadContextFiles(home: string, cwd: string): Promise<ContextFile[]> {
  const found = await Promise.all(searchedDirectories(home, cwd).map(firstIn));
  return found.filter((f): f is ContextFile => f !== undefined);
}

/**
 * What the context files were read from: each searched directory's stamp
 * (a file added, removed or renamed there changes it) and each found file's
 * (an edit in place changes it). A stamp is the inode, size, mtime and ctime:
 * the mtime alone misses a rewrite that keeps the size and sets the old mtime
 * back (`rsync -t`, `cp -p`), and a path that now reaches another file (a
 * swapped symbolic link) has another inode. Comparing stamps costs one stat
 * per entry instead of reading every candidate file again.
 */
export type ContextStamp = ReadonlyArray<{ path: string; stamp: string }>;

/**
 * An entry changed less than this before it was read (files) or stamped
 * (directories) may change again with the same stamp, or may have changed
 * while it was being read: it is read again at the next check. File systems
 * and runtimes with coarse times (FAT keeps 2 s, some 1 s; Deno reports
 * ctime in whole seconds) get seconds; where both times carry fractions of
 * a millisecond, the clock ticks in milliseconds and a short margin does.
 */
const COARSE_RACY_MS = 3000;
const FINE_RACY_MS = 50;
/** The stamp of an entry too recent to trust; never equal to a later stamp. */
const RACY = "racy";

/** `since`: when the entry's content was read (or, for a directory, now). */
async function stampOf(path: string, since: number): Promise<string> {
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info) return "missing";
  const fine = !Number.isInteger(info.mtimeMs) && !Number.isInteger(info.ctimeMs);
  if (Math.max(info.mtimeMs, info.ctimeMs) >= since - (fine ? FINE_RACY_MS : COARSE_RACY_MS)) return RACY;
  return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/**
 * Stamps the directories searched and the files found, for `contextChanged`;
 * `readAt` is when reading the files began (a file changed after it is racy).
 */
export async function stampContext(home: string, cwd: string, files: readonly ContextFile[], readAt = Date.now()): Promise<ContextStamp> {
  const directories = searchedDirectories(home, cwd);
  const now = Date.now();
  return await Promise.all([
    ...directories.map(async (path) => ({ path, stamp: await stampOf(path, now) })),
    ...files.map(async (file) => ({ path: file.path, stamp: await stampOf(file.path, readAt) })),
  ]);
}

/** Whether anything stamped changed since, or was too recent to judge (a stat per entry; nothing is read). */
export async function contextChanged(stamp: ContextStamp): Promise<boolean> {
  if (stamp.some((entry) => entry.stamp === RACY)) return true;
  const now = Date.now();
  const current = await Promise.all(stamp.map((entry) => stampOf(entry.path, now)));
  return current.some((value, i) => value !== stamp[i]!.stamp);
}
