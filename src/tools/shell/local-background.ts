/**
 * A background command on this machine: the shell runs in its own process
 * group, tied to the agent (it ends when the agent's end closes its pipe,
 * SIGKILL included), its output redacted into a bounded unread buffer, and
 * stopping it ends its whole tree.
 * @module
 */
import { statOrUndefined } from "../../runtime/files/fs.ts";
import type { ShellExit } from "../../runtime/process/child-lifecycle.ts";
import { spawnShell } from "../../runtime/process/spawn-shell.ts";
import { StreamRedactor } from "../../runtime/secrets.ts";
import { ToolError, type BackgroundProcess, type BackgroundRead, type BackgroundRequest } from "../types.ts";
import { UnreadOutput, whenReady } from "./unread-output.ts";

/** Between SIGTERM and SIGKILL when a background command is stopped. */
const STOP_GRACE_MS = 2000;
/** How long a stopped command's output may keep flowing (a child that escaped still holding the pipe). */
const STOP_DRAIN_MS = 500;

/** Bytes of output decoded (and counted) at a time: what the unread buffer may drop as one piece. */
const DECODE_SLICE = 4096;

/** Starts `command` in `cwd` in the background. */
export async function startLocalBackground(request: BackgroundRequest): Promise<BackgroundProcess> {
  const cwdInfo = await statOrUndefined(request.cwd);
  if (!cwdInfo?.isDirectory) throw new ToolError(`Working directory does not exist: ${request.cwd}`);
  const child = await spawnShell({ command: request.command, cwd: request.cwd, tiedToAgent: true, ...(request.sandbox ? { sandbox: request.sandbox } : {}) });
  const unread = new UnreadOutput();
  let exit: ShellExit | undefined;
  void child.exited.then((e) => {
    exit = e;
    unread.wake();
  });
  const decoder = new TextDecoder("utf-8");
  // One redactor over the whole stream: a key split across two reads is still hidden.
  const redactor = new StreamRedactor();
  const pump = (async () => {
    for await (const chunk of child.output) {
      // Decoded in small slices, each counted with the bytes it came from: dropped binary output is counted as written.
      for (let at = 0; at < chunk.length; at += DECODE_SLICE) {
        const slice = chunk.subarray(at, at + DECODE_SLICE);
        unread.push(redactor.push(decoder.decode(slice, { stream: true })), slice.length);
      }
    }
    unread.push(redactor.push(decoder.decode()), 0);
    unread.push(redactor.end(), 0);
  })().catch(() => undefined);

  const read = (): BackgroundRead => ({ ...unread.take(), ...(exit ? { exit } : {}) });
  let stopping: Promise<BackgroundRead> | undefined;
  return {
    ended: child.exited,
    read: async () => read(),
    changed: (ms, signal) => whenReady(unread, () => unread.pending || exit !== undefined, ms, signal),
    stop: () =>
      (stopping ??= (async () => {
        await child.terminate(STOP_GRACE_MS);
        const ended = await child.exited;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const drained = await Promise.race([pump.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_DRAIN_MS)))]);
        clearTimeout(timer);
        if (!drained) child.closeOutput();
        await pump;
        exit ??= ended;
        return read();
      })()),
  };
}
