/**
 * The `edit` tool: one or more exact-text replacements in one file, each
 * matched against the original content (exactly, then with pi's normalised
 * fallback), unique and disjoint. Only the matched regions change; the BOM,
 * line endings and every other byte are kept.
 * @module
 */
import * as v from "valibot";
import type { FileInfo } from "../../runtime/files/fs.ts";
import { basisOf, ensureUnchanged } from "./change-basis.ts";
import { createMatcher } from "./edit-match.ts";
import { withFileLock } from "./file-lock.ts";
import { displayPath, toAbsolute } from "../paths.ts";
import { inFileFormat, normalizeToLf, toMatchable } from "./text-format.ts";
import { ToolError, type ToolContext, type ToolDefinition, type ToolPreview, type ToolResult, type Workspace } from "../types.ts";
import { inspectTarget, previewChangeTarget, resolveChangeTarget, writeThrough, type ChangeTarget } from "./write.ts";

/** Larger files are refused: an edit reads and rewrites the whole file. */
export const MAX_EDIT_FILE_BYTES = 64 * 1024 * 1024;

const EditItem = v.strictObject({
  oldText: v.pipe(
    v.string(),
    v.description(
      "Exact text for one targeted replacement. It must be unique in the original file and must not overlap " +
        "with any other edits[].oldText in the same call.",
    ),
  ),
  newText: v.pipe(v.string(), v.description("Replacement text for this targeted edit.")),
});

const CanonicalEditInput = v.object({
  path: v.pipe(v.string(), v.description("Path to the file to edit (relative or absolute)")),
  edits: v.pipe(
    v.array(EditItem),
    v.minLength(1, "Provide at least one edit."),
    v.description(
      "One or more targeted replacements. Each edit is matched against the original file, not incrementally. " +
        "Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
    ),
  ),
});

/**
 * Accepts what models send besides the canonical form, as pi does: `edits`
 * as a JSON string, and the pre-0.63 top-level `oldText`/`newText`.
 */
export function prepareEditArguments(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const args: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  if (typeof args.edits === "string") {
    try {
      args.edits = JSON.parse(args.edits);
    } catch {
      // Left as a string: validation then says edits must be an array.
    }
  }
  if (typeof args.oldText === "string" && typeof args.newText === "string") {
    const edits = Array.isArray(args.edits) ? args.edits : [];
    args.edits = [...edits, { oldText: args.oldText, newText: args.newText }];
    delete args.oldText;
    delete args.newText;
  }
  return args;
}

// The JSON Schema the model sees is the canonical object's; the transform only widens what validation accepts.
export const EditInput = v.pipe(v.unknown(), v.transform(prepareEditArguments), CanonicalEditInput);

export type EditSpec = v.InferOutput<typeof EditItem>;

/** The outcome of applying edits to a file's text. */
export interface AppliedEdits {
  newText: string;
  /** 1-based line in the new text where it first differs from the old. */
  firstChangedLine: number;
}

interface Span {
  index: number;
  start: number;
  end: number;
  replacement: string;
}

/**
 * Applies `edits` to `original` (a whole file as read, BOM and CRLF included)
 * or throws the ToolError the model should read. `shown` names the file in
 * messages.
 */
export function applyEdits(original: string, edits: readonly EditSpec[], shown: string): AppliedEdits {
  const several = edits.length > 1;
  const matchable = toMatchable(original);
  const find = createMatcher(matchable.text);
  const spans: Span[] = edits.map((edit, index) => {
    const oldText = normalizeToLf(edit.oldText);
    if (oldText === "") {
      throw new ToolError(several ? `edits[${index}].oldText must not be empty in ${shown}.` : `oldText must not be empty in ${shown}.`);
    }
    const found = find(oldText);
    if (found.kind === "missing") {
      throw new ToolError(
        several
          ? `Could not find edits[${index}] in ${shown}. The oldText must match exactly including all whitespace and newlines.`
          : `Could not find the exact text in ${shown}. The old text must match exactly including all whitespace and newlines.`,
      );
    }
    if (found.kind === "ambiguous") {
      throw new ToolError(
        several
          ? `Found ${found.occurrences} occurrences of edits[${index}] in ${shown}. Each oldText must be unique. Please provide more context to make it unique.`
          : `Found ${found.occurrences} occurrences of the text in ${shown}. The text must be unique. Please provide more context to make it unique.`,
      );
    }
    return {
      index,
      start: matchable.toOriginal(found.start),
      end: matchable.toOriginal(found.end),
      replacement: inFileFormat(edit.newText, matchable.lineEnding),
    };
  });

  spans.sort((a, b) => a.start - b.start);
  for (let k = 1; k < spans.length; k++) {
    const [before, after] = [spans[k - 1]!, spans[k]!];
    if (after.start < before.end) {
      const [i, j] = [Math.min(before.index, after.index), Math.max(before.index, after.index)];
      throw new ToolError(`edits[${i}] and edits[${j}] overlap in ${shown}. Merge them into one edit or target disjoint regions.`);
    }
  }

  // Equivalent to applying the spans in reverse order of position, in one pass.
  const pieces: string[] = [];
  let cursor = 0;
  for (const span of spans) {
    pieces.push(original.slice(cursor, span.start), span.replacement);
    cursor = span.end;
  }
  pieces.push(original.slice(cursor));
  const newText = pieces.join("");
  if (newText === original) {
    throw new ToolError(`No changes made to ${shown}. The ${several ? "replacements" : "replacement"} produced identical content.`);
  }
  return { newText, firstChangedLine: firstDifferingLine(original, newText) };
}

