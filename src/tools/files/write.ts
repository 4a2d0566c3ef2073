/**
 * The `write` tool: create or overwrite a whole file (parent directories
 * included), atomically, through the workspace. Also the path handling that
 * `edit` shares: where a change lands, and which targets are refused.
 * @module
 */
import * as v from "valibot";
import { errorCode, statOrUndefined, type FileInfo } from "../../runtime/files/fs.ts";
import { basisOf, ensureUnchanged } from "./change-basis.ts";
import { withFileLock } from "./file-lock.ts";
import { containingRoot } from "../../runtime/files/path.ts";
import { displayPath, realLocation, resolveInRoots, toAbsolute } from "../paths.ts";
import { utf8Length } from "../truncate.ts";
import { ToolError, type ToolContext, type ToolDefinition, type ToolPreview, type ToolResult, type Workspace } from "../types.ts";

const MiB = 1024 * 1024;
/** The most one write may put in a file. */
export const MAX_WRITE_BYTES = 16 * MiB;
/** Previous content larger than this is not read back just to show a diff. */
const MAX_DIFF_BYTES = 16 * MiB;

export const WriteInput = v.object({
  path: v.pipe(v.string(), v.description("Path to the file to write (relative or absolute)")),
  content: v.pipe(v.string(), v.description("Content to write to the file")),
});

/** A file a write or edit changes: the lexical absolute path, how it is shown, and where it really is. */
export interface ChangeTarget {
  absolute: string;
  shown: string;
  /** Symlink-free location: the lock key, so two spellings of one file are serialised. */
  real: string;
}

/** Resolves a path a call will change, refusing one outside the roots unless approved (the ToolError of `resolveInRoots`). */
export async function resolveChangeTarget(path: string, workspace: Workspace, action: string, approved = false): Promise<ChangeTarget> {
  const absolute = await resolveInRoots(path, workspace, action, approved);
  return { absolute, shown: displayPath(absolute, workspace.cwd), real: await realLocation(absolute, path) };
}

/**
 * Like `resolveChangeTarget`, but for previews, which run before approval:
 * a path outside the roots yields undefined (nothing is read there before the
 * user has agreed) instead of an error, so the call can still be approved.
 */
export async function previewChangeTarget(path: string, context: ToolContext): Promise<ChangeTarget | undefined> {
  const { workspace } = context;
  const absolute = toAbsolute(path, workspace.cwd);
  const real = await realLocation(absolute, path);
  if (!context.outsideRootsApproved && containingRoot(real, workspace.roots) === undefined) return undefined;
  return { absolute, shown: displayPath(absolute, workspace.cwd), real };
}

/** Stats a change target (never opening it): undefined when missing; ToolError for a directory or a non-regular file. */
export async function inspectTarget(target: ChangeTarget, verb: string): Promise<FileInfo | undefined> {
  const info = await statOrUndefined(target.absolute);
  if (info?.isDirectory) throw new ToolError(`${target.shown} is a directory; cannot ${verb} it.`);
  if (info && !info.isFile) throw new ToolError(`${target.shown} is not a regular file; refusing to ${verb} it.`);
  return info;
}

/** Writes through the workspace; an I/O failure becomes a ToolError naming the file (an abort stays an abort). */
export async function writeThrough(workspace: Workspace, target: ChangeTarget, content: string, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  try {
    await workspace.writeTextFile(target.absolute, content, signal);
  } catch (error) {
    if (signal.aborted || error instanceof ToolError) throw error;
    if (errorCode(error) === "ECHANGED") {
      throw new ToolError(`${target.shown} changed while it was being written, so it was left as it is. Read it again and redo the change if it is still needed.`);
    }
    throw new ToolError(`Could not write ${target.shown}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function checkSize(bytes: number): void {
  if (bytes > MAX_WRITE_BYTES) {
    const size = Math.ceil((bytes / MiB) * 10) / 10;
    throw new ToolError(`Content is ${size} MiB; the limit for one write is ${MAX_WRITE_BYTES / MiB} MiB.`);
  }
}

/** The current content for the diff: null when the file is new, undefined when it is too big or unreadable. */
async function previousContent(workspace: Workspace, target: ChangeTarget, info: FileInfo | undefined, signal: AbortSignal) {
  if (!info) return null;
  if (info.size > MAX_DIFF_BYTES) return undefined;
  try {
    return await workspace.readTextFile(target.absolute, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    return undefined;
  }
}

export const writeTool: ToolDefinition<typeof WriteInput> = {
  name: "write",
  description:
    "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. " +
    "Automatically creates parent directories.",
  promptSnippet: "Create or overwrite files",
  promptGuidelines: ["Use write only for new files or complete rewrites."],
  schema: WriteInput,
  kind: "edit",

  access(input, workspace) {
    return { class: "edit", paths: [toAbsolute(input.path, workspace.cwd)] };
  },

  describe(input, workspace) {
    const absolute = toAbsolute(input.path, workspace.cwd);
    return { title: `Write ${displayPath(absolute, workspace.cwd)}`, locations: [{ path: absolute }] };
  },

  async preview(input, context): Promise<ToolPreview> {
    checkSize(utf8Length(input.content));
    const target = await previewChangeTarget(input.path, context);
    if (!target) return { locations: [{ path: toAbsolute(input.path, context.workspace.cwd), line: 1 }] };
    const info = await inspectTarget(target, "write");
    const oldText = await previousContent(context.workspace, target, info, context.signal);
    const locations = [{ path: target.absolute, line: 1 }];
    const basis = basisOf(info, oldText ?? undefined);
    if (oldText === undefined) return { locations, basis };
    return { diff: { path: target.absolute, oldText, newText: input.content }, locations, basis };
  },

  async execute(input, { workspace, signal, outsideRootsApproved, preview }): Promise<ToolResult> {
    signal.throwIfAborted();
    const bytes = utf8Length(input.content);
    checkSize(bytes);
    const target = await resolveChangeTarget(input.path, workspace, "written", outsideRootsApproved);
    return await withFileLock(target.real, async () => {
      const info = await inspectTarget(target, "write");
      const oldText = await previousContent(workspace, target, info, signal);
      // Checked last before writing, under the lock: the approved diff was worked out from the basis.
      ensureUnchanged(preview?.basis, info, oldText ?? undefined, target.shown, "write");
      await writeThrough(workspace, target, input.content, signal);
      return {
        content: [{ type: "text", text: `Successfully wrote ${bytes} bytes to ${target.shown}` }],
        details: { path: target.absolute, bytes, created: info === undefined },
        ...(oldText === undefined ? {} : { diff: { path: target.absolute, oldText, newText: input.content } }),
        locations: [{ path: target.absolute, line: 1 }],
      };
    });
  },
};
