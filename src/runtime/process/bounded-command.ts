/**
 * Running a short-lived shell command to completion with bounds on
 * everything: its input is written to stdin, stdout and stderr are kept
 * apart and each kept up to a byte budget (the rest is read and dropped, so
 * a command printing without end never blocks on a full pipe), and it has a
 * deadline. On the deadline, on cancel, and as soon as the shell itself has
 * exited, its whole process tree is ended (see process-tree.ts): a child it
 * forked and left running does not outlive it, nor hold its pipes open.
 * It is tied to the agent (agent-watchdog.ts): an agent killed outright
 * (SIGKILL) does not leave it, or what it started, running.
 * @module
 */
import { withDeadline } from "../deadline-signal.ts";
import { spawnProcess, type SpawnedProcess } from "./spawn-program.ts";

export interface BoundedCommandOptions {
  command: string;
  cwd: string;
  /** The whole environment of the command. */
  env: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input: string;
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr, each. */
  outputBudget: number;
  signal: AbortSignal;
  /** The POSIX shell that runs the command. */
  shell: string;
}

/** How the command ended. `code` is null when it was ended by a signal, a timeout or a cancel. */
export interface BoundedCommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Bytes of output dropped past the budget (both streams). */
  dropped: number;
  timedOut: boolean;
  cancelled: boolean;
  /** Why it could not start at all. */
  startFailure?: string;
}

/** Runs `options.command` with `<shell> -c` and waits for it; never throws. */
export async function runBoundedCommand(options: BoundedCommandOptions): Promise<BoundedCommandResult> {
  const deadline = withDeadline(options.signal, options.timeoutMs);
  const ended = (partial: Partial<BoundedCommandResult>): BoundedCommandResult => ({
    code: null, stdout: "", stderr: "", dropped: 0, timedOut: deadline.timedOut(), cancelled: options.signal.aborted, ...partial,
  });
  let child: SpawnedProcess;
  try {
    child = await spawnProcess({ command: options.shell, args: ["-c", options.command], cwd: options.cwd, env: options.env, tiedToAgent: true });
  } catch (error) {
    deadline.release();
    return ended({ startFailure: error instanceof Error ? error.message : String(error) });
  }
  try {
    const stopped = new Promise<void>((resolve) => {
      if (deadline.signal.aborted) resolve();
      else deadline.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    // A command that never reads its stdin must not stall us: the write is not awaited past its exit.
    void child.write(new TextEncoder().encode(options.input)).then(() => child.closeStdin(), () => undefined);
    const stdout = new BoundedText(options.outputBudget);
    const stderr = new BoundedText(options.outputBudget);
    const reading = Promise.all([drain(child.stdout, stdout, stopped), drain(child.stderr, stderr, stopped)]);
    const exit = await Promise.race([child.exited, stopped.then(() => undefined)]);
    // Whatever it left behind goes now; its pipes then close and the reads end.
    await child.terminate();
    await reading;
    return ended({ code: exit?.code ?? null, stdout: stdout.text(), stderr: stderr.text(), dropped: stdout.dropped + stderr.dropped });
  } finally {
    deadline.release();
  }
}

/** Text kept up to a byte budget; what comes after is counted, not kept. */
class BoundedText {
  readonly #chunks: Uint8Array[] = [];
  #kept = 0;
  dropped = 0;
  constructor(readonly budget: number) {}

  push(chunk: Uint8Array): void {
    const room = this.budget - this.#kept;
    if (room > 0) {
      const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
      this.#chunks.push(part);
      this.#kept += part.byteLength;
    }
    this.dropped += Math.max(0, chunk.byteLength - Math.max(0, room));
  }

  text(): string {
    // A character cut in two at the budget is dropped rather than shown as a replacement character.
    const decoder = new TextDecoder();
    return this.#chunks.map((c) => decoder.decode(c, { stream: true })).join("");
  }
}

/** Reads `stream` into `into` until it ends or `stopped` settles (a process that escaped its tree may hold the pipe open). */
async function drain(stream: AsyncIterable<Uint8Array>, into: BoundedText, stopped: Promise<void>): Promise<void> {
  const reader = stream[Symbol.asyncIterator]();
  const stop = stopped.then(() => ({ done: true as const, value: undefined }));
  try {
    for (;;) {
      const next = await Promise.race([reader.next(), stop]);
      if (next.done) break;
      into.push(next.value);
    }
  } catch {
    // A broken pipe ends the output.
  } finally {
    void reader.return?.()?.catch(() => undefined);
  }
}
