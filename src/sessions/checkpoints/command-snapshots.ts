/**
 * The work of the checkpoint step around commands (see
 * command-checkpoints.ts): a snapshot before, one after, and the difference
 * recorded as the command's file changes; a change no copy could be kept of
 * is named in a notice.
 * @module
 */
import type { CallStep, StepCall } from "../../engine/call-steps.ts";
import type { FileVersionChange } from "../../engine/events.ts";
import { ObjectStore } from "./object-store.ts";
import { lstat } from "../../runtime/files/fs.ts";
import { hiddenIn, snapshotFolders, type FolderSnapshot, type Snapshot } from "./folder-snapshot.ts";

/** The snapshotting step for one session; `folder` is its checkpoint store's folder. */
export function snapshotStep(folder: () => Promise<string>): CallStep {
  let store: ObjectStore | undefined;
  // The last snapshot taken: files unchanged since are not read again.
  let last: Snapshot = new Map();
  // Ignore files whose rules were not applied, each named once a session.
  const told = new Set<string>();
  return {
    async before(call: StepCall) {
      store ??= new ObjectStore(await folder());
      const kept = store;
      const roots = call.workspace.roots;
      const before = await snapshotFolders(roots, kept, last, call.signal);
      last = before.files;
      return async () => {
        // Taken even when the command was stopped: what it changed before it stopped is still its change.
        const after = await snapshotFolders(roots, kept, last, new AbortController().signal);
        last = after.files;
        await report(call, before, after);
        const untold = [...new Set([...before.unappliedRules, ...after.unappliedRules])].filter((notice) => !told.has(notice));
        for (const notice of untold) {
          told.add(notice);
          await call.emit({ type: "notice", text: `${notice}; the files they ignore are snapshotted around commands like any other.` });
        }
      };
    },
  };
}

async function report(call: StepCall, beforeSnapshot: FolderSnapshot, afterSnapshot: FolderSnapshot): Promise<void> {
  const files: FileVersionChange[] = [];
  const unkept: Array<{ path: string; reason: string }> = [];
  const [before, after] = [beforeSnapshot.files, afterSnapshot.files];
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(path);
    const now = after.get(path);
    if (was && now && was === now) continue;
    // Seen at one end only because the ignore rules changed (or a skipped folder): not the command's creation or deletion.
    if (!was && !knownAbsent(beforeSnapshot, path)) continue;
    if (!now && (!knownAbsent(afterSnapshot, path) || (afterSnapshot.truncated && (await lstat(path).catch(() => undefined))))) continue;
    if (was?.id !== undefined && was.id === now?.id) continue;
    const reason = was?.unkept ?? now?.unkept;
    if (reason !== undefined) unkept.push({ path, reason });
    else files.push({ path, before: was?.id ?? null, after: now?.id ?? null });
  }
  if (files.length > 0 || unkept.length > 0) {
    await call.emit({ type: "files_changed", toolCallId: call.toolCallId, files, ...(unkept.length > 0 ? { unkept } : {}) });
  }
  if (unkept.length > 0) {
    const names = unkept.slice(0, 5).map((u) => `${u.path} (${u.reason})`).join(", ");
    await call.emit({ type: "notice", text: `A command changed files no copy could be kept of, so a rewind cannot put them back: ${names}${unkept.length > 5 ? ` and ${unkept.length - 5} more` : ""}.` });
  }
  const truncated = beforeSnapshot.truncated || afterSnapshot.truncated;
  if (truncated) await call.emit({ type: "notice", text: "The session's folders hold too many files to snapshot them all around commands; a rewind may miss some changes." });
}

/** Whether a path `snapshot` does not hold was absent then, rather than left out as ignored (a truncated snapshot's caller checks the disk). */
function knownAbsent(snapshot: FolderSnapshot, path: string): boolean {
  return snapshot.hiddenComplete && !hiddenIn(snapshot, path);
}
