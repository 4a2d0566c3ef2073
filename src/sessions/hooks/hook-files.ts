/**
 * Where a session finds hooks, read without loading any of the hook code:
 * Claude Code's user settings (`~/.claude/settings.json`), the acp-edge
 * home's `settings.json`, and the project's `.claude/settings.json` and
 * `.claude/settings.local.json`. A project decides what is at those names
 * (a link to /proc, a FIFO, a huge file), so every file goes through the
 * confined reader. Only when some file holds a non-empty `hooks` object does
 * the session load the code that runs them (see session-hooks.ts).
 * @module
 */
import { describeSkip, readConfinedFile, resolveAreas } from "../../runtime/files/confined-file.ts";
import { join } from "../../runtime/files/path.ts";

/** A settings file larger than this is not read for hooks. */
export const HOOK_FILE_BUDGET = 256 * 1024;

/** Whose a file is: the user's own files are trusted, a project's only once the user says so. */
export type HookOrigin = "user" | "project";

/** A settings file that holds hooks: where it is, whose it is, and its `hooks` value as written. */
export interface HookFile {
  path: string;
  origin: HookOrigin;
  hooks: Record<string, unknown>;
  /** The file's text, for the content hash project trust is remembered by. */
  text: string;
}

/** Where the files are looked for. */
export interface HookPlaces {
  home: string;
  /** Claude Code's user folder, when known. */
  claude?: string;
  cwd: string;
  /** The session's resolved roots: a project's file must lead inside them. */
  roots: readonly string[];
}

/** The files holding hooks, in order (user files first), and notices about files that are there but were not read. */
export async function findHookFiles(places: HookPlaces): Promise<{ files: HookFile[]; notices: string[] }> {
  const user = [
    ...(places.claude ? [{ path: join(places.claude, "settings.json"), areas: await resolveAreas([places.claude]), areaName: "your Claude folder" }] : []),
    { path: join(places.home, "settings.json"), areas: await resolveAreas([places.home]), areaName: "the acp-edge home" },
  ];
  const project = ["settings.json", "settings.local.json"].map((name) => ({ path: join(places.cwd, ".claude", name), areas: places.roots, areaName: "the session's folders" }));
  const files: HookFile[] = [];
  const notices: string[] = [];
  const reads = await Promise.all([
    ...user.map((place) => readHookFile(place.path, place.areas, place.areaName, "user")),
    ...project.map((place) => readHookFile(place.path, place.areas, place.areaName, "project")),
  ]);
  for (const read of reads) {
    if (read === undefined) continue;
    if (typeof read === "string") notices.push(read);
    else files.push(read);
  }
  return { files, notices };
}

/** The file's hooks; a notice (string) when it is there but unusable; undefined when it is absent or has no hooks. */
async function readHookFile(path: string, areas: readonly string[], areaName: string, origin: HookOrigin): Promise<HookFile | string | undefined> {
  const read = await readConfinedFile(path, { areas, budget: HOOK_FILE_BUDGET });
  if (!read.ok) return read.reason === "missing" ? undefined : `Hooks in ${path} were not read: ${describeSkip(read, areaName, HOOK_FILE_BUDGET)}.`;
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch {
    // A settings file that is not JSON has no hooks we can tell; only one that names hooks is worth a notice.
    return read.text.includes('"hooks"') ? `Hooks in ${path} were not read: the file is not valid JSON.` : undefined;
  }
  const hooks = (value as { hooks?: unknown } | null)?.hooks;
  if (hooks === undefined || hooks === null) return undefined;
  if (typeof hooks !== "object" || Array.isArray(hooks)) return `Hooks in ${path} were not read: "hooks" is not an object.`;
  if (Object.keys(hooks).length === 0) return undefined;
  return { path, origin, hooks: hooks as Record<string, unknown>, text: read.text };
}
