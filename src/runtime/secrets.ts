/**
 * A process-wide list of secret values (API keys, bearer tokens) that must
 * never be printed. Everything that leaves the process as text — ACP
 * messages, session files, logs, error messages, saved command output —
 * passes through `redact`, `redactValue` or a `StreamRedactor`.
 *
 * Only exact occurrences are recognised (plus the form JSON gives a value
 * with quotes, backslashes or control characters): a key that a command or
 * the model transforms (base64, reversed, split by other text) is not.
 * @module
 */

/** Shorter values are not treated as secrets: hiding every "abc" in output would wreck it, and such a key protects nothing. */
export const MIN_SECRET_LENGTH = 8;

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Longest first, so a secret containing another one is hidden whole. */
let secrets: string[] = [];

/** Remembers a secret so that redaction hides it (values shorter than {@link MIN_SECRET_LENGTH} are ignored). */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  // The escaped spelling is what a JSON line holds when the value has quotes, backslashes or control characters.
  const escaped = JSON.stringify(value).slice(1, -1);
  const added = [value, escaped].filter((form) => !secrets.includes(form));
  if (added.length === 0) return;
  secrets = [...secrets, ...added].sort((a, b) => b.length - a.length);
}

/** Replaces every registered secret (exact values only) with `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Whether `text` holds a registered secret (exact values only): such text is not kept anywhere the agent writes. */
export function holdsSecret(text: string): boolean {
  return secrets.some((secret) => text.includes(secret));
}

/** Replaces every registered secret, and anything shaped like a bearer or API key header, with `[redacted]`. */
export function redact(text: string): string {
  return redactShapes(redactSecrets(text));
}

/** Credential-shaped fields (`Authorization: Bearer …`, `api_key=…`), registered or not. Best effort: a field cut in two is not recognised. */
function redactShapes(text: string): string {
  return text
    .replace(/(authorization["']?\s*[:=]\s*["']?bearer\s+)[^\s"',}]+/gi, "$1[redacted]")
    .replace(/((?:x-api-key|api[-_]key)["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, "$1[redacted]");
}

/**
 * A JSON-like value (objects, arrays, strings) with every registered
 * secret hidden in its strings and keys: a copy where something was hidden,
 * the value itself where nothing was. Redacting before
 * serialisation means JSON escaping cannot disguise a secret. `keep` may
 * return true for a path whose string must stay as it is.
 */
export function redactValue<T>(value: T, keep?: (path: readonly (string | number)[]) => boolean): T {
  if (secrets.length === 0) return value;
  return (keep ? walk(value, [], keep) : hide(value)) as T;
}

/**
 * `redactValue` without exceptions: no paths are built, and a value with
 * nothing to hide is returned as it is (copied only where a secret was
 * found), which is what nearly every message of a streamed turn is.
 */
function hide(value: unknown): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const hidden = hide(item);
      if (hidden !== item) (out ??= value.slice())[i] = hidden;
    }
    return out ?? value;
  }
  // Only plain records are rebuilt; anything else (a Uint8Array, a Date) is passed on as it is.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let changed = false;
  const entries: Array<[string, unknown]> = [];
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    const hiddenKey = redactSecrets(key);
    const hidden = hide(item);
    if (hiddenKey !== key || hidden !== item) changed = true;
    entries.push([hiddenKey, hidden]);
  }
  if (!changed) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) out[key] = item;
  return out;
}

function walk(value: unknown, path: (string | number)[], keep?: (path: readonly (string | number)[]) => boolean): unknown {
  if (typeof value === "string") return keep?.(path) ? value : redactSecrets(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index], keep));
  // Only plain records are rebuilt; anything else (a Uint8Array, a Date) is passed on as it is.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[redactSecrets(key)] = walk(item, [...path, key], keep);
  return out;
}

/**
 * Redacts a text stream that arrives in pieces, so a secret split across
 * two pieces is still hidden. `push` returns what is safe to pass on now;
 * it holds back only the shortest tail that could still be the start of a
 * secret (never more than the longest secret minus one character), so
 * ordinary output passes at once. `end` returns the rest.
 */
export class StreamRedactor {
  #held = "";

  /** Characters currently held back (bounded by the longest secret's length − 1). */
  get heldLength(): number {
    return this.#held.length;
  }

  /** Adds a piece; returns the redacted text that can no longer be part of a secret. */
  push(text: string): string {
    if (text === "") return "";
    const redacted = redactSecrets(this.#held + text);
    const hold = pendingPrefixLength(redacted);
    this.#held = redacted.slice(redacted.length - hold);
    return redactShapes(redacted.slice(0, redacted.length - hold));
  }

  /** Returns what is still held back (the stream has ended, so it cannot become a secret). */
  end(): string {
    const rest = redact(this.#held);
    this.#held = "";
    return rest;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of some secret. */
function pendingPrefixLength(text: string): number {
  let longest = 0;
  for (const secret of secrets) {
    const from = Math.max(0, text.length - secret.length + 1);
    for (let i = from; i < text.length; i++) {
      if (text.length - i <= longest) break;
      if (text.charCodeAt(i) === secret.charCodeAt(0) && secret.startsWith(text.slice(i))) {
        longest = text.length - i;
        break;
      }
    }
  }
  return longest;
}
