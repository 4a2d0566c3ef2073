/**
 * How an entry is written: one JSON line with `type` first and the
 * journal's `at` timestamp second. Shared by both stores so they store and
 * return exactly the same thing.
 * @module
 */
import { redactValue } from "../runtime/secrets.ts";
import type { StoredEntry } from "./types.ts";

/**
 * One entry as the line the journal writes: `type`, then `at` (kept when the
 * caller gave one, e.g. when copying a fork), then the rest, with every
 * registered secret hidden (before serialisation, so JSON escaping cannot
 * disguise one). Throws TypeError for a non-entry.
 */
export function entryLine(entry: StoredEntry): string {
  if (typeof entry !== "object" || entry === null || typeof entry.type !== "string") {
    throw new TypeError('a stored entry must be an object with a string "type"');
  }
  const { type, at, ...rest } = entry;
  return `${JSON.stringify(redactValue({ type, at: typeof at === "string" ? at : new Date().toISOString(), ...rest }))}\n`;
}
