/**
 * Tool names for MCP tools: `mcp__<server>__<tool>`, limited to the
 * characters and length every model provider accepts (`[A-Za-z0-9_-]`, at
 * most 64), unique, and stable for the same server and tool names.
 * @module
 */

/** Longest tool name providers accept. */
export const MAX_TOOL_NAME_LENGTH = 64;
/** Server keys are kept short so that the tool part always has room. */
const MAX_SERVER_KEY_LENGTH = 24;
const PREFIX = "mcp__";

/** `raw` with every character outside `[A-Za-z0-9_-]` replaced by `_` (never empty). */
export function sanitizeNamePart(raw: string): string {
  const clean = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  return clean === "" ? "_" : clean;
}

/** A short, stable hash of `text` (FNV-1a, base 36). */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36).padStart(7, "0");
}

/** `clean` cut to `max` characters, ending in a hash of `raw` when it had to be cut. */
function fit(clean: string, raw: string, max: number): string {
  if (clean.length <= max) return clean;
  const hash = shortHash(raw);
  return `${clean.slice(0, Math.max(1, max - hash.length - 1))}_${hash}`;
}

/**
 * Unique sanitised keys for `raws`, in the same order. Names that are already
 * clean keep their spelling; the others take the next free `_2`, `_3`, …,
 * assigned in sorted order so that the result does not depend on list order.
 */
export function uniqueKeys(raws: readonly string[], maxLength = MAX_TOOL_NAME_LENGTH): string[] {
  const keys: (string | undefined)[] = raws.map(() => undefined);
  const taken = new Set<string>();
  const order = raws.map((raw, index) => ({ raw, index }));
  for (const { raw, index } of order) {
    const clean = fit(sanitizeNamePart(raw), raw, maxLength);
    if (clean === raw && !taken.has(clean)) {
      keys[index] = clean;
      taken.add(clean);
    }
  }
  const rest = order.filter(({ index }) => keys[index] === undefined).sort((a, b) => (a.raw < b.raw ? -1 : a.raw > b.raw ? 1 : a.index - b.index));
  for (const { raw, index } of rest) {
    let key = fit(sanitizeNamePart(raw), raw, maxLength);
    for (let n = 2; taken.has(key); n++) key = fit(`${sanitizeNamePart(raw)}_${n}`, `${raw}\u0000${n}`, maxLength);
    keys[index] = key;
    taken.add(key);
  }
  return keys as string[];
}

/** Unique keys for a session's server names (short enough to leave room for tool names). */
export function serverKeys(serverNames: readonly string[]): string[] {
  return uniqueKeys(serverNames, MAX_SERVER_KEY_LENGTH);
}

/** The model-facing names of one server's tools, in the order given. */
export function toolNames(serverKey: string, rawToolNames: readonly string[]): string[] {
  const room = MAX_TOOL_NAME_LENGTH - PREFIX.length - serverKey.length - 2;
  return uniqueKeys(rawToolNames, room).map((toolKey) => `${PREFIX}${serverKey}__${toolKey}`);
}
