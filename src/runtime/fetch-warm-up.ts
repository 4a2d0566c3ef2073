/**
 * A turn's first model request should not pay for loading the runtime's
 * `fetch`. Node loads undici on the first call and its HTTP/1 client (the
 * llhttp parser, connection pool, streaming body) on the first real
 * connection, together 100 ms and more; Deno loads its fetch code on the
 * first call. Fetching a `data:` URL covers the first; on Node one request
 * to a throwaway server on the loopback interface covers the second. That
 * server listens on an ephemeral port for the few milliseconds of the
 * request and answers anything with an empty reply.
 * @module
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { runtimeName } from "./detect.ts";

let warmed: Promise<void> | undefined;

/** Loads the runtime's `fetch` machinery once; never rejects, never leaves the machine. */
export function warmUpFetch(): Promise<void> {
  warmed ??= (async () => {
    await (await fetch("data:text/plain,")).arrayBuffer();
    if (runtimeName === "node") await loopbackRequest();
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
