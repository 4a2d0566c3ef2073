/**
 * A session's background commands: started by `bash` with `background: true`,
 * read by `bash_output`, ended by `bash_stop` or when the session ends. At most
 * `MAX_BACKGROUND_COMMANDS` at a time; one whose end was reported is
 * forgotten, and whatever it left running is ended with it.
 * @module
 */
import { randomHex } from "../../runtime/random-hex.ts";
import type { SandboxSpec } from "../../runtime/sandbox/sandbox-spec.ts";
import { ToolError, type BackgroundCommandsView, type BackgroundProcess, type BackgroundRead, type Workspace } from "../types.ts";

/** Background commands a session may hold at once. */
export const MAX_BACKGROUND_COMMANDS = 8;
/** The longest `bash_output` waits for news. */
export const MAX_WAIT_MS = 60_000;
/** How long a start waits for the command's first output. */
const FIRST_OUTPUT_MS = 300;
/** How long closing waits for each command's end (an editor that no longer answers must not hold the session). */
const CLOSE_BOUND_MS = 5000;

/** One command as the session lists it. */
export interface BackgroundCommandInfo {
  id: string;
  command: string;
  /** When it started (ms since the epoch). */
  startedAt: number;
  /** Set once it ended: at its exit event, or when a read saw the end (an editor's terminal). */
  exit?: BackgroundRead["exit"];
  terminalId?: string;
  /** It runs confined by the sandbox. */
  sandboxed?: true;
}

interface Entry extends BackgroundCommandInfo {
  process: BackgroundProcess;
  /** Settles when the command ended, was stopped, or the session closed (see `afterEnd`). */
  gone: Promise<void>;
  markGone(): void;
}

/** The background commands of one session. */
export class BackgroundCommands implements BackgroundCommandsView {
  readonly #entries = new Map<string, Entry>();
  /** Work that follows a command's end (see `afterEnd`), until it is done. */
  readonly #following = new Set<Promise<void>>();
  #closed = false;

  /** The commands held now, oldest first. */
  list(): BackgroundCommandInfo[] {
    return [...this.#entries.values()].map(({ process: _running, gone: _gone, markGone: _mark, ...info }) => info);
  }

  ids(): string[] {
    return [...this.#entries.values()].filter((e) => e.process).map((e) => e.id);
  }

  afterEnd(id: string, work: () => Promise<void>): boolean {
    const entry = this.#entries.get(id);
    if (!entry?.process) return false;
    // Kept until done: closing waits for it (its failure is the work's own to report).
    const followed = entry.gone.then(work).catch(() => undefined).finally(() => this.#following.delete(followed));
    this.#following.add(followed);
    return true;
  }

  async start(workspace: Workspace, command: string, signal: AbortSignal = new AbortController().signal, sandbox?: SandboxSpec): Promise<{ id: string; command: BackgroundProcess; first: BackgroundRead }> {
    if (this.#closed) throw new ToolError("The session is closing; no command can start in the background.");
    if (!workspace.startBackground) throw new ToolError("Commands cannot run in the background here.");
    if (this.#entries.size >= MAX_BACKGROUND_COMMANDS) {
      throw new ToolError(
        `Already ${this.#entries.size} background commands (${[...this.#entries.keys()].join(", ")}), the most a session may hold. ` +
          "Stop one with bash_stop first (or read an ended one with bash_output).",
      );
    }
    const id = newBackgroundId();
    // Held before the start completes, so concurrent starts cannot pass the bound.
    const placeholder = { id, command, startedAt: Date.now(), ...(sandbox ? { sandboxed: true } : {}) } as Entry;
    placeholder.gone = new Promise<void>((resolve) => (placeholder.markGone = resolve));
    this.#entries.set(id, placeholder);
    let started: BackgroundProcess;
    try {
      started = await workspace.startBackground({ command, cwd: workspace.cwd, ...(sandbox ? { sandbox } : {}) });
    } catch (error) {
      this.#entries.delete(id);
      throw error;
    }
    if (this.#closed) {
      // The session closed while the command was starting: it must not outlive it.
      this.#entries.delete(id);
      await started.stop();
      throw new ToolError("The session closed while the command was starting; it was stopped.");
    }
    placeholder.process = started;
    if (started.terminalId !== undefined) placeholder.terminalId = started.terminalId;
    // Listed as ended the moment it exits (session/status, /session), not when the model reads its end.
    void started.ended?.then((exit) => {
      placeholder.exit ??= exit;
      placeholder.markGone();
    });
    let first: BackgroundRead;
    try {
      // A cancel cuts the wait for first output short; the command runs on all the same.
      await started.changed(FIRST_OUTPUT_MS, signal);
      first = await this.#reported(placeholder, await started.read(signal));
    } catch (error) {
      // The model will never see this id: the command must not run on under it.
      this.#entries.delete(id);
      await bounded(started.stop());
      throw error;
    }
    return { id, command: started, first };
  }

  async read(id: string, waitMs: number, signal: AbortSignal): Promise<BackgroundRead> {
    const entry = this.#get(id);
    await entry.process.changed(Math.min(Math.max(0, waitMs), MAX_WAIT_MS), signal);
    return await this.#reported(entry, await entry.process.read(signal));
  }

  async stop(id: string, signal?: AbortSignal): Promise<BackgroundRead> {
    const entry = this.#get(id);
    this.#entries.delete(entry.id);
    try {
      return await entry.process.stop(signal);
    } finally {
      entry.markGone();
    }
  }

  /** Ends every command (the session is closing), then waits for the work that follows their ends; no command starts after it. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => bounded(entry.process?.stop()).then(() => entry.markGone())));
    await Promise.all([...this.#following]);
  }

  /** Notes the end a read saw; once the model was told, the entry goes and so does whatever it left running. */
  async #reported(entry: Entry, read: BackgroundRead): Promise<BackgroundRead> {
    if (!read.exit) return read;
    entry.exit = read.exit;
    this.#entries.delete(entry.id);
    const rest = await entry.process.stop();
    entry.markGone();
    return { output: read.output + rest.output, droppedBytes: read.droppedBytes + rest.droppedBytes, exit: read.exit };
  }

  #get(id: string): Entry {
    const entry = this.#entries.get(id.trim());
    if (entry?.process) return entry;
    const ids = [...this.#entries.values()].filter((e) => e.process).map((e) => e.id);
    throw new ToolError(
      `No background command has the id "${id.slice(0, 40)}". ${ids.length > 0 ? `Background commands: ${ids.join(", ")}.` : "No background command is running."}`,
    );
  }
}

/**
 * A background command's id: unique in the process and not the next of a
 * sequence, so an id in a reopened session's history never names a command
 * started after it.
 */
function newBackgroundId(): string {
  for (;;) {
    const id = `bg-${randomHex(4)}`;
    if (issuedIds.has(id)) continue;
    issuedIds.add(id);
    return id;
  }
}
/** Every id handed out in this process (a few dozen bytes each): none is given twice. */
const issuedIds = new Set<string>();

/** Settles when `promise` does or after `CLOSE_BOUND_MS`, whichever is first; never rejects. */
async function bounded(promise: Promise<unknown> | undefined): Promise<void> {
  if (!promise) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_BOUND_MS)))]);
  clearTimeout(timer);
}
