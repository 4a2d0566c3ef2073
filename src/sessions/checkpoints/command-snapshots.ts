/**
 * The work of the checkpoint step around commands (see
 * command-checkpoints.ts): a snapshot before, one after, and the difference
 * recorded as the command's file changes; a change no copy could be kept of
 * is named in a notice. A call that starts a background command is followed
 * to the command's end: one more snapshot then, and what changed since the
 * call returned is recorded under the call, so it counts from the prompt that
 * started it (see file-changes.ts).
 * @module
 */
import type { CallStep, StepCall } from "../../engine/call-steps.ts";
import type { EventSink, FileVersionChange } from "../../engine/events.ts";
import { ObjectStore } from "./object-store.ts";
import { lstat } from "../../runtime/files/fs.ts";
import { log } from "../../runtime/log.ts";
import { hiddenIn, snapshotFolders, type FolderSnapshot, type Snapshot } from "./folder-snapshot.ts";

/** The snapshotting step for one session; `folder` is its checkpoint store's folder, `late` where a background command's changes go at its end. */
export function snapshotStep(folder: () => Promise<string>, late: EventSink): CallStep {
  let store: ObjectStore | undefined;
  // The last snapshot taken: files unchanged since are not read again.
  let last: Snapshot = new Map();
  // Ignore files whose rules were not applied, each named once a session.
  const told = new Set<string>();
  const snapshot = async (roots: readonly string[], kept: ObjectStore, signal = new AbortController().signal) => {
    const taken = await snapshotFolders(roots, kept, last, signal);
    last = taken.files;
    return taken;
  };
  const tell = async (emit: EventSink, snapshots: readonly FolderSnapshot[]) => {
    const untold = [...new Set(snapshots.flatMap((s) => s.unappliedRules))].filter((notice) => !told.has(notice));
    for (const notice of untold) {
      told.add(notice);
      await emit({ type: "notice", text: `${notice}; the files they ignore are snapshotted around commands like any other.` });
    }
  };
  return {
    async before(call: StepCall) {
      store ??= new ObjectStore(await folder());
      const kept = store;
      const roots = call.workspace.roots;
      const running = new Set(call.backgroundCommands?.ids() ?? []);
      const before = await snapshot(roots, kept, call.signal);
      return async () => {
        // Taken even when the command was stopped: what it changed before it stopped is still its change.
        const after = await snapshot(roots, kept);
        await report(call.emit, call.toolCallId, before, after);
        await tell(call.emit, [before, after]);
        // A background command this call started: followed to its end, whenever that comes (an event, not a timer);
        // a session that closes ends it and waits for this record before its journal closes.
        for (const id of call.backgroundCommands?.ids() ?? []) {
          if (running.has(id)) continue;
          call.backgroundCommands!.afterEnd(id, async () => {
            try {
              const end = await snapshot(roots, kept);
              const changed = await report(late, call.toolCallId, after, end);
              if (changed > 0) await late({ type: "notice", text: `Background command ${id} ended; the ${changed} file(s) changed in the session's folders while it ran are recorded as its changes, so a rewind to before the prompt that started it puts them back.` });
              await tell(late, [end]);
            } catch (error) {
              log.warn(`the files background command ${id} changed were not recorded`, error);
            }
          });
        }
      };
    },
  };
}

/** Records (and reports) what changed between two snapshots as the call's file changes; answers how many files changed. */
async function report(emit: EventSink, toolCallId: string, beforeSnapshot: FolderSnapshot, afterSnapshot: FolderSnapshot): Promise<number> {
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
    await emit({ type: "files_changed", toolCallId, files, ...(unkept.length > 0 ? { unkept } : {}) });
  }
  if (unkept.length > 0) {
    const names = unkept.slice(0, 5).map((u) => `${u.path} (${u.reason})`).join(", ");
    await emit({ type: "notice", text: `A command changed files no copy could be kept of, so a rewind cannot put them back: ${names}${unkept.length > 5 ? ` and ${unkept.length - 5} more` : ""}.` });
  }
  const truncated = beforeSnapshot.truncated || afterSnapshot.truncated;
  if (truncated) await emit({ type: "notice", text: "The session's folders hold too many files to snapshot them all around commands; a rewind may miss some changes." });
  return files.length + unkept.length;
}

/** Whether a path `snapshot` does not hold was absent then, rather than left out as ignored (a truncated snapshot's caller checks the disk). */
function knownAbsent(snapshot: FolderSnapshot, path: string): boolean {
  return snapshot.hiddenComplete && !hiddenIn(snapshot, path);
}
