/**
 * The checkpoint step around commands (`bash`, and any other tool that runs
 * one): the session's folders are snapshotted right before the command and
 * right after it, and the files it created, changed or deleted are recorded
 * with ids of kept copies of their content before and after, so a file
 * rewind can put them back. A change no copy could be kept of is recorded as
 * such and the user is told. A background command is followed to its end,
 * and what it changed after its call returned is recorded then.
 * @module
 */
import { lazyStep, type CallStep } from "../../engine/call-steps.ts";
import type { EventSink } from "../../engine/events.ts";

/** Where a session's copies are kept (its private folder, made on first use). */
export type CheckpointFolder = () => Promise<string>;

/** The sub-folder of a session's private folder that holds its checkpoint store. */
export const CHECKPOINT_FOLDER = "checkpoints";

/**
 * The step for one session; `folder` is its checkpoint store's folder, `late` where the changes a background command
 * made are reported at its end (after its call, maybe after its turn: the session's journal and clients). The
 * snapshot code loads with the first command.
 */
export function commandCheckpoints(folder: CheckpointFolder, late: EventSink): CallStep {
  return lazyStep(
    (call) => call.tool.kind === "execute",
    () => import("./command-snapshots.ts").then((m) => m.snapshotStep(folder, late)),
  );
}
