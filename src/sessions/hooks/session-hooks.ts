/**
 * The hooks of one session: the commands its settings files give, whether
 * the project's may run, and running the ones an event calls for — all in
 * parallel, each with its timeout and bounded output, their verdicts merged.
 * Loaded only when some settings file holds hooks (see hook-files.ts).
 *
 * A project's hooks are code a repository brings; they run only once the
 * user trusted exactly these hook files for this project (hook-trust.ts),
 * never in `read-only`, and their `allow` never skips a question.
 * @module
 */
import type { ApprovalMode } from "../../config/settings-schema.ts";
import { runBoundedCommand } from "../../runtime/process/bounded-command.ts";
import { defaultShell } from "../../runtime/process/spawn-shell.ts";
import { redact } from "../../runtime/secrets.ts";
import { withDeadline } from "../../runtime/deadline-signal.ts";
import { readHookCommands, type HookCommand, type HookEvent } from "./hook-config.ts";
import type { HookFile } from "./hook-files.ts";
import { hookEnvironment } from "./hook-environment.ts";
import { mergeVerdicts, readOutcome, type HookVerdict } from "./hook-outcome.ts";
import { isTrusted, projectHookHash, rememberTrust } from "./hook-trust.ts";

/** Bytes kept of a hook's stdout and of its stderr, each. */
export const HOOK_OUTPUT_BUDGET = 64 * 1024;

/**
 * How long a session's close waits for its SessionEnd hooks, whatever their own timeouts: the close
 * frees the journal's lock, background commands, language servers and the sandbox's network, which
 * must not wait an hour for a hook. Hooks still running then are ended.
 */
export const SESSION_END_WAIT_MS = 5_000;

/** Asks the user whether the project's hooks may run; true only for an explicit yes. */
export type TrustAsker = (commands: readonly HookCommand[], signal: AbortSignal) => Promise<boolean>;

/** What every hook input carries about the session. */
export interface HookSessionFacts {
  sessionId: string;
  cwd: string;
  home: string;
  /** The session's journal, when it is kept on disk. */
  transcriptPath?: string;
  /** Whether the session was brought back from its journal (SessionStart's `source` is then `resume`). */
  resumed: boolean;
}

/** Whether the project's hooks may run: not yet known, allowed, or not for this session. */
type ProjectTrust = "unknown" | "trusted" | "refused";

export class SessionHooks {
  readonly #user: HookCommand[];
  readonly #project: HookCommand[];
  readonly #projectFiles: readonly HookFile[];
  readonly #facts: HookSessionFacts;
  #trust: ProjectTrust = "unknown";
  #started = false;
  /** Told what the user should read (failures, `systemMessage`s); set once the session exists. */
  tell: (text: string) => void = () => {};
  /** The session's approval mode now; set once the session exists. */
  currentMode: () => ApprovalMode = () => "ask";
  /** Notices from reading the files, for the session's announcement. */
  readonly notices: string[] = [];

  constructor(files: readonly HookFile[], facts: HookSessionFacts) {
    const commands = files.flatMap((file) => readHookCommands(file, this.notices));
    this.#user = commands.filter((c) => c.origin === "user");
    this.#project = commands.filter((c) => c.origin === "project");
    this.#projectFiles = files.filter((f) => f.origin === "project");
    this.#facts = facts;
  }

  /** The hooks that run now in `mode`: the user's, and the project's once trusted (never in `read-only`). */
  inForce(mode: ApprovalMode = this.currentMode()): HookCommand[] {
    return this.#trust === "trusted" && mode !== "read-only" ? [...this.#user, ...this.#project] : this.#user;
  }

