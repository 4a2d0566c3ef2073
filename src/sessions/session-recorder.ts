/**
 * Writes a session's steps into its journal as they complete. Messages are
 * step boundaries: they are fsynced before the turn goes on, so a crash loses
 * at most the step in flight.
 * @module
 */
import type { EngineEvent } from "../engine/events.ts";
import type { AgentSession } from "../engine/session.ts";
import { log } from "../runtime/log.ts";
import type { SessionJournal } from "../store/types.ts";
import type { SessionEntry } from "./session-entries.ts";
import { entryProblem } from "./session-entry-schemas.ts";

/** The journal writer of one session. */
export class SessionRecorder {
  readonly #journal: SessionJournal;
  /** `message` entries written so far (compaction indexes into them). */
  #messages: number;

  constructor(journal: SessionJournal, messagesSoFar = 0) {
    this.#journal = journal;
    this.#messages = messagesSoFar;
  }

  get journal(): SessionJournal {
    return this.#journal;
  }

  /**
   * Appends one entry. One that its reader would skip is a bug: it is still
   * written (nothing is thrown away), and reported now rather than at the next load.
   */
  async write(entry: SessionEntry, sync = false): Promise<void> {
    const problem = entryProblem(entry);
    if (problem !== undefined) log.error(`session ${this.#journal.id}: recorded a ${entry.type} entry that will not load back (${problem})`);
    await this.#journal.append(entry as unknown as Record<string, unknown> & { type: string }, { sync });
  }

  /** Records what an engine event means for the journal, if anything. */
  async record(event: EngineEvent, agent: AgentSession): Promise<void> {
    switch (event.type) {
      case "message":
        this.#messages += 1;
        return await this.write({ type: "message", messageId: event.messageId, message: event.message }, true);
      case "tool_call":
        return await this.write({
          type: "tool_call",
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          title: event.title,
          kind: event.kind,
          locations: event.locations,
          input: event.input,
        });
      case "tool_call_update":
        if (event.status === "in_progress") return;
        return await this.write({
          type: "tool_result",
          toolCallId: event.toolCallId,
          status: event.status,
          ...(event.content ? { content: event.content } : {}),
          ...(event.locations ? { locations: event.locations } : {}),
          ...(event.diff ? { diff: event.diff } : {}),
          ...(event.details ? { details: event.details } : {}),
          ...(event.exit ? { exit: event.exit } : {}),
        });
      case "plan":
        return await this.write({ type: "plan", entries: event.entries });
      case "usage": {
        const t = agent.totals;
        return await this.write({
          type: "usage",
          used: event.used,
          size: event.size,
          ...(event.cost === undefined ? {} : { cost: event.cost }),
          input: t.input,
          output: t.output,
          cacheRead: t.cacheRead,
          cacheWrite: t.cacheWrite,
        });
      }
      case "compaction":
        if (event.phase !== "completed" || event.summary === undefined || event.keptMessages === undefined) return;
        return await this.write(
          { type: "compaction", summary: event.summary, keptFrom: this.#messages - event.keptMessages, tokensBefore: event.tokensBefore ?? 0 },
          true,
        );
      default:
        return;
    }
  }
}
