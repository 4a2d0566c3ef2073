/**
 * A session's archived flag on disk: `<id>.archived` beside `<id>.jsonl`, a
 * regular file that exists while the session is archived. Kept out of the
 * journal so that the flag is exact however long the conversation grows
 * (list reads only the ends of a journal), and so that archiving never needs
 * the session's lock. See docs/storage.md ("Archived sessions").
 * @module
 */
import { createExclusive, errorCode, lstat, isNotFound, removeFile, syncDirectoryEntries } from "../runtime/files/fs.ts";
import { dirname } from "../runtime/files/path.ts";
import type { ArchiveFilter } from "./types.ts";

/** The marker's suffix, in place of `.jsonl`. */
export const ARCHIVED_SUFFIX = ".archived";
const JOURNAL_SUFFIX = ".jsonl";

/** The marker of the journal at `file`. */
export function archiveMarkerOf(file: string): string {
  return `${file.slice(0, -JOURNAL_SUFFIX.length)}${ARCHIVED_SUFFIX}`;
}

/** Whether `value` is one of the archive filters. */
export function isArchiveFilter(value: unknown): value is ArchiveFilter {
  return value === "exclude" || value === "include" || value === "only";
}

/** Whether a summary with this archived flag passes `filter`. */
export function passesArchiveFilter(archived: boolean, filter: ArchiveFilter = "exclude"): boolean {
  return filter === "include" || archived === (filter === "only");
}

/**
 * Sets or clears the marker of the journal at `file`, durably (the folder
 * entry is synced). Setting it twice, or clearing an absent one, succeeds. A
 * marker path taken by something other than a regular file (a folder, a
 * link) does not count as a marker: clearing leaves it alone, setting fails.
 */
export async function writeArchiveMarker(file: string, archived: boolean): Promise<void> {
  const marker = archiveMarkerOf(file);
  if (archived) {
    try {
      await createExclusive(marker, `${JSON.stringify({ archivedAt: new Date().toISOString() })}\n`, 0o600);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
      if (!(await lstat(marker)).isFile) throw new Error(`${marker} exists and is not a regular file`);
      return;
    }
  } else {
    const info = await lstat(marker).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (!info?.isFile) return;
    await removeFile(marker);
  }
  await syncDirectoryEntries(dirname(marker));
}
