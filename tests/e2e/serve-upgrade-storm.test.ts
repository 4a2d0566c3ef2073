/**
 * Seeded storms of upgrade requests against a small server (4 connections,
 * 2 clients per session), all at once, on every runtime: good and bad
 * methods, paths (quoted, badly escaped, oversized, stale generations),
 * missing `Connection`, key or token, old versions, quoted subprotocols;
 * each client resets at once, reads the answer and closes, or keeps its
 * connection open. Never more sockets than the limit open, every place
 * comes back, the server stays up and a good client gets in after.
 * `UPGRADE_STORM_SEED=N` replays another storm.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { Prng } from "../fuzz/transport-prng.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { bearer, rawSocket, startServe, SUBPROTOCOL, TOKEN, tryUpgrade, type ServeProcess } from "../helpers/serve-process.ts";

const SEED = Number(process.env.UPGRADE_STORM_SEED ?? 20261202);
const CLIENTS = 300;
const MAX_CONNECTIONS = 4;

/** Resets a socket where the runtime can (RST), or destroys it. */
function reset(socket: Socket): void {
  const withReset = socket as Socket & { resetAndDestroy?: () => void };
  if (withReset.resetAndDestroy) withReset.resetAndDestroy();
  else socket.destroy();
}

describe.each(RUNTIMES)("upgrade storms on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;
  beforeAll(async () => {
    sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { maxConnections: MAX_CONNECTIONS, maxClientsPerSession: 2 } }));
    server = await startServe(runtime, sandbox);
  });
  afterAll(async () => {
    await server.stop();
    sandbox.cleanup();
  });

  const capabilities = async () => (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections as { open: number };

  test(`${CLIENTS} hostile upgrade requests at once hold no place for long and never pass the limit (seed ${SEED})`, async () => {
    const created = await (
      await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) })
    ).json();
    const rng = new Prng(SEED);
    const target = new URL(server.url);
    const paths = [
      "/acp",
      `/v1/session/${created.id}/apc`,
      "/v1/session/%22%27%3Cx%3E/apc",
      "/v1/session/%ZZ/apc",
      `/acp?generation=${"9".repeat(50)}`,
      `/v1/session/${created.id}/apc?generation=0`,
      "/acp/../acp",
      `/${"a".repeat(20_000)}`,
    ];
    const openSockets: Socket[] = [];
    /** Upgraded sockets still open when the storm is over (one closed at once frees its place for another). */
    let upgradedAndOpen = 0;
    const client = () => {
      const method = rng.weighted([[6, "GET"], [1, "POST"], [1, "DELETE"], [1, "OPTIONS"]] as const);
      const lines = [`${method} ${rng.pick(paths)} HTTP/1.1`, `Host: ${target.host}`, "Upgrade: websocket"];
      if (rng.chance(0.8)) lines.push("Connection: Upgrade");
      if (rng.chance(0.8)) lines.push(`Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`);
      lines.push(`Sec-WebSocket-Version: ${rng.chance(0.8) ? 13 : 8}`);
      if (rng.chance(0.7)) lines.push(`Sec-WebSocket-Protocol: ${rng.chance(0.8) ? SUBPROTOCOL : `"${SUBPROTOCOL}", x`}`);
      if (rng.chance(0.9)) lines.push(`Authorization: Bearer ${TOKEN}`);
      const ending = rng.weighted([[3, "reset"], [3, "close"], [4, "keep"]] as const);
      return new Promise<void>((resolve) => {
        const socket = connect(Number(target.port), target.hostname, () =>
          socket.write([...lines, "", ""].join("\r\n"), () => {
            if (ending !== "reset") return;
            reset(socket);
            resolve();
          }),
        );
        socket.once("data", (chunk) => {
          if (ending === "close") socket.destroy();
          else {
            openSockets.push(socket);
            if (chunk.toString("latin1").startsWith("HTTP/1.1 101")) upgradedAndOpen += 1;
          }
          resolve();
        });
        socket.on("error", () => resolve());
        socket.on("close", () => resolve());
      });
    };
    try {
      await Promise.all(Array.from({ length: CLIENTS }, client));
      expect(upgradedAndOpen).toBeLessThanOrEqual(MAX_CONNECTIONS);
      expect((await capabilities()).open).toBeLessThanOrEqual(MAX_CONNECTIONS);
    } finally {
      for (const socket of openSockets) socket.destroy();
    }
    // Well before the 10 s deadline that catches what no runtime reports.
    await waitFor(async () => (await capabilities()).open === 0, 4_000, "every place to come back");
    const opened = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(opened.ok).toBe(true);
    if (opened.ok) {
      opened.ws.close();
      await rawSocket(opened.ws).closed;
    }
    expect(server.proc.child.exitCode).toBeNull();
  }, 30_000);
});
