/**
 * The JSON-RPC 2.0 envelope of an incoming message, judged by the same rules
 * the ACP SDK applies, so the connection guard knows for certain which
 * messages the SDK will answer and under which id. Messages the SDK would
 * reject with an `id: null` error never reach it: the guard answers them.
 * @module
 */

/** A JSON-RPC id the SDK echoes in its answer. */
export type JsonRpcId = string | number | null;

/** What the SDK does with an incoming message. */
export type Envelope =
  /** Dispatched and answered exactly once with this id. */
  | { kind: "request"; id: JsonRpcId; method: string }
  /** Dispatched, never answered. */
  | { kind: "notification"; method: string }
  /** Matched against the agent's own requests (or logged when it matches none), never answered. */
  | { kind: "response" }
  /** Not JSON-RPC: answered `-32600` with `id: null`, saying why. */
  | { kind: "invalid"; reason: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** Whether a value may be a request id (the SDK's rule: string, finite number or null). */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Classifies one incoming message the way the SDK's receive loop does. */
export function classifyEnvelope(message: unknown): Envelope {
  if (Array.isArray(message)) return { kind: "invalid", reason: "JSON-RPC batches are not supported" };
  if (!isRecord(message)) return { kind: "invalid", reason: "a message must be a JSON object" };
  // Responses are checked by the SDK when it matches them; a bad one is logged there, never answered.
  if (!("method" in message)) {
    if ("id" in message || "result" in message || "error" in message) return { kind: "response" };
    return { kind: "invalid", reason: "a message needs a \"method\" (request or notification) or an \"id\" (response)" };
  }
  if (message.jsonrpc !== "2.0") return { kind: "invalid", reason: "\"jsonrpc\" must be \"2.0\"" };
  if (typeof message.method !== "string") return { kind: "invalid", reason: "\"method\" must be a string" };
  if (!("id" in message)) return { kind: "notification", method: message.method };
  if (!isJsonRpcId(message.id)) return { kind: "invalid", reason: "\"id\" must be a string, a number or null" };
  return { kind: "request", id: message.id, method: message.method };
}

/** The `-32600` answer to an invalid message (its id cannot be trusted, so it is null). */
export function invalidEnvelopeReply(reason: string): Record<string, unknown> {
  return { jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid request: ${reason}` } };
}
