/**
 * One `session/update` notification prepared for every client of a view:
 * built once, and — for connections that take serialised messages — redacted
 * and serialised once, then sent as the same text to each of them.
 * @module
 */
import { redactMessage } from "../connection/outbound-redaction.ts";
import { methods, type SessionUpdate } from "../sdk.ts";

/** A `session/update` for one session, serialised (with secrets hidden) on first use. */
export class PreparedUpdate {
  readonly params: { sessionId: string; update: SessionUpdate };
  #text: string | undefined;

  constructor(sessionId: string, update: SessionUpdate) {
    this.params = { sessionId, update };
  }

  /** The whole JSON-RPC notification as sent on the wire, registered secrets hidden; computed once. */
  get text(): string {
    return (this.#text ??= JSON.stringify(redactMessage({ jsonrpc: "2.0", method: methods.client.session.update, params: this.params })));
  }
}
