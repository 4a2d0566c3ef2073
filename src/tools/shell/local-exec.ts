/**
 * `Workspace.exec` on this machine: runs a shell command in its own process
 * group, streams its output as small throttled deltas, keeps only a bounded
 * tail (the rest goes to a file), and kills the whole tree on timeout or abort,
 * and whatever of it is left once the shell has exited.
 * @module
 */
import { statOrUndefined } from "../../runtime/files/fs.ts";
import { StreamRedactor } from "../../runtime/secrets.ts";
import type { ShellExit } from "../../runtime/process/child-lifecycle.ts";
import { spawnShell } from "../../runtime/process/spawn-shell.ts";
import { createTempFile } from "../../runtime/files/temp-file.ts";
import { FULL_OUTPUT_PREFIX, OutputBuffer, type OutputSummary } from "./output-buffer.ts";
import { truncateTail, utf8Length } from "../truncate.ts";
import type { ExecRequest, ExecResult } from "../types.ts";

/** Output is coalesced and handed to `onOutput` at most this often. */
export const DELTA_INTERVAL_MS = 50;
/** No delta is larger than this (UTF-8 bytes); output beyond it in one interval is skipped with a marker. */
export const MAX_DELTA_BYTES = 16 * 1024;
/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;
/** How long to keep reading after the shell exited while a child it left behind holds the pipe open. */
const DRAIN_MS = 500;
/** setTimeout's ceiling; longer timeouts would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Room left in a delta for the skip marker. */
const MARKER_RESERVE = 64;

/** Knobs for tests and future settings; `Workspace.exec` uses the defaults. */
export interface LocalExecOptions {
  /** Absolute path of the shell (default: `$SHELL` if POSIX-like, else bash, else sh). */
  shell?: string;
  /** The command's whole environment (default: this process's). */
  env?: Record<string, string>;
  killGraceMs?: number;
  drainMs?: number;
  /** Sees the output buffer (tests check that its memory stays bounded). */
  onBuffer?(buffer: OutputBuffer): void;
  /** Where full output is saved when it is truncated (the session's own directory); default: the process's private temp directory. */
  outputDirectory?: () => Promise<string>;
}

/**
 * Coalesces output into deltas of at most `maxBytes`, at most one per
 * `intervalMs`. When more arrives in one interval, the older part is dropped
 * and the delta starts with `…[N bytes skipped]…`, so neither memory nor what
 * the editor receives grows with the output's speed.
 */
