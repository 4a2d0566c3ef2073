/**
 * A session's language servers: one per language and project root, started
 * the first time a file of that language is changed, restarted once when one
 * crashes (then left down, with a notice), at most `MAX_SERVERS` of them, all
 * stopped when the session closes. What an edit is told comes from here.
 *
 * Trust: a language server runs code the repository supplies — rust-analyzer
 * runs build scripts and proc-macros, typescript-language-server prefers the
 * workspace's own TypeScript, gopls runs `go list` — wherever its program
 * comes from (the user's `PATH`, the user's settings, the project's
 * `node_modules/.bin`). So every server follows the rule of the session's
 * commands that run unasked: in every mode but `yolo` it runs confined by the
 * sandbox (read-only, with a temporary folder), and where the session has no
 * sandbox it is not started at all — said once, with the first edit of its
 * language, with what is missing. Only `yolo` (the user's full trust) runs it
 * unconfined, like that mode's commands. Fails closed: no sandbox, no server.
 * @module
 */
import type { LspSettings } from "../config/settings-schema.ts";
import { containingRoot, extname, pathToFileUrl } from "../runtime/files/path.ts";
import { withDeadline } from "../runtime/deadline-signal.ts";
import type { SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";
import { findServer, type FoundServer } from "./find-server.ts";
import { LanguageServer, type FileReport } from "./language-server.ts";
import { languageIdOf, serverFor, serverTable, type ServerEntry } from "./server-table.ts";

/** Servers one session may run at once. */
export const MAX_SERVERS = 4;
/** Files the session changed that `diagnostics` without a path reports on. */
export const MAX_TOUCHED_FILES = 100;
const DEFAULT_START_WAIT_SECONDS = 20;
const DEFAULT_WAIT_SECONDS = 5;

/** What the session's servers need from the session. */
export interface ServerHost {
  settings: LspSettings | undefined;
  roots: readonly string[];
  /** The confinement servers run in, or undefined when they run unconfined. */
  sandbox(): Promise<SandboxSpec | undefined>;
  /** Whether a server may run unconfined (the session runs commands unasked without a sandbox: yolo). */
  mayRunUnconfined(): boolean;
  /** Why there is no sandbox for the servers, and what would give them one (for the user). */
  missingSandbox(): Promise<string>;
  /** Called when a server has started (the `diagnostics` tool is offered from then on). */
  serverStarted(): void;
}

/** What the session learnt about one file. */
export type FileCheck =
  | { kind: "report"; server: string; path: string; report: FileReport; previous?: FileReport }
  | { kind: "stopped"; server: string; path: string; seconds: number; starting: boolean; why: "deadline" | "exited" | "aborted" }
  | { kind: "notice"; server: string; path: string; text: string };

interface Slot {
  found: FoundServer;
  server?: Promise<LanguageServer>;
  /** Starts made after the first one (crash restarts). */
  restarts: number;
  /** Why the slot is down for good; told once, with the next edit. */
  down?: string;
  toldDown?: boolean;
  files: Set<string>;
}

export class SessionServers {
  readonly #host: ServerHost;
  readonly #table: ServerEntry[];
  readonly #slots = new Map<string, Slot>();
  readonly #found = new Map<string, Promise<FoundServer | undefined>>();
  readonly #told = new Set<string>();
  /** Aborted on close: a server still starting is given up at once instead of at the end of its bound. */
  readonly #closing = new AbortController();
  #closed = false;

  constructor(host: ServerHost) {
    this.#host = host;
    this.#table = serverTable(host.settings);
  }

  /** Whether any server has been found for a file this session changed. */
  get active(): boolean {
    return this.#slots.size > 0;
  }

  /** Process ids of the running servers. */
  async pids(): Promise<number[]> {
    const servers = await Promise.all([...this.#slots.values()].map((slot) => slot.server?.catch(() => undefined)));
    return servers.flatMap((server) => (server && !server.exited ? [server.pid] : []));
  }

  /** The server entry and program for `path`, cached per language and folder. */
  async #find(path: string): Promise<FoundServer | undefined> {
    const entry = serverFor(this.#table, extname(path).toLowerCase());
    if (!entry || containingRoot(path, this.#host.roots) === undefined) return undefined;
    const key = `${entry.name}\0${path.slice(0, path.lastIndexOf("/"))}`;
    let found = this.#found.get(key);
    if (!found) {
      found = findServer(entry, path, this.#host.roots);
      this.#found.set(key, found);
    }
    return await found;
  }

  /**
   * The text of `path` as it is now, handed to its server; what the server
   * reports on it within the wait bound. Undefined when no server serves it.
   */
  async check(path: string, text: string, signal: AbortSignal): Promise<FileCheck | undefined> {
    if (this.#closed) return undefined;
    const found = await this.#find(path);
    if (!found) return undefined;
    const name = found.entry.name;
    const shown = { server: name, path };
    const confinement = await this.#host.sandbox();
    if (!confinement && !this.#host.mayRunUnconfined()) {
      const why = found.fromProject
        ? `The ${name} language server in the project (${found.program}) was not started: it is code from the repository`
        : `The ${name} language server (${found.program}) was not started: a language server can run code from the repository (build scripts, the project's own compiler)`;
      return this.#tellOnce(`unconfined\0${name}`, {
        ...shown,
        kind: "notice",
        text: `${why}, run only under the sandbox or in yolo mode, and there is no sandbox: ${await this.#host.missingSandbox()}. Edits go on without its diagnostics.`,
      });
    }
    const key = `${name}\0${found.root}`;
    let slot = this.#slots.get(key);
    if (!slot) {
      if (this.#slots.size >= MAX_SERVERS) {
        return this.#tellOnce(`full\0${key}`, { ...shown, kind: "notice", text: `No ${name} language server was started for ${found.root}: this session already runs ${MAX_SERVERS}.` });
      }
      slot = { found, restarts: 0, files: new Set() };
      this.#slots.set(key, slot);
    }
    if (slot.down) {
      if (slot.toldDown) return undefined;
      slot.toldDown = true;
      return { ...shown, kind: "notice", text: slot.down };
    }
    const starting = await this.#ensureRunning(slot, confinement);
    const seconds = starting ? (this.#host.settings?.startWaitSeconds ?? DEFAULT_START_WAIT_SECONDS) : (this.#host.settings?.waitSeconds ?? DEFAULT_WAIT_SECONDS);
    const bound = withDeadline(signal, seconds * 1000);
    try {
      const server = await slot.server!.catch((error: Error) => {
        slot.down = `The ${name} language server (${found.program}) could not be used: ${error.message}. Edits go on without its diagnostics.`;
        return undefined;
      });
      if (!server) {
        slot.toldDown = true;
        return { ...shown, kind: "notice", text: slot.down! };
      }
      remember(slot.files, path);
      const uri = pathToFileUrl(path).href;
      const previous = server.report(uri);
      let after: number;
      try {
        after = await server.change(uri, languageIdOf(extname(path).toLowerCase(), name), text, bound.signal);
      } catch {
        if (server.exited) return await this.#crashed(slot, server, shown);
        return { ...shown, kind: "stopped", seconds, starting, why: signal.aborted ? "aborted" : "deadline" };
      }
      const outcome = await server.wait(uri, after, bound.signal);
      if ("report" in outcome) return { ...shown, kind: "report", report: outcome.report, ...(previous ? { previous } : {}) };
      if (outcome.stopped === "exited") return await this.#crashed(slot, server, shown);
      return { ...shown, kind: "stopped", seconds, starting, why: bound.timedOut() ? "deadline" : "aborted" };
    } finally {
      bound.release();
    }
  }

  /** Starts the slot's server when it has none or it crashed (once); true when it was started now. */
  async #ensureRunning(slot: Slot, confinement: SandboxSpec | undefined): Promise<boolean> {
    const running = await slot.server?.catch(() => undefined);
    if (slot.server && (!running || !running.exited)) return false;
    if (this.#closed) {
      slot.server = Promise.reject(new Error("the session closed"));
      slot.server.catch(() => undefined);
      return false;
    }
    if (running?.exited) {
      // What the crashed server started (a TypeScript server of its own) goes with it.
      await running.stop();
      if (slot.restarts >= 1) {
        slot.down = `The ${slot.found.entry.name} language server crashed again after a restart; it is not started again in this session. Edits go on without its diagnostics.`;
        slot.server = Promise.reject(new Error("it crashed twice"));
        slot.server.catch(() => undefined);
        return false;
      }
      slot.restarts += 1;
      // The restarted server knows no file yet: each is handed to it again as it is changed or checked.
      slot.files.clear();
    }
    const { program, args, root } = slot.found;
    const startBound = withDeadline(this.#closing.signal, (this.#host.settings?.startWaitSeconds ?? DEFAULT_START_WAIT_SECONDS) * 1000);
    slot.server = LanguageServer.start(program, args, root, confinement, startBound.signal).finally(() => startBound.release());
    slot.server.then(() => this.#host.serverStarted(), () => undefined);
    return true;
  }

  /** What an edit is told when the server exited under it: it starts again with the next change, once. */
  async #crashed(slot: Slot, server: LanguageServer, shown: { server: string; path: string }): Promise<FileCheck> {
    if (slot.restarts < 1) return { ...shown, kind: "stopped", seconds: 0, starting: false, why: "exited" };
    // What it started (a server of its own) goes with it.
    await server.stop();
    slot.down = `The ${shown.server} language server crashed again after a restart; it is not started again in this session. Edits go on without its diagnostics.`;
    slot.toldDown = true;
    return { ...shown, kind: "notice", text: slot.down };
  }

  #tellOnce(key: string, check: FileCheck): FileCheck | undefined {
    if (this.#told.has(key)) return undefined;
    this.#told.add(key);
    return check;
  }

  /** The last reports on every file this session changed (the servers keep them up to date as other files change). */
  async reports(): Promise<Array<{ server: string; path: string; report: FileReport | undefined }>> {
    const found: Array<{ server: string; path: string; report: FileReport | undefined }> = [];
    for (const slot of this.#slots.values()) {
      const server = await slot.server?.catch(() => undefined);
      if (!server) continue;
      for (const path of slot.files) found.push({ server: slot.found.entry.name, path, report: server.report(pathToFileUrl(path).href) });
    }
    return found;
  }

  /** Stops every server; later checks find none. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort();
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    await Promise.all(slots.map(async (slot) => (await slot.server?.catch(() => undefined))?.stop()));
  }
}

/** Adds `path` to a bounded set, dropping the oldest entry beyond the bound. */
function remember(files: Set<string>, path: string): void {
  files.delete(path);
  if (files.size >= MAX_TOUCHED_FILES) files.delete(files.values().next().value as string);
  files.add(path);
}
