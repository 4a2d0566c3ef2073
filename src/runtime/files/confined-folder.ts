/**
 * Listing a folder of files the agent reads on its own (prompt templates;
 * later command files and skills) under the rules of `readConfinedFile`: the
 * folder itself and every entry are resolved and must stay inside the areas,
 * links included; only regular files are listed; depth, entries examined and
 * files listed are bounded, and a folder is never visited twice (link loops).
 * The files found are then read with `readConfinedFile`, which checks again.
 * @module
 */
import fs from "node:fs/promises";
import { fileKind } from "./bounded-read.ts";
import { describeSkip, locateConfined, type ConfinedReadFailure } from "./confined-file.ts";
import { join } from "./path.ts";

/** A regular file found inside the areas: its path as found, and the folder names from the walk's start down to it. */
export interface ConfinedFileEntry {
  path: string;
  segments: string[];
}

/** Why an entry of a folder was not listed: what `readConfinedFile` refuses, or a bound of the walk. */
export type FolderSkip =
  | ConfinedReadFailure
  | { ok: false; reason: "not-a-folder" }
  | { ok: false; reason: "too-deep" }
  | { ok: false; reason: "too-many" };

/** Something in the folder that was not listed, and why. */
export interface SkippedEntry {
  path: string;
  failure: FolderSkip;
}

/** What to list. */
export interface ConfinedFolderOptions {
  /** Resolved folders (see `resolveAreas`) the folder and every entry must lead into. */
  areas: readonly string[];
  /** Files whose name this accepts are listed; others are passed over silently (folders are always entered). */
  accept(name: string): boolean;
  /** Levels of sub-folders entered below the start (0: the folder only). */
  maxDepth: number;
  /** Files listed at most; the walk stops there. */
  maxFiles: number;
  /** Directory entries examined at most, over the whole walk (a folder of a million entries costs no more). */
  maxEntries: number;
}

/** The listing: files in walk order (names sorted per folder), what was passed over with a reason, and the folders read. */
export interface ConfinedFolder {
  files: ConfinedFileEntry[];
  skipped: SkippedEntry[];
  /** Every folder whose entries were read (as found), so a caller can notice a file added or removed there. */
  folders: string[];
}

interface Pending {
  path: string;
  realPath: string;
  segments: string[];
}

/** Lists the regular files below `folder` that `accept` takes; names starting with `.` are passed over. */
export async function listConfinedFiles(folder: string, options: ConfinedFolderOptions): Promise<ConfinedFolder> {
  const result: ConfinedFolder = { files: [], skipped: [], folders: [] };
  const start = await locateConfined(folder, options.areas);
  if (!start.ok) {
    if (start.reason !== "missing") result.skipped.push({ path: folder, failure: start });
    return result;
  }
  if (!start.info.isDirectory()) {
    result.skipped.push({ path: folder, failure: { ok: false, reason: "not-a-folder" } });
    return result;
  }
  const visited = new Set<string>([start.realPath]);
  const stack: Pending[] = [{ path: folder, realPath: start.realPath, segments: [] }];
  let examined = 0;
  while (stack.length > 0) {
    const current = stack.pop()!;
    result.folders.push(current.path);
    // One name more than the budget allows tells whether the folder was cut short.
    const remaining = options.maxEntries - examined;
    const names = await readNames(current.realPath, remaining + 1);
    const cut = names.length > remaining;
    if (cut) names.length = remaining;
    examined += names.length;
    const subfolders: Pending[] = [];
    for (const name of names) {
      if (name.startsWith(".")) continue;
      const path = join(current.path, name);
      if (result.files.length >= options.maxFiles) {
        // One file more than may be listed: said once, so a folder of thousands is not cut off silently.
        if (options.accept(name)) {
          result.skipped.push({ path: folder, failure: { ok: false, reason: "too-many" } });
          return result;
        }
        continue;
      }
      const entry = await locateConfined(join(current.realPath, name), options.areas);
      if (!entry.ok) {
        if (entry.reason !== "missing" && (options.accept(name) || entry.reason === "outside" || entry.reason === "dangling")) {
          result.skipped.push({ path, failure: entry });
        }
        continue;
      }
      if (entry.info.isDirectory()) {
        if (visited.has(entry.realPath)) continue;
        visited.add(entry.realPath);
        if (current.segments.length >= options.maxDepth) result.skipped.push({ path, failure: { ok: false, reason: "too-deep" } });
        else subfolders.push({ path, realPath: entry.realPath, segments: [...current.segments, name] });
      } else if (options.accept(name)) {
        if (entry.info.isFile()) result.files.push({ path, segments: current.segments });
        else result.skipped.push({ path, failure: { ok: false, reason: "not-regular", detail: fileKind(entry.info) } });
      }
    }
    if (cut || (examined >= options.maxEntries && (stack.length > 0 || subfolders.length > 0))) {
      result.skipped.push({ path: folder, failure: { ok: false, reason: "too-many" } });
      return result;
    }
    // Pushed in reverse so that folders are visited in name order.
    for (let i = subfolders.length - 1; i >= 0; i--) stack.push(subfolders[i]!);
  }
  return result;
}

/** Up to `limit` entry names of a folder, sorted; none when it cannot be read. */
async function readNames(folder: string, limit: number): Promise<string[]> {
  const names: string[] = [];
  try {
    const dir = await fs.opendir(folder);
    try {
      for (let entry = await dir.read(); entry !== null && names.length < limit; entry = await dir.read()) names.push(entry.name);
    } finally {
      await dir.close().catch(() => undefined);
    }
  } catch {
    return names.sort();
  }
  return names.sort();
}

/** Why an entry was not listed, in words that finish "… was not read: " (see `describeSkip`). */
export function describeFolderSkip(failure: FolderSkip, areaName: string, budget: number): string {
  if (failure.reason === "not-a-folder") return "it is not a folder";
  if (failure.reason === "too-deep") return "it is nested deeper than the folders that are read";
  if (failure.reason === "too-many") return "it holds too many entries; the rest were not read";
  return describeSkip(failure, areaName, budget);
}
