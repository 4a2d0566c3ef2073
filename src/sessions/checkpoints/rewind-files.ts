/**
 * `_session/rewind_files`: every file the agent changed from a user message
 * on goes back to how it was before it (see restore-files.ts for what is
 * never overwritten). A dry run only lists. A real one cancels the running
 * turn first (it may be writing) and runs holding the session's turn; it is
 * journaled, so a later file rewind does not undo the same changes twice.
 * @module
 */
import type { LiveSession } from "../live-session.ts";
import type { AgentServices } from "../services.ts";
import { SessionError } from "../session-error.ts";
import { rewindPoints, type RewindPoint } from "../rewind/rewind-points.ts";
import { fileChangesSince } from "./file-changes.ts";
import { restoreFiles, type EditorFiles, type FileOutcome } from "./restore-files.ts";
import { ObjectStore } from "./object-store.ts";
import { CHECKPOINT_FOLDER } from "./command-checkpoints.ts";
import { join } from "../../runtime/files/path.ts";

/** Who asks, for which point, and whether only to list. */
export interface RewindFilesRequest {
  clientId: string;
  signal: AbortSignal;
  pick: (points: readonly RewindPoint[]) => RewindPoint;
  dryRun: boolean;
  /** The editor's side of the files, when it reads or writes them for the agent. */
  editor?: EditorFiles;
}

/** Lists (dry run) or restores the files changed from the point on. Refused (`invalid_params`) when the point names no message. */
export async function rewindFiles(services: AgentServices, live: LiveSession, request: RewindFilesRequest): Promise<FileOutcome[]> {
  if (request.dryRun) return await filesFrom(services, live, request.pick, true, request.editor);
  request.pick(await rewindPoints((await services.store.read(live.id)).entries));
  live.cancel("the files are being rewound");
  const done = await live.claimTurn({ clientId: request.clientId, signal: request.signal, steerable: false }, () => filesFrom(services, live, request.pick, false, request.editor));
  if (done === "cancelled") throw new SessionError("internal", "the file rewind was cancelled before it ran; no file was changed", { sessionId: live.id });
  return done;
}

/** Lists or restores the files changed from the point on; a real run must hold the session's turn (a built-in command does). */
export async function filesFrom(services: AgentServices, live: LiveSession, pick: (points: readonly RewindPoint[]) => RewindPoint, dryRun: boolean, editor?: EditorFiles): Promise<FileOutcome[]> {
  if (!dryRun) await live.recorder.settle();
  const stored = (await services.store.read(live.id)).entries;
  const point = pick(await rewindPoints(stored));
  const store = new ObjectStore(join(await services.store.outputDirectory(live.id), CHECKPOINT_FOLDER));
  const outcomes = await restoreFiles(fileChangesSince(stored, point.from), live.agent.workspace.roots, (id) => store.get(id), dryRun, editor);
  if (!dryRun) await live.recorder.write({ type: "files_rewound", messageId: point.messageId, from: point.from }, true);
  return outcomes;
}
