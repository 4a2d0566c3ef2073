/**
 * The `fetch` model requests go through, and getting it ready while idle.
 *
 * On Node that is `nodeFetch` (node-fetch.ts), not undici. A turn's first
 * model request should not pay for loading it either: on Node the first
 * request through `node:http` sets up its client, and the provider packages
 * build a `Headers`, which loads undici's code; Deno loads its fetch code on
 * the first call. Idle warm-up covers both: one request to a throwaway
 * server on the loopback interface (Node; it listens on an ephemeral port
 * for the few milliseconds of the request and answers anything with an
 * empty reply), fetching a `data:` URL elsewhere.
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { runtimeName } from "./detect.ts";

type Fetch = typeof globalThis.fetch;

/** The `fetch` for model requests on this runtime; `undefined` means the global one. */
export async function modelFetch(): Promise<Fetch | undefined> {
  if (runtimeName !== "node") return undefined;
  return (await import("./node-fetch.ts")).nodeFetch as Fetch;
}

let warmed: Promise<void> | undefined;

/** Loads the model requests' `fetch` machinery once; never rejects, never leaves the machine. */
export function warmUpFetch(): Promise<void> {
  warmed ??= (async () => {
    const fetch = await modelFetch();
    if (!fetch) {
      await (await globalThis.fetch("data:text/plain,")).arrayBuffer();
      return;
    }
    void new Headers();
    await loopbackRequest(fetch);
  })().catch(() => undefined);
  return warmed;
}

async function loopbackRequest(fetch: Fetch): Promise<void> {
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
