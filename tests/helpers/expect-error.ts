import { expect } from "bun:test";

/** Awaits a request that must fail and returns its JSON-RPC error. */
export async function rpcError(promise: Promise<unknown>, code: number): Promise<{ code: number; message: string; data?: any }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: number; message: string; data?: unknown };
    expect({ code: e.code, message: e.message }).toMatchObject({ code });
    return e as { code: number; message: string; data?: any };
  }
  throw new Error(`expected a JSON-RPC error ${code}, but the request succeeded`);
}

/** Resolves when `predicate` holds, polling; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const started = Date.now();
  // Awaited: a promise is always truthy, so an async predicate not awaited would end the wait at once.
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Awaits a promise that must reject with an error of `type`, and returns that error. */
export async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as T;
  }
  throw new Error(`expected a ${type.name}, but the call succeeded`);
}
