/**
 * The fuzzer's bookkeeping of what the agent owes: which requests it was
 * sent (decided by parsing the exact bytes the way JSON-RPC 2.0 defines a
 * request), which answers came back, and whether everything the agent wrote
 * is a well-formed JSON-RPC message.
 *
 * Policy: a request whose envelope is valid (`"jsonrpc":"2.0"`, a string
 * `method`, an id that is a string or a finite number) must be answered
 * exactly once with that id. A request with id null, an invalid envelope or
 * an unparsable body may be answered with id null, or not at all; it must
 * never be answered with a non-null id it did not carry.
 */

/** Key under which a response id is matched to a request id (ids compared as JSON values). */
export const idKey = (id: unknown): string => JSON.stringify(id);

const decoder = new TextDecoder();

/** True for a JSON-RPC 2.0 request the agent must answer (id null excluded: its answer is indistinguishable). */
export function isAnswerableRequest(value: unknown): value is { id: string | number; method: string } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string" || !("id" in m)) return false;
  return typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
}

/** What one message body obliges the agent to answer. */
export interface Owing {
  key: string;
  required: boolean;
}

/**
 * The request in one message body, decoded as the agent decodes it: none, a
 * required answer, or (an invalid envelope that still carries a usable id)
 * an optional one.
 */
export function requestIn(body: Uint8Array, maxMessageBytes: number): Owing | undefined {
  let length = body.byteLength;
  if (length > maxMessageBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(body.subarray(0, length)));
  } catch {
    return undefined;
  }
  if (isAnswerableRequest(value)) return { key: idKey(value.id), required: true };
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (!("id" in m) || m.id === null || !("method" in m)) return undefined;
  if (typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id))) return { key: idKey(m.id), required: false };
  return undefined;
}

/** Checks that a message the agent wrote is JSON-RPC 2.0; returns what is wrong, if anything. */
export function outgoingProblem(message: unknown): string | undefined {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return "not a JSON object";
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return `"jsonrpc" is ${JSON.stringify(m.jsonrpc)}`;
  if ("method" in m) {
    if (typeof m.method !== "string") return "a non-string method";
    if ("id" in m && !(typeof m.id === "string" || typeof m.id === "number")) return `a request with id ${JSON.stringify(m.id)}`;
    return undefined;
  }
  if (!("id" in m)) return "neither a method nor an id";
  if (!(m.id === null || typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id)))) return `a response with id ${JSON.stringify(m.id)}`;
  const hasResult = Object.hasOwn(m, "result");
  const hasError = Object.hasOwn(m, "error");
  if (hasResult === hasError) return "a response with both or neither of result and error";
  if (hasError) {
    const e = m.error as Record<string, unknown> | null;
    if (!e || typeof e !== "object" || !Number.isInteger(e.code) || typeof e.message !== "string") return "an error without an integer code and a string message";
  }
  return undefined;
}

interface Owed {
  required: number;
  optional: number;
  got: number;
}

/** Requests sent on one connection and the answers they got. */
export class Ledger {
  readonly #owed = new Map<string, Owed>();
  /** Σ max(0, required − got) over all ids, kept up to date so waiting stays cheap. */
  #missing = 0;

  #entry(key: string): Owed {
    let entry = this.#owed.get(key);
    if (!entry) this.#owed.set(key, (entry = { required: 0, optional: 0, got: 0 }));
    return entry;
  }

  /** Records a request that must be answered (`required`) or may be. */
  expect(key: string, required: boolean): void {
    const entry = this.#entry(key);
    if (required) {
      entry.required++;
      if (entry.got < entry.required) this.#missing++;
    } else {
      entry.optional++;
    }
  }

  /** Records a response; returns a failure description when nothing was owed for its id. */
  answer(id: unknown): string | undefined {
    if (id === null) return undefined;
    const key = idKey(id);
    const entry = this.#owed.get(key);
    if (!entry || entry.got >= entry.required + entry.optional) {
      return entry ? `id ${key.slice(0, 80)} answered ${entry.got + 1} times for ${entry.required + entry.optional} request(s)` : `a response with id ${key.slice(0, 80)}, which no request carried`;
    }
    if (entry.got < entry.required) this.#missing--;
    entry.got++;
    return undefined;
  }

  /** Whether every required answer has come. */
  settled(): boolean {
    return this.#missing === 0;
  }

  /** Ids of requests still waiting for their answer. */
  unanswered(): string[] {
    const out: string[] = [];
    for (const [key, entry] of this.#owed) if (entry.got < entry.required) out.push(key);
    return out;
  }
}
