/**
 * One running language server, as acp-edge uses it: started and initialised
 * within a bound, told the text of each file the agent changes (closed and
 * opened again, so every server reports on it afresh), and listened to for
 * the errors it publishes. What it sends is bounded: only errors are kept,
 * a bounded number per file and of files, each message cut to a bounded
 * length; requests it makes of us get empty answers at once; everything
 * else it says is dropped.
 * @module
 */
import type { MessageConnection } from "vscode-jsonrpc/node";
import { pathToFileUrl } from "../runtime/files/path.ts";
import { plainLine } from "../runtime/plain-text.ts";
import { processId } from "../runtime/process/process.ts";
import { withDeadline } from "../runtime/deadline-signal.ts";
import type { SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";
import { startServerProcess, type ServerProcess } from "./server-process.ts";

/** An error a server reported: 1-based line and column. */
export interface FileError {
  line: number;
  column: number;
  message: string;
  code?: string;
}

/** Errors kept per file (more are counted, not kept). */
export const MAX_ERRORS_KEPT = 50;
/** Characters kept of one message. */
export const MAX_MESSAGE_CHARS = 500;
/** Files whose errors are kept; the oldest report is dropped beyond it. */
const MAX_FILES_KEPT = 500;
/** After a report on the file, this long without another one means the server has said its piece (servers report in parts). */
const QUIET_MS = 300;
/** How long a server has to shut down before its process tree is ended. */
const SHUTDOWN_MS = 1000;

/** What a server last said about one file. */
export interface FileReport {
  errors: FileError[];
  /** Errors in the report, kept or not. */
  total: number;
  /** Counts reports, to tell one made after a change from one before it. */
  seq: number;
}

/** What waiting for a report ended with. */
export type WaitOutcome = { report: FileReport } | { stopped: "exited" | "aborted" };

interface PublishParams {
  uri?: unknown;
  diagnostics?: unknown;
}

/** A running server for one language and project root. */
export class LanguageServer {
  readonly #child: ServerProcess;
  readonly #reports = new Map<string, FileReport>();
  readonly #open = new Map<string, number>();
  readonly #listeners = new Set<() => void>();
  #seq = 0;
  #exited = false;

  private constructor(child: ServerProcess) {
    this.#child = child;
    void child.process.exited.then(() => {
      this.#exited = true;
      this.#notify();
    });
  }

  /** The server's process id (tests check that none is left). */
  get pid(): number {
    return this.#child.process.pid;
  }

  /** Whether the server's process has exited. */
  get exited(): boolean {
    return this.#exited;
  }

  /**
   * Starts the server for `root` and initialises it; rejects (its process ended)
   * when it cannot start, exits or does not answer `initialize` before `signal` aborts.
   */
  static async start(program: string, args: readonly string[], root: string, sandbox: SandboxSpec | undefined, signal: AbortSignal): Promise<LanguageServer> {
    const child = await startServerProcess(program, args, root, sandbox);
    const server = new LanguageServer(child);
    try {
      await server.#initialize(root, sandbox === undefined, signal);
      return server;
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  async #initialize(root: string, sharesProcessIds: boolean, signal: AbortSignal): Promise<void> {
    const connection = this.#child.connection;
    this.#answerRequests(connection, root);
    connection.onNotification("textDocument/publishDiagnostics", (params: PublishParams) => this.#publish(params));
    connection.listen();
    const rootUri = pathToFileUrl(root).href;
    const initialize = connection.sendRequest("initialize", {
      // Servers exit when this process id is gone; in the sandbox's own process namespace it never existed.
      processId: sharesProcessIds ? processId() : null,
      clientInfo: { name: "acp-edge" },
      rootUri,
      rootPath: root,
      workspaceFolders: [{ uri: rootUri, name: "project" }],
      capabilities: {
        textDocument: { synchronization: { didSave: false }, publishDiagnostics: { relatedInformation: false, versionSupport: true } },
        workspace: { configuration: true, workspaceFolders: true },
        window: { workDoneProgress: false },
      },
    });
    await raceEnd(initialize, signal, this.#child.process.exited, "it did not answer initialize");
    await connection.sendNotification("initialized", {});
  }

  /** Requests a server may make of its client, answered at once with "nothing" so it never waits on us. */
  #answerRequests(connection: MessageConnection, root: string): void {
    connection.onRequest("workspace/configuration", (params: { items?: unknown[] }) => (Array.isArray(params?.items) ? params.items.map(() => null) : []));
    connection.onRequest("workspace/workspaceFolders", () => [{ uri: pathToFileUrl(root).href, name: "project" }]);
    for (const method of ["client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create", "window/showMessageRequest", "window/showDocument"]) {
      connection.onRequest(method, () => null);
    }
    connection.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "acp-edge applies no edits from language servers" }));
  }

  #publish(params: PublishParams): void {
    if (typeof params?.uri !== "string" || !Array.isArray(params.diagnostics)) return;
    const errors: FileError[] = [];
    let total = 0;
    for (const item of params.diagnostics as unknown[]) {
      const error = errorOf(item);
      if (!error) continue;
      total += 1;
      if (errors.length < MAX_ERRORS_KEPT) errors.push(error);
    }
    // Refreshed keys move to the end, so the oldest report is the first one dropped.
    this.#reports.delete(params.uri);
    if (this.#reports.size >= MAX_FILES_KEPT) this.#reports.delete(this.#reports.keys().next().value as string);
    this.#reports.set(params.uri, { errors, total, seq: ++this.#seq });
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /** The server's last report on the file at `uri`. */
  report(uri: string): FileReport | undefined {
    return this.#reports.get(uri);
  }

  /**
   * Hands the server the file's new text (closing it first when it was open, so
   * the server reports on it afresh) and returns the report count to wait beyond.
   */
  async change(uri: string, languageId: string, text: string, signal: AbortSignal): Promise<number> {
    const connection = this.#child.connection;
    const version = (this.#open.get(uri) ?? 0) + 1;
    if (this.#open.has(uri)) {
      await connection.sendNotification("textDocument/didClose", { textDocument: { uri } });
      // A request the server does not know is answered once it handled what came before: a report it
      // made on closing the file comes before this answer; one on the new text comes after it.
      await raceEnd(connection.sendRequest("acp-edge/sync").catch(() => undefined), signal, this.#child.process.exited, "it did not answer");
    }
    const after = this.#seq;
    this.#open.set(uri, version);
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId, version, text } });
    return after;
  }

  /** Whether the file at `uri` was handed to the server. */
  isOpen(uri: string): boolean {
    return this.#open.has(uri);
  }

  /** Waits for the server's report on `uri` made after report `after`, and for it to go quiet on that file. */
  wait(uri: string, after: number, signal: AbortSignal): Promise<WaitOutcome> {
    return new Promise<WaitOutcome>((resolve) => {
      let quiet: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: WaitOutcome) => {
        this.#listeners.delete(check);
        signal.removeEventListener("abort", onAbort);
        clearTimeout(quiet);
        resolve(outcome);
      };
      const fresh = () => {
        const report = this.#reports.get(uri);
        return report && report.seq > after ? report : undefined;
      };
      const check = () => {
        if (this.#exited) return finish({ stopped: "exited" });
        if (!fresh()) return;
        clearTimeout(quiet);
        quiet = setTimeout(() => finish({ report: fresh()! }), QUIET_MS);
      };
      const onAbort = () => {
        const report = fresh();
        finish(report ? { report } : { stopped: "aborted" });
      };
      if (signal.aborted) return onAbort();
      this.#listeners.add(check);
      signal.addEventListener("abort", onAbort, { once: true });
      check();
    });
  }

  /** Asks the server to shut down, then ends its process tree whatever it answered. */
  async stop(): Promise<void> {
    const { connection, process: child } = this.#child;
    if (!this.#exited) {
      const bound = withDeadline(new AbortController().signal, SHUTDOWN_MS);
      await raceEnd(connection.sendRequest("shutdown"), bound.signal, child.exited, "").catch(() => undefined);
      bound.release();
      await connection.sendNotification("exit").catch(() => undefined);
    }
    connection.dispose();
    await child.terminate();
  }
}

