/**
 * Node (and Deno) load their `fetch` implementation on the first call, which
 * costs tens of milliseconds; a turn's first model request should not pay
 * that. Fetching a `data:` URL loads it without touching the network.
 * @module
 */

let warmed: Promise<void> | undefined;

/** Loads the runtime's `fetch` machinery once; never rejects. */
export function warmUpFetch(): Promise<void> {
  warmed ??= fetch("data:text/plain,").then(
    (response) => response.arrayBuffer().then(() => undefined),
    () => undefined,
  ).catch(() => undefined);
  return warmed;
}
