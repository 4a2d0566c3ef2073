/**
 * What acp-edge remembers about one client connection.
 * @module
 */
import { randomHex } from "../../runtime/random-hex.ts";
import { InputEnd } from "./input-end.ts";
import type { JsonRpcId } from "./jsonrpc-envelope.ts";
import type { ClientCapabilities } from "../sdk.ts";

/** A connection bound to one durable session (the `/v1/session/{ref}/apc` route). */
export interface SessionScope {
  sessionId: string;
  cwd: string;
}

export interface ConnectionState {
  /** Unique per connection; names it as a session subscriber. */
  id: string;
  /** Set for connections that may only use one session. */
  scope?: SessionScope;
  /** Whether a scoped connection has bound its session (by `session/new` or `session/load`). */
  bound: boolean;
  /** Captured at `initialize`; an omitted capability means unsupported. */
  clientCapabilities: ClientCapabilities;
  /** Cleared by `logout`; `authenticate` sets it again. Connections start authenticated. */
  authenticated: boolean;
  /** Sessions this connection is attached to; it is detached from them when it closes. */
  sessions: Set<string>;
  /**
   * Set when the transport takes messages already serialised (and redacted): sends one at once, in order with
   * the messages written before it; throws when the connection is gone; a promise it returns settles when the
   * output has room again. Session updates shared by several clients go this way, serialised once for all of them.
   */
  sendSerialised?: (text: string) => Promise<void> | void;
  /** Aborted when the client's input ends: its prompts are cancelled, also those whose turn has not started yet. */
  inputEnded: InputEnd;
  /** Set once the connection is over and detached from its sessions: a session it joins after that is left at once. */
  gone: boolean;
  /**
   * Runs `callback` once the answer to request `requestId` is written, so that what it sends follows that
   * answer (the connection guard's event; at once when the connection has no guard).
   */
  afterAnswer(requestId: JsonRpcId, callback: () => void): void;
  /** The place of an outstanding request in the order messages arrived (the connection guard's count). */
  arrivalOf(requestId: JsonRpcId): number | undefined;
  /** Per session, the place of the latest `session/cancel` this connection sent for it (see cancel-in-order.ts). */
  cancelledAt: Map<string, number>;
  /** The `auth/status` this client last heard (answered or sent), as JSON: an update is sent only when it changed. */
  lastAuthStatus?: string;
}

/** A fresh connection: authenticated, no sessions, capabilities unknown until `initialize`. */
export function newConnectionState(
  scope?: SessionScope,
  afterAnswer: ConnectionState["afterAnswer"] = (_id, callback) => callback(),
  arrivalOf: ConnectionState["arrivalOf"] = () => undefined,
): ConnectionState {
  // The id is drawn when first read (by the first session the connection opens): reading the random source costs start-up time on Node.
  let id: string | undefined;
  return {
    get id() {
      return (id ??= `conn_${randomHex(9)}`);
    },
    ...(scope ? { scope } : {}),
    bound: false,
    clientCapabilities: {},
    authenticated: true,
    sessions: new Set(),
    inputEnded: new InputEnd(),
    gone: false,
    afterAnswer,
    arrivalOf,
    cancelledAt: new Map(),
  };
}
