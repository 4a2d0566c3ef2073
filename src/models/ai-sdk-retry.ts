/**
 * Retries a model request that failed before its stream started, the way
 * the AI SDK's own `maxRetries` does: only errors the provider package marks
 * retryable (429, 5xx, overloaded), exponential backoff from 2 s doubling each
 * time, and a server's `retry-after-ms` / `retry-after` when it asks for less
 * than a minute (or for less than the backoff would wait).
 * @module
 */
import { abortReason } from "../runtime/abort-reason.ts";
import { networkFailure } from "./network-failure.ts";

const INITIAL_DELAY_MS = 2000;
const BACKOFF_FACTOR = 2;
const MAX_SERVER_DELAY_MS = 60_000;

/** Runs `attempt`, retrying it up to `maxRetries` times; the last error is thrown as it is. */
export async function withRetries<T>(attempt: () => Promise<T>, maxRetries: number, signal: AbortSignal): Promise<T> {
  let backoff = INITIAL_DELAY_MS;
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted || tries >= maxRetries || !isRetryable(error)) throw error;
      await sleep(serverDelay(error, backoff), signal);
      backoff *= BACKOFF_FACTOR;
    }
  }
}

/**
 * The provider packages' `APICallError` says whether a retry can help. For a failure to connect
 * they say yes to whatever their runtime's `fetch` calls "fetch failed", which differs between
 * runtimes; a failure no retry can mend (no such host, a proxy that refuses) is never retried.
 */
function isRetryable(error: unknown): boolean {
  if (!(error instanceof Error) || error.name === "AbortError" || (error as { isRetryable?: unknown }).isRetryable !== true) return false;
  return networkFailure(error)?.transient ?? true;
}

/** The wait a server asked for, when it is sensible; else the backoff. */
function serverDelay(error: unknown, backoff: number): number {
  const headers = (error as { responseHeaders?: Record<string, string | undefined> }).responseHeaders;
  if (!headers) return backoff;
  let ms: number | undefined;
  const afterMs = headers["retry-after-ms"];
  if (afterMs) {
    const value = Number.parseFloat(afterMs);
    if (!Number.isNaN(value)) ms = value;
  }
  const after = headers["retry-after"];
  if (after && ms === undefined) {
    const seconds = Number.parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < MAX_SERVER_DELAY_MS || ms < backoff)) return ms;
  return backoff;
}

/** Waits `ms`, or rejects with the abort reason as soon as `signal` fires. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
