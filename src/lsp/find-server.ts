/**
 * Finding a server's program: on the user's `PATH`, or in the project's
 * `node_modules/.bin` (the nearest one from the file up to the project's
 * folder). A program inside the session's folders — a `node_modules/.bin`
 * entry, or a `PATH` folder that lies in the project (direnv, a virtualenv) —
 * came with the repository: it is marked `fromProject`, and the caller decides
 * whether it may run (see session-servers.ts).
 * @module
 */
import { statOrUndefined } from "../runtime/files/fs.ts";
import { containingRoot, delimiter, dirname, isAbsolute, join } from "../runtime/files/path.ts";
import { env } from "../runtime/process/process.ts";
import type { ServerEntry } from "./server-table.ts";

/** A program that starts a server. */
export interface FoundServer {
  entry: ServerEntry;
  program: string;
  args: string[];
  /** The program lies in the session's folders: code from the repository. */
  fromProject: boolean;
  /** The folder the server is started for (the nearest root marker's, else the session folder holding the file). */
  root: string;
}

async function isExecutableFile(path: string): Promise<boolean> {
  const info = await statOrUndefined(path).catch(() => undefined);
  return Boolean(info?.isFile && (info.mode & 0o111) !== 0);
}

/** The folders from `from` up to `top` (both included), nearest first. */
function foldersUp(from: string, top: string): string[] {
  const folders: string[] = [];
  for (let folder = from; ; folder = dirname(folder)) {
    folders.push(folder);
    if (folder === top || dirname(folder) === folder) return folders;
  }
}

/** The nearest folder from the file's up to its session folder that holds one of `markers`; the session folder when none does. */
async function projectRoot(file: string, sessionRoot: string, markers: readonly string[]): Promise<string> {
  for (const folder of foldersUp(dirname(file), sessionRoot)) {
    for (const marker of markers) if (await statOrUndefined(join(folder, marker)).catch(() => undefined)) return folder;
  }
  return sessionRoot;
}

/** Where a program named `name` is: an absolute path given as is, else the first hit on `PATH`, else the nearest `node_modules/.bin`. */
async function locate(name: string, file: string, sessionRoot: string): Promise<string | undefined> {
  if (isAbsolute(name)) return (await isExecutableFile(name)) ? name : undefined;
  if (name.includes("/")) return undefined;
  for (const folder of (env("PATH") ?? "").split(delimiter)) {
    if (folder === "" || !isAbsolute(folder)) continue;
    const path = join(folder, name);
    if (await isExecutableFile(path)) return path;
  }
  for (const folder of foldersUp(dirname(file), sessionRoot)) {
    const path = join(folder, "node_modules", ".bin", name);
    if (await isExecutableFile(path)) return path;
  }
  return undefined;
}

/** The server for `file` (absolute, inside `roots`) from `entry`'s commands, or undefined when none is found. */
export async function findServer(entry: ServerEntry, file: string, roots: readonly string[]): Promise<FoundServer | undefined> {
  const sessionRoot = containingRoot(file, roots);
  if (sessionRoot === undefined) return undefined;
  for (const command of entry.commands) {
    const program = await locate(command.program, file, sessionRoot);
    if (!program) continue;
    const root = await projectRoot(file, sessionRoot, entry.rootMarkers);
    return { entry, program, args: command.args, fromProject: containingRoot(program, roots) !== undefined, root };
  }
  return undefined;
}
