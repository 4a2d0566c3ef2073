/**
 * `fetch` through the proxy the environment names, for a Node whose own
 * `fetch` does not read it (see proxy-env.ts): undici's `fetch` with its
 * `EnvHttpProxyAgent`, which reads HTTPS_PROXY, HTTP_PROXY, NO_PROXY and
 * their lower-case forms once, here. Imported only when a proxy variable is
 * set, so a process without one never loads undici's package.
 * @module
 */
import { EnvHttpProxyAgent, fetch as undiciFetch } from "undici";

type UndiciInput = Parameters<typeof undiciFetch>[0];
type UndiciInit = NonNullable<Parameters<typeof undiciFetch>[1]>;

const dispatcher = new EnvHttpProxyAgent();

/** The platform's `fetch` contract, sent through the environment's proxy. */
export const proxiedFetch = ((input: string | URL, init?: RequestInit) =>
  undiciFetch(input as UndiciInput, { ...(init as UndiciInit), dispatcher })) as unknown as typeof globalThis.fetch;
