/**
 * How much one message (a prompt, a queued prompt, a steering message) may
 * bring into the conversation once expanded: linked files, embedded
 * resources, images, the `@path` files a command embeds. About what the
 * model's context window holds (4 bytes a token), never less than 256 KiB
 * and never more than 4 MiB whatever the model says, so that one small
 * request can never make the agent read or hold more than that.
 * @module
 */

/** Bytes one message may expand into, whatever the model. */
export const PROMPT_BUDGET_CAP = 4 * 1024 * 1024;
/** The least budget, for models that report a tiny window. */
const PROMPT_BUDGET_FLOOR = 256 * 1024;
/** Rough bytes of text per token. */
const BYTES_PER_TOKEN = 4;
/** Distinct links one message may name; each is looked at before anything is read. */
export const PROMPT_LINK_LIMIT = 64;

/** The per-message budget, in bytes, for a model with `contextWindow` tokens. */
export function promptBudget(contextWindow: number): number {
  const fromWindow = Number.isFinite(contextWindow) && contextWindow > 0 ? Math.floor(contextWindow * BYTES_PER_TOKEN) : PROMPT_BUDGET_CAP;
  return Math.min(PROMPT_BUDGET_CAP, Math.max(PROMPT_BUDGET_FLOOR, fromWindow));
}

/** An exact size, digits grouped: `4,000,002 bytes` (two sizes rounded alike could not be told apart). */
export function exactBytes(bytes: number): string {
  return `${String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ",")} bytes`;
}

/** A size for people: `512 KiB`, `1.5 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}
