/**
 * A DNS lookup that ends when the fetch does. The system resolver runs in a
 * thread of its own and cannot be stopped: a resolver that never answers
 * holds it for as long as resolv.conf says (tens of seconds). So the caller
 * stops waiting when its signal aborts (the fetch's time bound, or the
 * turn's cancel) and the late answer is dropped unread. Lookups left behind
 * still hold their thread; at most MAX_LOOKUPS run at once in the process,
 * further ones wait for a place, and when every place is held by a lookup
 * nobody waits for any more, a new one is refused at once with a message
 * saying why. One: Node's thread pool has four threads shared with file
 * I/O, and on Bun two unanswered lookups already held up the agent's own
 * next request to the model until the resolver gave up.
 * @module
 */
import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";

/** Lookups running at once, abandoned ones included. */
export const MAX_LOOKUPS = 1;

let running = 0;
let abandoned = 0;
const waiting = new Set<() => void>();

/** Raised when every lookup place is held by a lookup the resolver has not answered. */
export class ResolverStalledError extends Error {
  override name = "ResolverStalledError";
}

/** Every address of `host`, in the resolver's order; rejects with `signal.reason` as soon as `signal` aborts. */
export async function lookupWithin(host: string, signal: AbortSignal): Promise<LookupAddress[]> {
  signal.throwIfAborted();
  if (running >= MAX_LOOKUPS && abandoned >= running) {
    const earlier = abandoned === 1 ? "an earlier lookup, which is" : `${abandoned} earlier lookups, which are`;
    throw new ResolverStalledError(`${host} was not looked up: the system's resolver has not answered ${earlier} still waiting; try again later`);
  }
  await place(signal);
  let gaveUp = false;
  const done = () => {
    if (gaveUp) abandoned--;
    // The place passes to the first in line, or is given back.
    const next = waiting.values().next();
    if (next.done) running--;
    else {
      waiting.delete(next.value);
      next.value();
    }
  };
  if (signal.aborted) {
    done();
    throw signal.reason;
  }
  const lookup = dnsLookup(host, { all: true, verbatim: true });
  return await new Promise<LookupAddress[]>((resolve, reject) => {
    const onAbort = () => {
      gaveUp = true;
      abandoned++;
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    // A late answer settles a promise already settled: it is dropped.
    lookup.then(resolve, reject).finally(() => {
      signal.removeEventListener("abort", onAbort);
      done();
    });
  });
}

/** Takes a place among the MAX_LOOKUPS, waiting for one in line; rejects when `signal` aborts first. */
function place(signal: AbortSignal): Promise<void> {
  if (running < MAX_LOOKUPS) {
    running++;
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    const wake = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      waiting.delete(wake);
      reject(signal.reason);
    };
    waiting.add(wake);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
