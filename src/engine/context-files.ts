/**
 * Instructions users leave for agents: the user's own, kept for every
 * project (`~/.agents/AGENTS.md`, Claude Code's `CLAUDE.md`, `AGENTS.md` or
 * `CLAUDE.md` in the acp-edge home — the most general first), then the
 * project's `AGENTS.md` (or `CLAUDE.md`) in every folder from the outermost
 * one that belongs to the project down to the session's cwd — outermost
 * first, so the nearest file speaks last. A folder belongs to the project
 * when it lies inside the session's roots, or inside the git repository
 * holding the cwd (see `repositoryRoot`); folders above that are not
 * searched. Every file is read with `readConfinedFile`: a user's file must
 * stay inside the folders it may lead into, one in the roots inside the
 * roots, and one in a repository folder above the roots must be a regular
 * file right where it is (or lead into the roots). All of them together get
 * one budget, the nearest files first. Secrets in what is read are redacted
 * before it reaches the model.
 * @module
 */
import { readConfinedFile, resolveAreas, describeSkip } from "../runtime/files/confined-file.ts";
import { containingRoot, dirname, isWithin, join } from "../runtime/files/path.ts";
import { stampPaths, type PathStamps } from "../runtime/files/path-stamps.ts";
import { repositoryRoot } from "../runtime/files/repository-root.ts";
import { redact } from "../runtime/secrets.ts";

/** Whose instructions a context file holds: the user's (for every project) or the project's. */
export type ContextScope = "user" | "project";

/** A context file as it goes into the system prompt. */
export interface ContextFile {
  path: string;
  content: string;
  scope: ContextScope;
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
  /** The names looked for, in order; the first one read is the folder's file. */
  names: readonly string[];
  /** Resolved folders the file must lead into. */
  areas: readonly string[];
  /** A folder of the repository above the roots: its file may also be read right where it is. */
  inPlace: boolean;
  /** How notices name the areas. */
  areaName: string;
  scope: ContextScope;
}

/** The folders searched for a session's context files, the user's first, then the project's outermost first. */
export interface ContextPlaces {
  folders: readonly SearchedFolder[];
}

/** A folder of the user's own searched for instructions, the names looked for there, and where its file may lead. */
export interface UserInstructionFolder {
  /** The folder (it need not exist). */
  path: string;
  names: readonly string[];
  /** Folders (unresolved) a file found there may lead into. */
  areas: readonly string[];
  /** How notices name those folders ("the acp-edge home"). */
  areaName: string;
}

