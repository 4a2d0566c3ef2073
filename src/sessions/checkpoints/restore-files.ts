/**
 * Putting the files the agent changed back as they were. A file is only
 * touched when it is exactly as the agent left it: one the user changed,
 * removed or created since is left as the user has it and reported as a
 * conflict, so a rewind never overwrites the user's work. Every path must
 * lead (links followed) into the session's folders, like every file tool's.
 *
 * When the editor owns the files (it reads and writes them for the agent, as
 * the write and edit tools use it), a text file is put back through it, so
 * its buffers and its own undo see the change, and "as the agent left it" is
 * checked against what the editor holds (an unsaved buffer is the user's
 * latest). The protocol has no way to remove a file through the editor: a
 * file the agent created is removed on disk, and the outcome says so.
 * Binary content (not UTF-8) always goes by the disk.
 * @module
 */
import { locateConfined, readConfinedBytes, resolveAreas } from "../../runtime/files/confined-file.ts";
import { realPath, removeFile, writeFileAtomic } from "../../runtime/files/fs.ts";
import { containingRoot, dirname, isAbsolute, normalize } from "../../runtime/files/path.ts";
import type { FileChange, Version } from "./file-changes.ts";
import { contentId } from "./object-store.ts";
import { MAX_KEPT_FILE_BYTES } from "./folder-snapshot.ts";

/** What happens (or, in a dry run, would happen) to one file. */
export type FileAction =
  /** Its content before the point is written back. */
  | "restore"
  /** The agent created it after the point: it is removed. */
  | "delete"
  /** The agent deleted it after the point: it is brought back. */
  | "recreate"
  /** The user changed, removed or created it since the agent last touched it: left as it is. */
  | "conflict"
  /** Nothing was kept to put it back with, or it cannot be reached: left as it is. */
  | "unavailable";

/** One file in a `_session/rewind_files` answer. */
export interface FileOutcome {
  path: string;
  action: FileAction;
  /** Whether the action was carried out (false in a dry run, for a conflict, and when it failed). */
  applied: boolean;
  /** Why a file is left as it is, or why the action failed. */
  reason?: string;
  /** Where it was (or would be) done, when the editor owns the files: through the editor, or on disk. */
  via?: "editor" | "disk";
  /** What the user should know about a change that was made (a removal the editor cannot carry out). */
  note?: string;
}

/** The editor's side of the files, when it reads or writes them for the agent (absent: the disk only). */
export interface EditorFiles {
  /** What the editor holds for a file, an unsaved buffer included (`fs/read_text_file`). */
  read?(path: string): Promise<string>;
  /** Writes a file through the editor (`fs/write_text_file`). */
  write?(path: string, text: string): Promise<void>;
}

/** Reads a kept copy by its id. */
export type LoadCopy = (id: string) => Promise<Uint8Array>;

const encoder = new TextEncoder();

/** Decides, and unless `dryRun` carries out, what happens to each changed file. */
export async function restoreFiles(changes: readonly FileChange[], roots: readonly string[], load: LoadCopy, dryRun: boolean, editor: EditorFiles = {}): Promise<FileOutcome[]> {
  const areas = await resolveAreas(roots);
  const outcomes: FileOutcome[] = [];
  for (const change of changes) outcomes.push(await restoreOne(change, { roots, areas, load, dryRun, editor }));
  return outcomes;
}

