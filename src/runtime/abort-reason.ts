/**
 * What an aborted operation rejects with, as `fetch` does: the signal's
 * reason, or an `AbortError` when it was aborted without one.
 * @module
 */

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}