/** The names a project folder (and the acp-edge home) is searched for, the first one read wins. */
export const INSTRUCTION_FILE_NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];
/** Larger files are cut here, with a notice: they would crowd the context window on every request. */
const CONTEXT_FILE_BUDGET = 64 * 1024;
/** All context files together; the nearest are given their share first, and those that do not fit are cut or left out. */
export const CONTEXT_TOTAL_BUDGET = 128 * 1024;

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
 * Where a session's context files are looked for: `user` folders in order,
 * then the project's. `roots` are the session's resolved roots, the cwd
 * first (a workspace's `roots`).
 */
export async function contextPlaces(user: readonly UserInstructionFolder[], roots: readonly string[]): Promise<ContextPlaces> {
  const folders: SearchedFolder[] = [];
  const userFolders = new Set<string>();
  for (const place of user) {
    const [real] = await resolveAreas([place.path]);
    if (real === undefined || userFolders.has(real)) continue;
    userFolders.add(real);
    folders.push({ path: real, names: place.names, areas: await resolveAreas(place.areas), inPlace: false, areaName: place.areaName, scope: "user" });
  }
  const cwd = roots[0];
  if (cwd === undefined) return { folders };
  const repository = await repositoryRoot(cwd);
  for (const dir of ancestry(cwd)) {
    if (userFolders.has(dir)) continue;
    const inRoots = containingRoot(dir, roots) !== undefined;
    const inRepository = repository !== undefined && isWithin(dir, repository);
    if (inRoots || inRepository) {
      folders.push({ path: dir, names: INSTRUCTION_FILE_NAMES, areas: roots, inPlace: !inRoots, areaName: "the session's folders", scope: "project" });
    }
  }
  return { folders };
}

/** A file read for the system prompt, with the real path that tells two names of one file apart. */
type ReadContextFile = ContextFile & { realPath: string };

async function firstIn(folder: SearchedFolder, skipped: SkippedContextFile[]): Promise<ReadContextFile | undefined> {
  for (const name of folder.names) {
    const path = join(folder.path, name);
    // A repository folder above the roots: its own file, right there, is an area of one.
    const areas = folder.inPlace ? [...folder.areas, path] : folder.areas;
    const read = await readConfinedFile(path, { areas, budget: CONTEXT_FILE_BUDGET, overflow: "cut" });
    if (read.ok && read.cut) skipped.push({ path, why: `it is larger than ${CONTEXT_FILE_BUDGET / 1024} KiB; only its first ${CONTEXT_FILE_BUDGET / 1024} KiB were read`, partly: true });
    if (read.ok) {
      const content = read.cut ? `${redact(read.text)}\n[cut at ${CONTEXT_FILE_BUDGET / 1024} KiB]` : redact(read.text);
      return { path, content, scope: folder.scope, realPath: read.realPath };
    }
    if (read.reason === "missing") continue;
    skipped.push({ path, why: describeSkip(read, folder.areaName, CONTEXT_FILE_BUDGET) });
  }
  return undefined;
}

/** `text` cut to at most `bytes` bytes of UTF-8, whole characters only. */
function cutToBytes(text: string, bytes: number): string {
  return new TextDecoder().decode(new TextEncoder().encode(text).subarray(0, bytes), { stream: true });
}

/**
 * Fits the files into the total budget, nearest first (the last file is the
 * nearest): one that no longer fits whole is cut to what is left, and once
 * nothing is left the rest are left out — each with a notice.
 */
function fitTotalBudget(files: ReadContextFile[], skipped: SkippedContextFile[]): ReadContextFile[] {
  const encoder = new TextEncoder();
  const total = `${CONTEXT_TOTAL_BUDGET / 1024} KiB`;
  let remaining = CONTEXT_TOTAL_BUDGET;
  const kept: ReadContextFile[] = [];
  for (let i = files.length - 1; i >= 0; i--) {
    const file = files[i]!;
    const size = encoder.encode(file.content).length;
    if (size <= remaining) {
      remaining -= size;
      kept.unshift(file);
    } else if (remaining > 0) {
      kept.unshift({ ...file, content: `${cutToBytes(file.content, remaining)}\n[cut: instructions are limited to ${total} in all]` });
      skipped.push({ path: file.path, why: `the instructions together are larger than ${total}; only its first ${Math.floor(remaining / 1024)} KiB were read`, partly: true });
      remaining = 0;
    } else {
      skipped.push({ path: file.path, why: `the instructions together are larger than ${total}, and nearer files come first` });
    }
  }
  return kept;
}

/** The context files for a session, the user's first then outermost first, and those found but not read. */
export async function loadContextFiles(places: ContextPlaces): Promise<{ files: ContextFile[]; skipped: SkippedContextFile[] }> {
  const skippedPer = places.folders.map((): SkippedContextFile[] => []);
  const found = await Promise.all(places.folders.map((folder, i) => firstIn(folder, skippedPer[i]!)));
  // One file reached under two names (`~/.claude/CLAUDE.md` linked to `~/.agents/AGENTS.md`) is given once, where it is first found.
  const distinct = new Map<string, ReadContextFile>();
  for (const file of found) if (file && !distinct.has(file.realPath)) distinct.set(file.realPath, file);
  const skipped = skippedPer.flat();
  const files = fitTotalBudget([...distinct.values()], skipped).map(({ path, content, scope }) => ({ path, content, scope }));
  return { files, skipped };
}

/**
 * Stamps the folders searched and the files found or skipped, for
 * `pathsChanged` (a skipped file that is fixed in place is read at the next
 * check); `readAt` is when reading the files began.
 */
export async function stampContext(places: ContextPlaces, files: readonly { path: string }[], readAt = Date.now()): Promise<PathStamps> {
  return await stampPaths(places.folders.map((folder) => folder.path), files.map((file) => file.path), readAt);
}
