/**
 * Writing only what was approved. A write or edit is previewed (and shown
 * to the user for approval) from the file as it was then; the user or the
 * editor may change the file while the request is pending. Right before
 * writing, under the file's lock, the file is compared with that basis, and
 * a file that moved on is left alone: the model gets an error telling it to
 * read the file again.
 * @module
 */
import type { FileInfo } from "../../runtime/files/fs.ts";
import { ToolError, type FileBasis } from "../types.ts";

/** The basis for a file as seen now: `text` as the workspace served it, or undefined when it was not read. */
export function basisOf(info: FileInfo | undefined, text: string | undefined): FileBasis {
  if (!info) return { kind: "absent" };
  return text === undefined ? { kind: "stat", size: info.size, mtimeMs: info.mtimeMs } : { kind: "text", text };
}

/** Whether the file (its stat and, when it could be read, its text) still is what `basis` describes. */
export function matchesBasis(basis: FileBasis, info: FileInfo | undefined, text: string | undefined): boolean {
  switch (basis.kind) {
    case "absent":
      return info === undefined;
    case "text":
      return info !== undefined && text !== undefined && text === basis.text;
    case "stat":
      return info !== undefined && info.size === basis.size && info.mtimeMs === basis.mtimeMs;
  }
}

/** Throws the model's error when the file no longer matches the basis of the approved preview. */
export function ensureUnchanged(basis: FileBasis | undefined, info: FileInfo | undefined, text: string | undefined, shown: string, verb: string): void {
  if (basis === undefined || matchesBasis(basis, info, text)) return;
  const how = basis.kind === "absent" ? "was created" : info === undefined ? "was deleted" : "changed";
  throw new ToolError(
    `${shown} ${how} after this ${verb} was previewed for approval, so it was not written (it would not be what was approved). ` +
      `Read ${shown} again and redo the ${verb} if it is still needed.`,
  );
}
