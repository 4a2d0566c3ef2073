/**
 * Whether a session is open in this process or only stored (`session/status`):
 * read without side effects — nothing is opened, locked, attached or changed.
 * An open session also tells what its model calls used so far, how much of
 * their input the provider's cache served, and the commands it runs in the
 * background.
 * @module
 */
import { cachedInputShare } from "../models/cost.ts";
import type { AgentServices } from "./services.ts";
import { unknownSession } from "./session-error.ts";
import { probedSandboxStatus, type SandboxStatus } from "./sandbox-status.ts";
import type { HooksStatus } from "./hooks/hooks-status.ts";

/** Tokens of an open session's model calls so far, input split by how the cache served it. */
export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
  cachedReadTokens: number;
  cachedWriteTokens: number;
  /** Share (0 to 1) of all input tokens read from the cache; absent before any input. */
  cachedInputShare?: number;
  /** USD, when the model's price is known. */
  cost?: number;
  requests: number;
}

/** A background command as `session/status` lists it. */
export interface BackgroundCommandStatus {
  id: string;
  command: string;
  /** ISO time it started. */
  startedAt: string;
  running: boolean;
  /** How it ended, once it did (it is listed until the model has read its end): an exit code, or the signal that ended it. */
  exit?: { code: number | null; signal: string | null };
  /** The editor terminal it runs in, if any. */
  terminalId?: string;
  /** It runs confined by the sandbox. */
  sandboxed?: true;
}

/** The status of a session: what an open one used, and its background commands while it has some. */
export interface SessionStatus {
  status: "open" | "saved";
  usage?: SessionUsage;
  /** Whether an open session's commands run in the sandbox. */
  sandbox?: SandboxStatus;
  backgroundCommands?: BackgroundCommandStatus[];
  /** The hooks of an open session that has any. */
  hooks?: HooksStatus;
}

/** `open` when the session is live in this process (for any client), `saved` when it is only stored; `not_found` otherwise. */
export async function sessionStatus(services: AgentServices, sessionId: string): Promise<SessionStatus> {
  const live = services.sessions.get(sessionId);
  if (live) {
    const commands = live.backgroundCommands().map((c) => ({
      id: c.id,
      command: c.command,
      startedAt: new Date(c.startedAt).toISOString(),
      running: c.exit === undefined,
      ...(c.exit ? { exit: { code: c.exit.code, signal: c.exit.signal } } : {}),
      ...(c.terminalId !== undefined ? { terminalId: c.terminalId } : {}),
      ...(c.sandboxed ? { sandboxed: true as const } : {}),
    }));
    const usage = sessionUsage(live.agent.totals);
    const sandbox = await probedSandboxStatus(live.sandbox, live.mode);
    // The hooks' code is loaded only for a session that has hooks.
    const hooks = live.hooks ? (await import("./hooks/hooks-status.ts")).hooksStatus(live) : undefined;
    return { status: "open", usage, sandbox, ...(commands.length > 0 ? { backgroundCommands: commands } : {}), ...(hooks ? { hooks } : {}) };
  }
  if (await services.store.exists(sessionId)) return { status: "saved" };
  throw unknownSession(sessionId);
}

function sessionUsage(totals: { input: number; output: number; cacheRead: number; cacheWrite: number; cost?: number; requests: number }): SessionUsage {
  const share = cachedInputShare(totals);
  return {
    inputTokens: totals.input,
    outputTokens: totals.output,
    cachedReadTokens: totals.cacheRead,
    cachedWriteTokens: totals.cacheWrite,
    ...(share === undefined ? {} : { cachedInputShare: Math.round(share * 1000) / 1000 }),
    ...(totals.cost === undefined ? {} : { cost: totals.cost }),
    requests: totals.requests,
  };
}
