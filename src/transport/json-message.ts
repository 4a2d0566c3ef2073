/**
 * One received message body as JSON-RPC: either an object to hand on, or the
 * error reply the sender gets instead (parse error, batch, non-object) — the
 * same answers the ACP SDK's own NDJSON stream gives.
 * @module
 */

export type JsonRpcObject = Record<string, unknown>;

export type Classified = { message: JsonRpcObject } | { reply: JsonRpcObject };

const PARSE_ERROR = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
const BATCH_ERROR = {
  jsonrpc: "2.0",
  id: null,
  error: { code: -32600, message: "Invalid request: JSON-RPC batches are not supported" },
};

/** A `-32600` reply with `id: null`. */
export function invalidRequest(message: string, data?: unknown): JsonRpcObject {
  const error = data === undefined ? { code: -32600, message } : { code: -32600, message, data };
  return { jsonrpc: "2.0", id: null, error };
}

export function classifyMessage(text: string): Classified {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reply: PARSE_ERROR };
  }
  if (Array.isArray(value)) return { reply: BATCH_ERROR };
  if (value !== null && typeof value === "object") return { message: value as JsonRpcObject };
  return { reply: invalidRequest("Invalid request", value) };
}
