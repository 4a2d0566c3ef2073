/**
 * Listening on Deno with `Deno.serve`; upgrades happen inside the app's
 * `fetch` through `Deno.upgradeWebSocket`.
 * @module
 */
import type { HttpServer, HttpServerOptions } from "./http-types.ts";

interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}
interface DenoServe {
  serve(options: { hostname: string; port: number; onListen?: () => void }, handler: (request: Request) => Response | Promise<Response>): DenoServer;
}

/** Listens on Deno; resolves once the port is bound. */
export async function listenDeno(options: HttpServerOptions): Promise<HttpServer> {
  const deno = (globalThis as unknown as { Deno: DenoServe }).Deno;
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const server = deno.serve({ hostname: options.hostname, port: options.port, onListen: () => listening() }, (request) => options.fetch(request));
  await ready;
  return {
    port: server.addr.port,
    hostname: options.hostname,
    close: () =>
      // shutdown() waits for open requests (event streams among them); the app ends those itself.
      Promise.race([server.shutdown(), new Promise<void>((resolve) => setTimeout(resolve, 2000))]),
  };
}
