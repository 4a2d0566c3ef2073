/**
 * Random identifiers from the runtime's secure random source. On Node that
 * source loads the whole crypto module the first time it is read, so callers
 * on the start-up path draw their ids when first needed.
 * @module
 */

/** `bytes` random bytes as hex. */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}
