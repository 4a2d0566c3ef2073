/**
 * Instructions users leave for agents: `AGENTS.md` (or `CLAUDE.md`) in the
 * acp-edge home, then in every folder from the outermost one that belongs to
 * the project down to the session's cwd — outermost first, so the nearest
 * file speaks last. A folder belongs to the project when it lies inside the
 * session's roots, or inside the git repository holding the cwd (see
 * `repositoryRoot`); folders above that are not searched. Every file is read
 * with `readConfinedFile`: a file in the home must stay inside the home, one
 * in the roots inside the roots, and one in a repository folder above the
 * roots must be a regular file right where it is (or lead into the roots).
 * Secrets in what is read are redacted before it reaches the model.
 * @module
 */
import { readConfinedFile, resolveAreas, describeSkip } from "../runtime/confined-file.ts";
import { statOrUndefined } from "../runtime/fs.ts";
import { containingRoot, dirname, isWithin, join } from "../runtime/path.ts";
import { repositoryRoot } from "../runtime/repository-root.ts";
import { redact } from "../runtime/secrets.ts";

/** A context file as it goes into the system prompt. */
export interface ContextFile {
  path: string;
  content: string;
}

/** A context file that was found but not read (or, `partly`, read only in part): its path and why, never its content. */
export interface SkippedContextFile {
  path: string;
  why: string;
  partly?: true;
}

/** A folder searched for a context file, and where a file found there may lead. */
interface SearchedFolder {
  path: string;
  /** Resolved folders the file must lead into. */
  areas: readonly string[];
  /** A folder of the repository above the roots: its file may also be read right where it is. */
  inPlace: boolean;
  /** How notices name the areas. */
  areaName: string;
}

/** The folders searched for a session's context files, outermost first (the home leads). */
export interface ContextPlaces {
  folders: readonly SearchedFolder[];
}

const NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];
/** Larger files are cut here, with a notice: they would crowd the context window on every request. */
const CONTEXT_FILE_BUDGET = 64 * 1024;

/** Folders from the filesystem root down to `folder`, inclusive. */
function ancestry(folder: string): string[] {
  const chain: string[] = [];
  for (let dir = folder; ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return chain;
}

/**
 * Where a session's context files are looked for. `roots` are the session's
 * resolved roots, the cwd first (a workspace's `roots`).
 */
export async function contextPlaces(home: string, roots: readonly string[]): Promise<ContextPlaces> {
  const folders: SearchedFolder[] = [];
  const [realHome] = await resolveAreas([home]);
  if (realHome !== undefined) folders.push({ path: realHome, areas: [realHome], inPlace: false, areaName: "the acp-edge home" });
  const cwd = roots[0];
  if (cwd === undefined) return { folders };
  const repository = await repositoryRoot(cwd);
  for (const dir of ancestry(cwd)) {
    if (dir === realHome) continue;
    const inRoots = containingRoot(dir, roots) !== undefined;
    const inRepository = repository !== undefined && isWithin(dir, repository);
    if (inRoots || inRepository) folders.push({ path: dir, areas: roots, inPlace: !inRoots, areaName: "the session's folders" });
  }
  return { folders };
}

async function firstIn(folder: SearchedFolder, skipped: SkippedContextFile[]): Promise<ContextFile | undefined> {
  for (const name of NAMES) {
    const path = join(folder.path, name);
    // A repository folder above the roots: its own file, right there, is an area of one.
    const areas = folder.inPlace ? [...folder.areas, path] : folder.areas;
    const read = await readConfinedFile(path, { areas, budget: CONTEXT_FILE_BUDGET, overflow: "cut" });
    if (read.ok && read.cut) skipped.push({ path, why: `it is larger than ${CONTEXT_FILE_BUDGET / 1024} KiB; only its first ${CONTEXT_FILE_BUDGET / 1024} KiB were read`, partly: true });
    if (read.ok) return { path, content: read.cut ? `${redact(read.text)}\n[cut at ${CONTEXT_FILE_BUDGET / 1024} KiB]` : redact(read.text) };
    if (read.reason === "missing") continue;
    skipped.push({ path, why: describeSkip(read, folder.areaName, CONTEXT_FILE_BUDGET) });
  }
  return undefined;
}

/** The context files for a session, outermost first, and those found but not read. */
export async function loadContextFiles(places: ContextPlaces): Promise<{ files: ContextFile[]; skipped: SkippedContextFile[] }> {
  const skippedPer = places.folders.map((): SkippedContextFile[] => []);
  const found = await Promise.all(places.folders.map((folder, i) => firstIn(folder, skippedPer[i]!)));
  return { files: found.filter((f): f is ContextFile => f !== undefined), skipped: skippedPer.flat() };
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
 * Stamps the folders searched and the files found or skipped, for
 * `contextChanged` (a skipped file that is fixed in place is read at the next
 * check); `readAt` is when reading the files began (a file changed after it is
 * racy). Stamping follows links but never opens what they lead to.
 */
export async function stampContext(
  places: ContextPlaces,
  files: readonly { path: string }[],
  readAt = Date.now(),
): Promise<ContextStamp> {
  const now = Date.now();
  return await Promise.all([
    ...places.folders.map(async ({ path }) => ({ path, stamp: await stampOf(path, now) })),
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
