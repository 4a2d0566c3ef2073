/**
 * The `fetch` outbound requests (model providers, MCP servers over HTTP)
 * go through: the runtime's own, which on Bun and Deno honours the proxy
 * variables (proxy-env.ts). Only on a Node whose `fetch` does not, and only
 * when a proxy variable is set, is it undici's with the environment's proxy.
 * @module
 */
import process from "node:process";
import { runtimeName } from "../host/detect.ts";
import { nodeReadsProxyEnv, proxyConfigured } from "./proxy-env.ts";

type Fetch = typeof globalThis.fetch;

/** Whether outbound requests need the proxy-aware `fetch` of proxy-fetch-node.ts. */
export function needsProxiedFetch(): boolean {
  return runtimeName === "node" && proxyConfigured() && !nodeReadsProxyEnv(process.version);
}

/** The `fetch` for outbound requests on this runtime; `undefined` means the global one. */
export async function platformFetch(): Promise<Fetch | undefined> {
  if (!needsProxiedFetch()) return undefined;
  return (await import("./proxy-fetch-node.ts")).proxiedFetch;
}
