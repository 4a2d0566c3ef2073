/**
 * Paging for `list`: a stable order (updatedAt descending, then id) and an
 * opaque cursor naming the last item shown, so the next page starts strictly
 * after it even when sessions share a timestamp.
 * @module
 */
import { passesArchiveFilter } from "./archive-marker.ts";
import { StoreError, type ListOptions, type SessionSummary } from "./types.ts";

/** Page size when `list` is given no limit. */
export const DEFAULT_LIST_LIMIT = 50;

interface CursorPosition {
  updatedAt: string;
  id: string;
}

/** base64url of `{"u": updatedAt, "i": id}`; clients must treat it as opaque. */
export function encodeCursor(position: CursorPosition): string {
  const bytes = new TextEncoder().encode(JSON.stringify({ u: position.updatedAt, i: position.id }));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Throws StoreError("invalid_cursor") for anything `encodeCursor` did not make. */
export function decodeCursor(cursor: string): CursorPosition {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error("not base64url");
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (typeof value === "object" && value !== null) {
      const { u, i } = value as { u?: unknown; i?: unknown };
      if (typeof u === "string" && typeof i === "string" && !Number.isNaN(Date.parse(u))) return { updatedAt: u, id: i };
    }
  } catch {
    // Reported below with one message whatever went wrong.
  }
  throw new StoreError("invalid_cursor", "invalid cursor");
}

/** The list order: newest first, ties broken by id so the order is total. */
export function compareSummaries(a: CursorPosition, b: CursorPosition): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Filters, sorts and cuts one page out of every summary. */
export function pageOf(
  all: readonly SessionSummary[],
  options: ListOptions = {},
): { sessions: SessionSummary[]; nextCursor?: string } {
  return pageOfSorted([...all].sort(compareSummaries), options);
}

/** Cuts one page out of summaries already in list order (`compareSummaries`), starting strictly after the cursor; `cwd` and `archived` filter before the cut. */
export function pageOfSorted(
  sorted: readonly SessionSummary[],
  options: ListOptions = {},
): { sessions: SessionSummary[]; nextCursor?: string } {
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const limit = normaliseLimit(options.limit);
  const sessions: SessionSummary[] = [];
  let more = false;
  for (let i = after === undefined ? 0 : firstAfter(sorted, after); i < sorted.length; i++) {
    const summary = sorted[i] as SessionSummary;
    if (options.cwd !== undefined && summary.cwd !== options.cwd) continue;
    if (!passesArchiveFilter(summary.archived, options.archived)) continue;
    if (sessions.length === limit) {
      more = true;
      break;
    }
    sessions.push(summary);
  }
  const last = sessions.at(-1);
  if (more && last) return { sessions, nextCursor: encodeCursor(last) };
  return { sessions };
}

/** The index of the first summary that comes strictly after `position` in list order (binary search). */
function firstAfter(sorted: readonly SessionSummary[], position: CursorPosition): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareSummaries(sorted[middle] as SessionSummary, position) > 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

function normaliseLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIST_LIMIT;
  return Math.max(1, Math.floor(limit));
}
