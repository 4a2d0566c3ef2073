/**
 * Writes a session's steps into its journal as they complete. Messages are
 * step boundaries: they are fsynced before the turn goes on, so a crash loses
 * at most the step in flight. The one exception is a user message (a prompt,
 * a queued prompt whose turn starts, a steered message) and the title taken
 * from the first prompt: asking the model changes nothing on disk, so their
 * fsync runs while the model is asked. A user message is written to the file
 * before the model is asked (a killed process never loses one the model
 * saw); the next entry and the end of the turn wait for the fsync, so it is
 * durable before anything that follows it is recorded and before the turn
 * is answered.
 * @module
 */
import type { EngineEvent } from "../../engine/events.ts";
import type { SessionTotals } from "../../engine/session.ts";
import { log } from "../../runtime/log.ts";
import type { SessionJournal } from "../../store/types.ts";
import type { SessionEntry } from "./session-entries.ts";
import { entryProblem } from "./session-entry-schemas.ts";

/** The journal writer of one session. */
export class SessionRecorder {
  readonly #journal: SessionJournal;
  /** `message` entries written so far (compaction indexes into them). */
  #messages: number;
  /** Places of `message` entries taken back (`retracted`): they are in the file but not in the conversation. */
  readonly #retracted: Set<number>;
  /** Ids of every `message` entry written (a client's id for a new message must be none of them). */
  readonly #ids: Set<string>;
  /** A synced write not awaited yet (see `writeAhead`); the next write or `settle` awaits it and reports its failure. */
  #ahead: Promise<void> | undefined;

  constructor(journal: SessionJournal, messagesSoFar = 0, retracted: readonly number[] = [], messageIds: readonly string[] = []) {
    this.#journal = journal;
    this.#messages = messagesSoFar;
    this.#retracted = new Set(retracted);
    this.#ids = new Set(messageIds);
  }

  /** Whether a message with this id was ever recorded in the session (a rewound one included). */
  hasMessage(messageId: string): boolean {
    return this.#ids.has(messageId);
  }

  /**
   * Records a rewind to before the `from`-th message entry (`messageId`): it
   * and every message after it leave the conversation; fsynced.
   */
  async rewound(from: number, messageId: string): Promise<void> {
    for (let at = from; at < this.#messages; at++) this.#retracted.add(at);
    await this.write({ type: "rewound", messageId, from }, true);
  }

  /** The place of the first of the last `kept` messages of the conversation, skipping those taken back. */
  #keptFrom(kept: number): number {
    let from = this.#messages;
    for (let left = kept; left > 0 && from > 0; ) {
      from--;
      if (!this.#retracted.has(from)) left--;
    }
    return from;
  }

  get journal(): SessionJournal {
    return this.#journal;
  }

  /**
   * Appends one entry. One that its reader would skip is a bug: it is still
   * written (nothing is thrown away), and reported now rather than at the next load.
   */
  async write(entry: SessionEntry, sync = false): Promise<void> {
    await this.settle();
    await this.#append(entry, sync);
  }

  /**
   * Appends one entry and fsyncs it without waiting. The append is queued at
   * once, so the journal keeps call order and its `sync` and `close` come
   * after it; the next `write` or `settle` waits for it and fails with its error.
   */
  writeAhead(entry: SessionEntry): void {
    this.#syncAhead(this.#append(entry, true));
  }

  /**
   * Appends one entry and waits until it is written (not fsynced): what the
   * model is about to see is in the file before it is asked. The fsync runs
   * ahead like `writeAhead`'s.
   */
  async writeBeforeAsking(entry: SessionEntry): Promise<void> {
    const written = this.#append(entry, false);
    this.#syncAhead(written.then(() => this.#journal.sync()));
    await written;
  }

  /** Keeps `done` for the next write or `settle` to wait for and report. */
  #syncAhead(done: Promise<void>): void {
    // Observed here so that a failure is never unhandled; the next write or settle reports it.
    done.catch(() => undefined);
    const before = this.#ahead;
    this.#ahead = before ? Promise.all([before, done]).then(() => undefined) : done;
  }

  /** Waits for entries written ahead; rejects when one of them failed. */
  async settle(): Promise<void> {
    const ahead = this.#ahead;
    if (!ahead) return;
    this.#ahead = undefined;
    await ahead;
  }

  async #append(entry: SessionEntry, sync: boolean): Promise<void> {
    const problem = entryProblem(entry);
    if (problem !== undefined) log.error(`session ${this.#journal.id}: recorded a ${entry.type} entry that will not load back (${problem})`);
    await this.#journal.append(entry as unknown as Record<string, unknown> & { type: string }, { sync });
  }

  /** Records what an engine event means for the journal, if anything. */
  async record(event: EngineEvent, agent: { readonly totals: Readonly<SessionTotals> }): Promise<void> {
    switch (event.type) {
      case "message":
        this.#messages += 1;
        this.#ids.add(event.messageId);
        if (event.message.role === "user") return await this.writeBeforeAsking({ type: "message", messageId: event.messageId, message: event.message });
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
          ...(event.parentToolCallId === undefined ? {} : { parentToolCallId: event.parentToolCallId }),
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
      case "files_changed":
        return await this.write({ type: "command_files", toolCallId: event.toolCallId, files: event.files, ...(event.unkept ? { unkept: event.unkept } : {}) }, true);
      case "retracted":
        // The messages stay in the file (and in the count compaction entries index into); this entry voids them.
        for (let at = Math.max(0, this.#messages - event.messages); at < this.#messages; at++) this.#retracted.add(at);
        return await this.write({ type: "retracted", messages: event.messages }, true);
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
          { type: "compaction", summary: event.summary, keptFrom: this.#keptFrom(event.keptMessages), tokensBefore: event.tokensBefore ?? 0 },
          true,
        );
      default:
        return;
    }
  }
}
