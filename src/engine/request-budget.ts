/**
 * The model calls one prompt turn may make (`maxTurnRequests`), shared by
 * the turn and every subagent its `task` calls run: a subagent draws from the
 * parent's budget, so the setting bounds the whole turn however many
 * subagents it starts.
 * @module
 */
export class RequestBudget {
  #left: number;

  constructor(limit: number) {
    this.#left = Math.max(0, limit);
  }

  /** Model calls still allowed. */
  get left(): number {
    return this.#left;
  }

  /** Takes one model call; false when none is left. */
  take(): boolean {
    if (this.#left <= 0) return false;
    this.#left -= 1;
    return true;
  }
}
