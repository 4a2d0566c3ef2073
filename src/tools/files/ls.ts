/**
 * The `ls` tool: one directory's entries, sorted case-insensitively.
 * @module
 */
import * as v from "valibot";
import { readDir, realPath, stat, statOrUndefined } from "../../runtime/files/fs.ts";
import { join } from "../../runtime/files/path.ts";
import { throwIfAborted } from "../search/file-walker.ts";
import { displayPath, resolveInRoots, toAbsolute } from "../paths.ts";
import { cappedListing, DEFAULT_MAX_BYTES } from "../truncate.ts";
import { ToolError, type PathFilter, type ToolDefinition } from "../types.ts";
import { WITHHELD_FROM_LISTING } from "../search/withheld-note.ts";

const DEFAULT_LIMIT = 500;

export const LsInput = v.object({
  path: v.optional(v.pipe(v.string(), v.description("Directory to list (default: current directory)"))),
  limit: v.optional(v.pipe(v.number(), v.description(`Maximum number of entries to return (default: ${DEFAULT_LIMIT})`))),
});

/** `src/` for a directory under cwd, `.` for cwd itself, absolute (with `/`) elsewhere. */
export function directoryLabel(absolute: string, cwd: string): string {
  const shown = displayPath(absolute, cwd);
  return shown === "." || shown.endsWith("/") ? shown : `${shown}/`;
}

export const lsTool: ToolDefinition<typeof LsInput> = {
  name: "ls",
  description:
    `List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. ` +
    `Includes dotfiles. Output is truncated to ${DEFAULT_LIMIT} entries or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first).`,
  promptSnippet: "List directory contents",
  schema: LsInput,
  kind: "read",
  readOnly: true,

  access(input, workspace) {
    return { class: "read", paths: [toAbsolute(input.path ?? ".", workspace.cwd)] };
  },

  describe(input, workspace) {
    const absolute = toAbsolute(input.path ?? ".", workspace.cwd);
    return { title: `List ${directoryLabel(absolute, workspace.cwd)}`, locations: [{ path: absolute }] };
  },

  async execute(input, { workspace, signal, outsideRootsApproved, pathFilter }) {
    throwIfAborted(signal);
    const limit = Math.max(1, Math.floor(input.limit ?? DEFAULT_LIMIT));
    const absolute = await resolveInRoots(input.path ?? ".", workspace, "listed", outsideRootsApproved);
    const shown = displayPath(absolute, workspace.cwd);
    const info = await statOrUndefined(absolute);
    if (!info) throw new ToolError(`Path not found: ${shown}`);
    if (!info.isDirectory) throw new ToolError(`Not a directory: ${shown}`);

    let entries;
    try {
      entries = await readDir(absolute);
    } catch (error) {
      throw new ToolError(`Cannot read directory ${shown}: ${(error as Error).message}`);
    }
    entries.sort((a, b) => {
      const byFolded = a.name.toLowerCase().localeCompare(b.name.toLowerCase());
      return byFolded !== 0 ? byFolded : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    });

    const names: string[] = [];
    let limitReached = false;
    let withheld = false;
    const realDirectory = pathFilter ? await realPath(absolute) : absolute;
    for (const entry of entries) {
      throwIfAborted(signal);
      if (names.length >= limit) {
        limitReached = true;
        break;
      }
      if (pathFilter && !(await mayList(pathFilter, join(absolute, entry.name), join(realDirectory, entry.name), entry.isSymbolicLink))) {
        withheld = true;
        continue;
      }
      let isDirectory = entry.isDirectory;
      if (entry.isSymbolicLink) {
        // Only the name is shown, so a link pointing elsewhere leaks nothing by being listed.
        isDirectory = await stat(join(absolute, entry.name)).then((s) => s.isDirectory, () => false);
      }
      names.push(isDirectory ? `${entry.name}/` : entry.name);
    }

    const withheldNote = withheld ? WITHHELD_FROM_LISTING : undefined;
    if (names.length === 0) {
      const text = withheldNote ? `(no entries shown)\n\n[${withheldNote}]` : "(empty directory)";
      return { content: [{ type: "text", text }], details: { path: absolute, entries: 0, ...(withheld ? { withheld: true } : {}) } };
    }
    const { text, truncated } = cappedListing(
      names,
      limitReached ? `${limit} entries limit reached. Use limit=${limit * 2} for more` : undefined,
      withheldNote,
    );
    return {
      content: [{ type: "text", text }],
      details: {
        path: absolute,
        entries: names.length,
        ...(limitReached ? { entryLimitReached: limit } : {}),
        ...(truncated ? { truncated: true } : {}),
        ...(withheld ? { withheld: true } : {}),
      },
    };
  },
};

/** Whether the rules let an entry be named; a link is judged by where it leads as well (a broken one by its own path). */
async function mayList(filter: PathFilter, path: string, realInDirectory: string, isLink: boolean): Promise<boolean> {
  const real = isLink ? await realPath(path).catch(() => realInDirectory) : realInDirectory;
  return filter(path, real);
}