interface RestoreContext {
  roots: readonly string[];
  areas: readonly string[];
  load: LoadCopy;
  dryRun: boolean;
  editor: EditorFiles;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** `bytes` as text when they are UTF-8 (what the editor's text requests can carry), else undefined. */
function asText(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

async function bytesOf(version: Version, load: LoadCopy): Promise<Uint8Array> {
  return "text" in version ? encoder.encode(version.text) : await load(version.id);
}

/** Whether `bytes` are `version`. */
async function isVersion(bytes: Uint8Array, version: Version): Promise<boolean> {
  if ("text" in version) return new TextDecoder().decode(bytes) === version.text && bytes.length === encoder.encode(version.text).length;
  return (await contentId(bytes)) === version.id;
}

async function restoreOne(change: FileChange, context: RestoreContext): Promise<FileOutcome> {
  const { path } = change;
  const { roots, areas, load, editor } = context;
  const left = (action: FileAction, reason: string): FileOutcome => ({ path, action, applied: false, reason });
  if (change.kind === "unkept") return left("unavailable", change.reason);
  // A path the journal names is checked like a tool's: absolute, normalised, inside the roots, and (below) once links are followed.
  if (!isAbsolute(path) || normalize(path) !== path || containingRoot(path, roots) === undefined) return left("unavailable", "outside the session's folders");
  const where = await locateConfined(path, areas);
  let target: string;
  if (change.after === null) {
    // The agent left it absent: it must still be absent, and where it goes must lead into the session's folders.
    if (where.ok || where.reason !== "missing") return left("conflict", "created since the agent removed it");
    if (!(await parentInside(path, areas))) return left("unavailable", "outside the session's folders");
    target = path;
  } else {
    if (!where.ok) return where.reason === "missing" ? left("conflict", "removed since the agent changed it") : left("unavailable", where.reason === "outside" ? "outside the session's folders" : `cannot be reached (${where.reason})`);
    const unchanged = await asAgentLeftIt(path, where.realPath, change.after, context);
    if (unchanged !== true) return unchanged === false ? left("conflict", "changed since the agent changed it") : left("unavailable", unchanged);
    target = where.realPath;
  }
  const action: FileAction = change.before === null ? "delete" : change.after === null ? "recreate" : "restore";
  try {
    const before = change.before === null ? undefined : await bytesOf(change.before, load);
    const text = before === undefined ? undefined : asText(before);
    const viaEditor = editor.write !== undefined && text !== undefined;
    const done: FileOutcome = { path, action, applied: !context.dryRun, ...(editor.write ? { via: viaEditor ? "editor" : "disk" } : {}) };
    if (editor.write && before === undefined) done.note = "removed on disk: the protocol has no way to remove a file through the editor (close it there if it is open)";
    if (editor.write && before !== undefined && !viaEditor) done.note = "written on disk: it is not text the editor can take";
    if (context.dryRun) return done;
    if (before === undefined) await removeFile(target);
    // Through the editor under the name the agent used, as the write tool does; the editor resolves it.
    else if (viaEditor) await editor.write!(path, text!);
    else await writeFileAtomic(target, before);
    return done;
  } catch (error) {
    return left(action, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Whether the file is exactly as the agent left it (`after`): true, false, or why it cannot be told. What the editor
 * holds decides when it reads for the agent and the content is text; otherwise the disk.
 */
async function asAgentLeftIt(path: string, realPath: string, after: Version, context: RestoreContext): Promise<true | false | string> {
  const { editor, areas, load } = context;
  if (editor.read) {
    const expected = "text" in after ? after.text : await load(after.id).then(asText, () => undefined);
    if (expected !== undefined) {
      const held = await editor.read(path).catch(() => undefined);
      if (held === undefined) return "cannot be read through the editor";
      return held === expected;
    }
  }
  const budget = "text" in after ? encoder.encode(after.text).length + 1 : MAX_KEPT_FILE_BYTES + 1;
  const now = await readConfinedBytes(realPath, { areas, budget });
  if (!now.ok) return now.reason === "too-large" ? false : `cannot be read (${now.reason})`;
  return await isVersion(now.bytes, after);
}

/** Whether the nearest existing folder above `path` leads (links followed) into the areas. */
async function parentInside(path: string, areas: readonly string[]): Promise<boolean> {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const real = await realPath(folder).catch(() => undefined);
    if (real !== undefined) return containingRoot(real, areas) !== undefined;
    if (dirname(folder) === folder) return false;
  }
}
