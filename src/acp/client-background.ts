/**
 * A background command in an editor terminal: `terminal/create`, and the
 * turn goes on. The terminal is shown live in the tool call; reads ask for
 * `terminal/output` and hand out what is new since the last read; stopping
 * sends `terminal/kill`, waits (bounded) for the end, and `terminal/release`.
 * @module
 */
import { env } from "../runtime/process/process.ts";
import { isPosixShell } from "../runtime/process/spawn-shell.ts";
import { redact } from "../runtime/secrets.ts";
import { ToolError, type BackgroundExit, type BackgroundProcess, type BackgroundRead } from "../tools/types.ts";
import { UnreadOutput } from "../tools/unread-output.ts";
import type { AgentContext, CreateTerminalRequest } from "./sdk.ts";

/** Output the editor keeps for a terminal; enough for the tail the model sees. */
export const TERMINAL_OUTPUT_LIMIT = 1024 * 1024;
/** How often a wait asks the editor for news: terminals announce nothing on their own. */
const POLL_MS = 200;
/** How long a stop waits for the killed command to end before releasing its terminal. */
const STOP_WAIT_MS = 3000;
/** What of the last output seen is remembered to find the new part after the editor dropped the start. */
const OVERLAP_CHARS = 256;

/** The `terminal/create` request that runs `command` through a POSIX-style shell (the permission gate judged it as one would read it). */
export function terminalRequest(sessionId: string, command: string, cwd: string): CreateTerminalRequest {
  const user = env("SHELL");
  const shell = user && isPosixShell(user) ? user : "/bin/sh";
  return { sessionId, command: shell, args: ["-c", command], cwd, outputByteLimit: TERMINAL_OUTPUT_LIMIT };
}

/** Starts `request.command` in a new editor terminal that runs on after this call. */
export async function startInEditorTerminal(client: AgentContext, sessionId: string, request: { command: string; cwd: string }): Promise<BackgroundProcess> {
  const handle = await client.createTerminal(terminalRequest(sessionId, request.command, request.cwd));
  const unread = new UnreadOutput();
  let seenLength = 0;
  let seenTail = "";
  let exit: BackgroundExit | undefined;

  /** Asks the editor, moves what is new into `unread`; true when anything changed. */
  const refresh = async (): Promise<boolean> => {
    let current: Awaited<ReturnType<typeof handle.currentOutput>>;
    try {
      current = await handle.currentOutput();
    } catch (error) {
      // The client that runs the terminal left (another client of the session may be asking) or refuses.
      throw new ToolError(`The editor terminal of this command cannot be reached (${error instanceof Error ? error.message : String(error)}); bash_stop forgets it.`);
    }
    const text = current.output;
    let fresh: string;
    if (!current.truncated && text.length >= seenLength) fresh = text.slice(seenLength);
    else {
      const at = seenTail === "" ? -1 : text.lastIndexOf(seenTail);
      fresh = at === -1 ? text : text.slice(at + seenTail.length);
    }
    seenLength = text.length;
    seenTail = text.slice(-OVERLAP_CHARS);
    const ended = current.exitStatus && !exit ? { code: current.exitStatus.exitCode ?? null, signal: current.exitStatus.signal ?? null } : undefined;
    if (ended) exit = ended;
    if (fresh !== "") unread.push(redact(fresh));
    return fresh !== "" || ended !== undefined;
  };
  const read = async (): Promise<BackgroundRead> => {
    await refresh();
    return { ...unread.take(), ...(exit ? { exit } : {}) };
  };

  let stopping: Promise<BackgroundRead> | undefined;
  return {
    terminalId: handle.id,
    read,
    async changed(ms, signal) {
      const deadline = Date.now() + ms;
      for (;;) {
        if ((await refresh()) || unread.pending || exit || signal.aborted || Date.now() >= deadline) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
          function done() {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            resolve();
          }
          signal.addEventListener("abort", done, { once: true });
        });
      }
    },
    stop: () =>
      (stopping ??= (async () => {
        try {
          if (!exit) {
            await handle.kill();
            let timer: ReturnType<typeof setTimeout> | undefined;
            const ended = await Promise.race([
              handle.waitForExit().then((status) => ({ code: status.exitCode ?? null, signal: status.signal ?? null })),
              new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), STOP_WAIT_MS))),
            ]);
            clearTimeout(timer);
            if (ended) exit ??= ended;
          }
          return await read();
        } catch {
          // The editor is gone or refuses: what was read stays the model's; the terminal is the editor's to end.
          return { ...unread.take(), ...(exit ? { exit } : {}) };
        } finally {
          await handle.release().catch(() => undefined);
        }
      })()),
  };
}
