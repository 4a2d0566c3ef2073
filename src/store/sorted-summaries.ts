/**
 * The list order of summaries, kept between calls: sorting tens of
 * thousands of summaries for every page would cost more than finding them.
 * Reused while every part (one folder's summaries) is the very array it was
 * made from; the list index hands out a new array whenever a folder changed.
 * @module
 */
import { compareSummaries } from "./list-cursor.ts";
import type { SessionSummary } from "./types.ts";

/** How many sorted lists are kept (all folders, plus the most recent cwd filters). */
const MAX_KEPT = 16;

/** Sorted lists by key ("" for all folders, a folder for one cwd). */
export class SortedSummaries {
  readonly #kept = new Map<string, { parts: ReadonlyArray<readonly SessionSummary[]>; sorted: SessionSummary[] }>();

  /** The summaries of `parts`, in list order; the kept copy when `parts` are the same arrays as last time for `key`. */
  of(key: string, parts: ReadonlyArray<readonly SessionSummary[]>): SessionSummary[] {
    const kept = this.#kept.get(key);
    if (kept && kept.parts.length === parts.length && kept.parts.every((part, i) => part === parts[i])) return kept.sorted;
    const sorted = parts.flat().sort(compareSummaries);
    this.#kept.delete(key);
    this.#kept.set(key, { parts, sorted });
    if (this.#kept.size > MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value as string);
    return sorted;
  }
}
