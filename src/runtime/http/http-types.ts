/**
 * What listening for HTTP is, whatever the runtime: the options a server is
 * started with and what it gives back. Its own module so that the dispatcher
 * (`http-server.ts`) and each runtime's adapter share it without importing
 * one another.
 * @module
 */

/** The application's request handler; `env` is the runtime's (node bindings, Bun's server). */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

/** How a server is started: where it listens and who answers its requests. */
export interface HttpServerOptions {
  hostname: string;
  port: number;
  fetch: FetchHandler;
  /** The upgrader's piece for this runtime's server (see `WebSocketUpgrader.websocket`). */
  websocket: unknown;
  /** Called with the runtime's server object once it exists (see `WebSocketUpgrader.attach`). */
  attach(server: unknown): void;
}

/** A listening server. */
export interface HttpServer {
  /** The bound port (useful with port 0). */
  port: number;
  hostname: string;
  /** Stops accepting connections; open WebSockets are the caller's to close. */
  close(): Promise<void>;
}
