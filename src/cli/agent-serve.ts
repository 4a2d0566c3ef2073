/**
 * `acp-edge agent serve`: the WebSocket sidecar. Loopback only unless
 * `--allow-remote`; the bearer token's source is printed, never the token.
 * SIGINT/SIGTERM shut it down gracefully and exit 0.
 * @module
 */
import { resolveApiToken } from "../config/api-token.ts";
import { isLoopback } from "../runtime/http/http-server.ts";
import { restoreInteractiveJit } from "../runtime/host/jit-policy.ts";
import { log, printError } from "../runtime/log.ts";
import { onSignal } from "../runtime/process/process.ts";
import { serveLimits } from "../server/limits.ts";
import { startServer } from "../server/serve.ts";
import { UsageError, type CliOptions } from "./options.ts";
import { buildServices } from "./build-services.ts";

export const DEFAULT_PORT = 8711;

export async function runServe(options: CliOptions): Promise<number> {
  const hostname = options.host ?? "127.0.0.1";
  if (!isLoopback(hostname) && !options.allowRemote) {
    throw new UsageError(`refusing to listen on ${hostname}: it is not a loopback address (pass --allow-remote to allow it)`);
  }
  // Installed before anything starts: a signal at any moment of start-up is a request to stop, never a kill.
  let stopRequested!: () => void;
  const stop = new Promise<void>((resolve) => (stopRequested = resolve));
  const offInt = onSignal("SIGINT", () => stopRequested());
  const offTerm = onSignal("SIGTERM", () => stopRequested());
  try {
    return await serveUntilStopped(options, hostname, stop);
  } finally {
    offInt();
    offTerm();
  }
}

async function serveUntilStopped(options: CliOptions, hostname: string, stop: Promise<void>): Promise<number> {
  const services = await buildServices(options);
  const token = await resolveApiToken({ ...(options.tokenFile ? { tokenFile: options.tokenFile } : {}), defaultPath: services.config.paths.apiToken });
  const limits = serveLimits(services.config.settings);
  if (options.httpIdleTimeoutSeconds !== undefined) limits.httpIdleTimeoutMs = Math.round(options.httpIdleTimeoutSeconds * 1000);
  const server = await startServer(services, {
    hostname,
    port: options.port ?? DEFAULT_PORT,
    token: token.token,
    limits,
    ...(options.allowOrigins ? { allowedOrigins: options.allowOrigins } : {}),
  });
  if (!isLoopback(hostname)) {
    log.warn(`listening on ${hostname} over plaintext HTTP: the bearer token and all traffic can be read on the network; put TLS in front of it`);
  }
  printError(`acp-edge listening on ${server.url}`);
  printError(`bearer token: ${token.source}`);
  // Listening is interactive: requests may stream turns from now on.
  restoreInteractiveJit();

  await stop;
  printError("acp-edge: shutting down");
  await server.shutdown();
  return 0;
}