  /** The project's hooks and whether they run, for `/session` and `session/status`. */
  get project(): { commands: readonly HookCommand[]; trust: ProjectTrust } {
    return { commands: this.#project, trust: this.#trust };
  }

  /**
   * Settles whether the project's hooks run, before a turn: remembered trust
   * for these exact files, else the user's answer (asked once a session);
   * no asker, `read-only`, or no answer means they do not run.
   */
  async settleTrust(ask: TrustAsker | undefined, signal: AbortSignal): Promise<void> {
    const mode = this.currentMode();
    if (this.#project.length === 0 || this.#trust !== "unknown" || mode === "read-only") return;
    const hash = await projectHookHash(this.#projectFiles);
    if (await isTrusted(this.#facts.home, this.#facts.cwd, hash)) {
      this.#trust = "trusted";
      return;
    }
    if (!ask) return;
    const allowed = await ask(this.#project, signal).catch(() => false);
    if (signal.aborted && !allowed) return;
    this.#trust = allowed ? "trusted" : "refused";
    if (!allowed) {
      this.tell("This project's hooks will not run in this session.");
      return;
    }
    try {
      await rememberTrust(this.#facts.home, this.#facts.cwd, hash);
    } catch (error) {
      this.tell(`This project's hooks run in this session, but the choice could not be remembered: ${redact(error instanceof Error ? error.message : String(error))}`);
    }
  }

  /** SessionStart, once per live session, before its first turn; what its hooks print joins the first prompt. */
  async sessionStarting(signal: AbortSignal): Promise<HookVerdict | undefined> {
    if (this.#started) return undefined;
    this.#started = true;
    const source = this.#facts.resumed ? "resume" : "startup";
    return await this.fire("SessionStart", { source }, signal, [source]);
  }

  /**
   * Runs the hooks of `event` that match `names` (tool names, or a trigger),
   * in parallel; each gets Claude Code's JSON on stdin. Never throws.
   */
  async fire(event: HookEvent, fields: Record<string, unknown>, signal: AbortSignal, names: readonly string[] = []): Promise<HookVerdict> {
    const chosen = uniqueCommands(this.inForce().filter((hook) => hook.event === event && hook.matches(names)));
    if (chosen.length === 0) return { context: [], notices: [] };
    const { sessionId, transcriptPath, cwd } = this.#facts;
    const input = JSON.stringify({ session_id: sessionId, ...(transcriptPath ? { transcript_path: transcriptPath } : {}), cwd, hook_event_name: event, ...fields });
    const env = hookEnvironment(cwd);
    const shell = defaultShell();
    const parts = await Promise.all(
      chosen.map(async (hook) => {
        const run = await runBoundedCommand({ command: hook.command, cwd, env, input, timeoutMs: hook.timeoutSeconds * 1000, outputBudget: HOOK_OUTPUT_BUDGET, signal, shell });
        // What a hook prints reaches the model or the editor: no key the agent knows goes with it.
        return { hook, verdict: readOutcome(hook, { ...run, stdout: redact(run.stdout), stderr: redact(run.stderr) }) };
      }),
    );
    const verdict = mergeVerdicts(parts);
    for (const notice of verdict.notices) this.tell(notice);
    return verdict;
  }

  /** Notification: the agent waits for the user (a permission question). Not awaited by the asker: it never delays the question. */
  notify(message: string, signal: AbortSignal): void {
    void this.fire("Notification", { message }, signal);
  }

  /** SessionEnd, as the session closes in this process: waited for at most {@link SESSION_END_WAIT_MS}, or until `stop` (the agent leaves at once). */
  async sessionEnded(reason: string, stop: AbortSignal): Promise<void> {
    // A session only opened (listed, loaded and left) never started for its hooks, so it does not end for them either.
    if (!this.#started || stop.aborted) return;
    const deadline = withDeadline(stop, SESSION_END_WAIT_MS);
    try {
      await this.fire("SessionEnd", { reason }, deadline.signal);
    } finally {
      deadline.release();
    }
  }
}

/** Claude Code runs a command given twice for one event once. */
function uniqueCommands(hooks: readonly HookCommand[]): HookCommand[] {
  const seen = new Set<string>();
  return hooks.filter((hook) => !seen.has(hook.command) && seen.add(hook.command) !== undefined);
}