export class DeltaThrottle {
  readonly #emit: (delta: string) => void;
  readonly #intervalMs: number;
  readonly #maxBytes: number;
  #pending = "";
  #skipped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(emit: (delta: string) => void, intervalMs = DELTA_INTERVAL_MS, maxBytes = MAX_DELTA_BYTES) {
    this.#emit = emit;
    this.#intervalMs = intervalMs;
    this.#maxBytes = maxBytes;
  }

  add(text: string): void {
    if (text === "") return;
    this.#pending += text;
    // A UTF-16 unit is at least one UTF-8 byte, so keeping maxBytes units still fills a whole delta.
    if (this.#pending.length > 2 * this.#maxBytes) {
      let cut = this.#pending.length - this.#maxBytes;
      if (isLowSurrogate(this.#pending.charCodeAt(cut))) cut++;
      this.#skipped += utf8Length(this.#pending.slice(0, cut));
      this.#pending = this.#pending.slice(cut);
    }
    this.#timer ??= setTimeout(() => this.flush(), this.#intervalMs);
  }

  /** Emits whatever is pending now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending === "" && this.#skipped === 0) return;
    let body = this.#pending;
    let skipped = this.#skipped;
    this.#pending = "";
    this.#skipped = 0;
    const bodyBytes = utf8Length(body);
    if (skipped > 0 || bodyBytes > this.#maxBytes) {
      const kept = truncateTail(body, { maxBytes: this.#maxBytes - MARKER_RESERVE, maxLines: Number.MAX_SAFE_INTEGER });
      skipped += bodyBytes - kept.outputBytes;
      body = `…[${skipped} bytes skipped]…\n${kept.content}`;
    }
    this.#emit(body);
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Runs `request.command` locally; resolves once the shell has exited, its output is flushed and everything it started is gone. */
export async function runLocalCommand(request: ExecRequest, options: LocalExecOptions = {}): Promise<ExecResult> {
  const { signal } = request;
  const outputDirectory = options.outputDirectory;
  const buffer = new OutputBuffer(
    outputDirectory ? { createFile: async () => createTempFile(FULL_OUTPUT_PREFIX, await outputDirectory()) } : {},
  );
  options.onBuffer?.(buffer);
  if (signal.aborted) return toResult(await buffer.finish(), { code: null, signal: null }, "cancel");
  const cwdInfo = await statOrUndefined(request.cwd);
  if (!cwdInfo?.isDirectory) throw new Error(`Working directory does not exist: ${request.cwd}`);

  const child = await spawnShell({
    command: request.command,
    cwd: request.cwd,
    ...(request.sandbox ? { sandbox: request.sandbox } : {}),
    ...(options.shell ? { shell: options.shell } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
  let stop: "timeout" | "cancel" | undefined;
  let shellExited = false;
  let ending: Promise<void> | undefined;
  const terminate = (reason: "timeout" | "cancel") => {
    if (shellExited) {
      // The command is done; only a child it left behind still writes. Stop listening to it.
      child.closeOutput();
      return;
    }
    if (stop) return;
    stop = reason;
    // SIGTERM to the whole tree, SIGKILL after the grace to whatever ignored it.
    ending = child.terminate(killGraceMs);
  };
  const onAbort = () => terminate("cancel");
  signal.addEventListener("abort", onAbort, { once: true });
  const timeout =
    request.timeoutMs !== undefined && request.timeoutMs > 0 && request.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => terminate("timeout"), request.timeoutMs)
      : undefined;

  try {
    const throttle = new DeltaThrottle((delta) => {
      try {
        request.onOutput?.(delta);
      } catch {
        // A failing listener must not break the command.
      }
    });
    const decoder = new TextDecoder("utf-8");
    // One redactor in front of both the live deltas and the kept output: a key split across reads is still hidden, and neither the tail nor the saved file can start mid-key.
    const redactor = new StreamRedactor();
    const consume = async (text: string) => {
      if (text === "") return;
      throttle.add(text);
      await buffer.push(text);
    };
    const pump = (async () => {
      for await (const chunk of child.output) await consume(redactor.push(decoder.decode(chunk, { stream: true })));
      await consume(redactor.push(decoder.decode()));
      await consume(redactor.end());
    })();

    const exit = await child.exited;
    shellExited = true;
    if (timeout !== undefined) clearTimeout(timeout);
    // EOF normally follows at once; a background child keeping the pipe open must not hold the result.
    const drainMs = (options.drainMs ?? DRAIN_MS) + (stop ? killGraceMs : 0);
    let drainTimer: ReturnType<typeof setTimeout> | undefined;
    const drained = await Promise.race([
      pump.then(() => true),
      new Promise<boolean>((resolve) => {
        drainTimer = setTimeout(() => resolve(false), drainMs);
      }),
    ]);
    clearTimeout(drainTimer);
    if (!drained) child.closeOutput();
    await pump;
    throttle.flush();
    return toResult(await buffer.finish(), exit, stop);
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (timeout !== undefined) clearTimeout(timeout);
    // Nothing the command started outlives the call: background jobs, nohup and setsid children end with it.
    await ending;
    await child.terminate(killGraceMs);
  }
}

function toResult(
  summary: OutputSummary,
  exit: ShellExit,
  stop: "timeout" | "cancel" | undefined,
): ExecResult {
  return {
    exitCode: stop ? null : exit.code,
    signal: exit.signal,
    output: summary.output,
    truncated: summary.truncated,
    ...(summary.fullOutputPath ? { fullOutputPath: summary.fullOutputPath } : {}),
    totalLines: summary.totalLines,
    totalBytes: summary.totalBytes,
    timedOut: stop === "timeout",
    cancelled: stop === "cancel",
  };
}