function firstDifferingLine(a: string, b: string): number {
  let i = 0;
  const limit = Math.min(a.length, b.length);
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  let line = 1;
  for (let at = a.indexOf("\n"); at !== -1 && at < i; at = a.indexOf("\n", at + 1)) line++;
  return line;
}

/** Reads the file to edit (an editor may serve its unsaved buffer), refusing what an edit cannot safely rewrite. */
async function readOriginal(workspace: Workspace, target: ChangeTarget, signal: AbortSignal): Promise<{ text: string; info: FileInfo }> {
  const info = await inspectTarget(target, "edit");
  if (!info) throw new ToolError(`File not found: ${target.shown}`);
  if (info.size > MAX_EDIT_FILE_BYTES) {
    throw new ToolError(`${target.shown} is too large to edit (over ${MAX_EDIT_FILE_BYTES / (1024 * 1024)} MiB).`);
  }
  const text = await workspace.readTextFile(target.absolute, signal);
  // Invalid UTF-8 decodes to U+FFFD; writing that back would corrupt bytes the edit never touched.
  if (text.includes("\uFFFD") && !isValidUtf8(await workspace.readFileBytes(target.absolute))) {
    throw new ToolError(`${target.shown} is not valid UTF-8 text; editing it would corrupt it.`);
  }
  return { text, info };
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export const editTool: ToolDefinition<typeof EditInput> = {
  name: "edit",
  description:
    "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region " +
    "of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of " +
    "emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
  promptSnippet: "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
  promptGuidelines: [
    "Use edit for precise changes (edits[].oldText must match exactly and be unique in the file); use write only for new files or complete rewrites.",
    "When changing multiple separate locations in one file, use one edit call with multiple entries in edits[] instead of multiple edit calls.",
    "Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
    "Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large unchanged regions.",
  ],
  schema: EditInput,
  kind: "edit",

  access(input, workspace) {
    return { class: "edit", paths: [toAbsolute(input.path, workspace.cwd)] };
  },

  describe(input, workspace) {
    const absolute = toAbsolute(input.path, workspace.cwd);
    return { title: `Edit ${displayPath(absolute, workspace.cwd)}`, locations: [{ path: absolute }] };
  },

  async preview(input, context: ToolContext): Promise<ToolPreview> {
    const target = await previewChangeTarget(input.path, context);
    if (!target) return { locations: [{ path: toAbsolute(input.path, context.workspace.cwd) }] };
    const { text: original, info } = await readOriginal(context.workspace, target, context.signal);
    const { newText, firstChangedLine } = applyEdits(original, input.edits, target.shown);
    return {
      diff: { path: target.absolute, oldText: original, newText },
      locations: [{ path: target.absolute, line: firstChangedLine }],
      basis: basisOf(info, original),
    };
  },

  async execute(input, { workspace, signal, outsideRootsApproved, preview }): Promise<ToolResult> {
    signal.throwIfAborted();
    const target = await resolveChangeTarget(input.path, workspace, "edited", outsideRootsApproved);
    return await withFileLock(target.real, async () => {
      const { text: original, info } = await readOriginal(workspace, target, signal);
      // Checked last before writing, under the lock: the approved diff was worked out from the basis.
      ensureUnchanged(preview?.basis, info, original, target.shown, "edit");
      const applied = applyEdits(original, input.edits, target.shown);
      await writeThrough(workspace, target, applied.newText, signal);
      const count = input.edits.length;
      return {
        content: [{ type: "text", text: `Successfully replaced ${count} block(s) in ${target.shown}.` }],
        details: { path: target.absolute, edits: count, firstChangedLine: applied.firstChangedLine },
        diff: { path: target.absolute, oldText: original, newText: applied.newText },
        locations: [{ path: target.absolute, line: applied.firstChangedLine }],
      };
    });
  },
};
