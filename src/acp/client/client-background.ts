/**
 * A background command in an editor terminal: `terminal/create`, and the
 * turn goes on. The terminal is shown live in the tool call; reads ask for
 * `terminal/output` and hand out what is new since the last read; stopping
 * sends `terminal/kill`, waits (bounded) for the end, and `terminal/release`.
 * @module
 */
import { env } from "../../runtime/process/process.ts";
import { isPosixShell } from "../../runtime/process/spawn-shell.ts";
import { abortReason } from "../../runtime/abort-reason.ts";
import { StreamRedactor } from "../../runtime/secrets.ts";
import type { SandboxSpec } from "../../runtime/sandbox/sandbox-spec.ts";
import { ToolError, type BackgroundExit, type BackgroundProcess, type BackgroundRead, type BackgroundRequest } from "../../tools/types.ts";
import { UnreadOutput } from "../../tools/shell/unread-output.ts";
import type { AgentContext, CreateTerminalRequest } from "../sdk.ts";
import { newTerminalText, type SeenOutput } from "./terminal-new-text.ts";

/** Output the editor keeps for a terminal; enough for the tail the model sees. */
export const TERMINAL_OUTPUT_LIMIT = 1024 * 1024;
/** How often a wait asks the editor for news: terminals announce nothing on their own. */
const POLL_MS = 200;
/** How long a stop waits for the killed command to end before releasing its terminal. */
const STOP_WAIT_MS = 3000;
/** How long one request about a terminal may wait for the editor's answer: an editor that never answers must not hold the turn. */
const CLIENT_ANSWER_MS = 10_000;

/** `request`'s answer, or a rejection when `signal` aborts (its reason) or the editor takes longer than `CLIENT_ANSWER_MS`. */
async function answered<T>(request: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) throw abortReason(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      request,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CLIENT_ANSWER_MS / 1000} s`)), CLIENT_ANSWER_MS);
        if (signal) signal.addEventListener("abort", (onAbort = () => reject(abortReason(signal))), { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The `terminal/create` request that runs `command` through a POSIX-style shell (the permission gate
 * judged it as one would read it); a confined command runs behind the sandbox's command line, so the
 * editor runs the sandbox and the shell inside it.
 */
export async function terminalRequest(sessionId: string, command: string, cwd: string, sandbox?: SandboxSpec): Promise<CreateTerminalRequest> {
  const user = env("SHELL");
  const shell = user && isPosixShell(user) ? user : "/bin/sh";
  const [program, ...args] = sandbox ? await (await import("../../runtime/sandbox/confined-command.ts")).confinedCommand(sandbox, shell, command) : [shell, "-c", command];
  return { sessionId, command: program!, args, cwd, outputByteLimit: TERMINAL_OUTPUT_LIMIT };
}

/** Starts `request.command` in a new editor terminal that runs on after this call. */
export async function startInEditorTerminal(client: AgentContext, sessionId: string, request: BackgroundRequest): Promise<BackgroundProcess> {
  const handle = await client.createTerminal(await terminalRequest(sessionId, request.command, request.cwd, request.sandbox));
  const unread = new UnreadOutput();
  // One redactor over the whole stream: a key split across two refreshes is still hidden.
  const redactor = new StreamRedactor();
  let seen: SeenOutput = { text: "" };
  let exit: BackgroundExit | undefined;

  /** Asks the editor, moves what is new into `unread`; true when anything changed. */
  const refresh = async (signal?: AbortSignal): Promise<boolean> => {
    let current: Awaited<ReturnType<typeof handle.currentOutput>>;
    try {
      current = await answered(handle.currentOutput(), signal);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      // The client that runs the terminal left (another client of the session may be asking) or refuses.
      throw new ToolError(`The editor terminal of this command cannot be reached (${error instanceof Error ? error.message : String(error)}); bash_stop forgets it.`);
    }
    const { fresh, seen: now } = newTerminalText(seen, current.output, current.truncated);
    seen = now;
    const ended = current.exitStatus && !exit ? { code: current.exitStatus.exitCode ?? null, signal: current.exitStatus.signal ?? null } : undefined;
    if (ended) exit = ended;
    if (fresh !== "") unread.push(redactor.push(fresh));
    // Nothing more will come: what the redactor held back is output too.
    if (exit) unread.push(redactor.end());
    return fresh !== "" || ended !== undefined;
  };
  const read = async (signal?: AbortSignal): Promise<BackgroundRead> => {
    await refresh(signal);
    return { ...unread.take(), ...(exit ? { exit } : {}) };
  };

  let stopping: Promise<BackgroundRead> | undefined;
  return {
    terminalId: handle.id,
    read,
    async changed(ms, signal) {
      const deadline = Date.now() + ms;
      for (;;) {
        if (signal.aborted) return;
        let news: boolean;
        try {
          news = await refresh(signal);
        } catch (error) {
          // A cancel ends the wait, not the command.
          if (signal.aborted) return;
          throw error;
        }
        if (news || unread.pending || exit || Date.now() >= deadline) return;
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
    stop: (signal) =>
      (stopping ??= (async () => {
        try {
          if (!exit) {
            await answered(handle.kill(), signal);
            let timer: ReturnType<typeof setTimeout> | undefined;
            const ended = await Promise.race([
              handle.waitForExit().then((status) => ({ code: status.exitCode ?? null, signal: status.signal ?? null })),
              new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), STOP_WAIT_MS))),
            ]);
            clearTimeout(timer);
            if (ended) exit ??= ended;
          }
          return await read(signal);
        } catch {
          // The editor is gone, refuses, does not answer, or the call was cancelled: what was read stays the model's;
          // the terminal is the editor's to end.
          unread.push(redactor.end());
          return { ...unread.take(), ...(exit ? { exit } : {}) };
        } finally {
          await answered(handle.release(), signal).catch(() => undefined);
        }
      })()),
  };
}
