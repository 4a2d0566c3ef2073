/**
 * What a turn tells the session's hooks outside tool calls (those go through
 * call steps): the turn is about to end, and older history is about to be
 * summarised. The engine knows no hook; it only asks these questions.
 * @module
 */

/** The moment a turn (or a subagent's turn) would end. */
export interface StopMoment {
  /** A subagent's turn inside a `task` call. */
  subagent: boolean;
  /** The turn already went on once because of an earlier answer here. */
  active: boolean;
  signal: AbortSignal;
}

export interface TurnHooks {
  /** The model gave its last reply; a reason returned makes the model go on, reading the reason. */
  stopping?(moment: StopMoment): Promise<string | undefined>;
  /** Older history is about to be summarised (`auto`: the window is full; `manual`: `/compact`). */
  compacting?(trigger: "auto" | "manual", signal: AbortSignal, instructions?: string): Promise<void>;
}