/** Settles with `work`, or rejects when `signal` aborts or the process exits first. */
async function raceEnd<T>(work: Promise<T>, signal: AbortSignal, exited: Promise<unknown>, what: string): Promise<T> {
  let cleanup = () => {};
  const ended = new Promise<never>((_, reject) => {
    const onAbort = () => reject(new Error(what));
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    cleanup = () => signal.removeEventListener("abort", onAbort);
    void exited.then(() => reject(new Error("it exited")));
  });
  try {
    return await Promise.race([work, ended]);
  } finally {
    cleanup();
  }
}

/** An LSP diagnostic of severity Error (1) as a bounded FileError; anything else (warnings, hints, junk) is undefined. */
function errorOf(item: unknown): FileError | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const d = item as { severity?: unknown; message?: unknown; range?: { start?: { line?: unknown; character?: unknown } }; code?: unknown; source?: unknown };
  // A diagnostic without a severity is the client's to interpret: LSP clients show it as an error.
  if (d.severity !== undefined && d.severity !== 1) return undefined;
  if (typeof d.message !== "string") return undefined;
  const line = d.range?.start?.line;
  const character = d.range?.start?.character;
  // One plain line: a server's text reaches the editor too (no terminal controls, no bidirectional overrides).
  const message = plainLine(d.message).replace(/\s+/g, " ").trim();
  const source = typeof d.source === "string" ? `${plainLine(d.source).slice(0, 20)} ` : "";
  const code = typeof d.code === "string" || typeof d.code === "number" ? plainLine(`${source}${String(d.code).slice(0, 40)}`) : undefined;
  return {
    line: typeof line === "number" && Number.isFinite(line) ? Math.max(0, Math.trunc(line)) + 1 : 1,
    column: typeof character === "number" && Number.isFinite(character) ? Math.max(0, Math.trunc(character)) + 1 : 1,
    message: message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : message,
    ...(code ? { code } : {}),
  };
}
