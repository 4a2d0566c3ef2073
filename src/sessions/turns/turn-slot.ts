/**
 * A session's one turn: the claim that holds it, the claims waiting for it
 * (first come, first served, bounded; see prompt-queue.ts), and handing it
 * over. Owned by `LiveSession`; the turn's work itself runs there.
 * @module
 */
import { PromptQueue } from "./prompt-queue.ts";
import { SessionError } from "../session-error.ts";
import { TurnClaim } from "./turn-claim.ts";

/** What asks for a session's turn (see `LiveSession.claimTurn`). */
export interface ClaimRequest {
  /** The connection that asks. */
  clientId: string;
  /** Aborting it drops the claim from the queue while it waits, and stops its turn alone once it runs. */
  signal: AbortSignal;
  /** Whether messages may be steered into its turn (false for built-in commands). */
  steerable: boolean;
  /** Characters of its content, counted against the queue's budget should it wait (0 when unknown). */
  size?: () => number;
}

/** The holder of a session's turn and the claims waiting for it. */
export class TurnSlot {
  readonly #sessionId: string;
  #holder: TurnClaim | undefined;
  readonly #queue = new PromptQueue<TurnClaim>();
  #closed = false;

  constructor(sessionId: string) {
    this.#sessionId = sessionId;
  }

  /** The claim holding the turn, if one does. */
  get holder(): TurnClaim | undefined {
    return this.#holder;
  }

  /** How many claims wait. */
  get waiting(): number {
    return this.#queue.size;
  }

  /** Whether the session closed: no claim is taken any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The turn for a new claim: at once when nobody holds it (taken before any
   * await), else once the claims before it are done. Undefined when it is
   * dropped instead (its signal, a cancel, its client leaving, the session
   * closing); `queue_full` when the queue is at its bound.
   */
  async acquire(request: ClaimRequest): Promise<{ claim: TurnClaim; waited: boolean } | undefined> {
    if (this.#closed || request.signal.aborted) return undefined;
    if (this.#holder === undefined) {
      this.#holder = new TurnClaim(request.clientId, request.steerable, 0);
      return { claim: this.#holder, waited: false };
    }
    const claim = new TurnClaim(request.clientId, request.steerable, request.size?.() ?? 0);
    if (!this.#queue.add(claim)) {
      const { limit, maxChars } = this.#queue;
      throw new SessionError("queue_full", `the session's prompt queue is full (at most ${limit} prompts or ${maxChars} characters wait); try again when a turn has ended`, {
        sessionId: this.#sessionId,
        queue: "prompts",
        limit,
        maxChars,
      });
    }
    const leave = () => {
      if (this.#queue.remove(claim)) claim.settle(false);
    };
    request.signal.addEventListener("abort", leave, { once: true });
    try {
      return (await claim.started) ? { claim, waited: true } : undefined;
    } finally {
      request.signal.removeEventListener("abort", leave);
    }
  }

  /** `claim` is done: the turn goes to the first waiting claim, synchronously, so no claim arriving meanwhile can pass it. */
  release(claim: TurnClaim): void {
    if (this.#holder !== claim) return;
    const next = this.#queue.next();
    this.#holder = next;
    next?.settle(true);
    claim.finish();
  }

  /** Drops the waiting claims (all, or those of `clientId`) and stops the holder's turn (any holder's, or only that client's). */
  stop(reason: string, clientId?: string): void {
    this.#queue.drop(clientId);
    if (clientId === undefined || this.#holder?.clientId === clientId) this.#holder?.abort(reason);
  }

  /** No claim is taken from now on; the caller stops what runs. */
  close(): void {
    this.#closed = true;
  }
}
