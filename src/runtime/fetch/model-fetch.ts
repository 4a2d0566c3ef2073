/**
 * Getting the runtime's `fetch` ready while idle, so a turn's first model
 * request does not pay for loading it. Node loads undici's `fetch` on the
 * first call and its HTTP/1 client (the llhttp parser, connection pool,
 * streaming body) on the first real connection; Deno loads its fetch code on
 * the first call. Fetching a `data:` URL covers the first; on Node one
 * request to a throwaway server on the loopback interface covers the second
 * (it listens on an ephemeral port for the few milliseconds of the request
 * and answers anything with an empty reply). When a proxy is set that
 * request is not made: the proxy would receive it, and cannot reach our
 * loopback. Loading the proxy-aware `fetch` is then the warm-up.
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { runtimeName } from "../host/detect.ts";
import { platformFetch } from "./platform-fetch.ts";
import { proxyConfigured } from "./proxy-env.ts";

let warmed: Promise<void> | undefined;

/** Loads the outbound `fetch` machinery once; never rejects, never leaves the machine. */
export function warmUpFetch(): Promise<void> {
  warmed ??= (async () => {
    await platformFetch();
    await (await fetch("data:text/plain,")).arrayBuffer();
    if (runtimeName === "node" && !proxyConfigured()) await loopbackRequest();
  })().catch(() => undefined);
  return warmed;
}

async function loopbackRequest(): Promise<void> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end("data: {}\n\n");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await response.arrayBuffer();
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
