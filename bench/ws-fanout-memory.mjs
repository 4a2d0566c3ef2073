// Memory of a fan-out to clients that stop reading, on Node: 16 WebSocket clients that never read, and
// 20 updates of 512 KiB sent to each of them in turn, as a session's fan-out does. Sent through the
// server's sends (src/runtime/websocket/node-ws-sends.ts: the update encoded once, the same Buffer to every
// client) and, for comparison, as a string to `ws.send` (encoded again for every client as it is
// written). Prints what ArrayBuffers (Buffers), the JS heap (strings) and the RSS grew by once the
// sends settle, and the bytes the clients left unread.
// Usage: node bench/ws-fanout-memory.mjs   (bundles the sends module with esbuild; needs no build)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const CLIENTS = 16;
const UPDATES = 20;
const SIZE = 512 * 1024;

// The measured process: one way of sending, in a fresh Node with a minimal environment.
const child = `
import { createServer } from "node:http";
import { connect } from "node:net";
import { WebSocketServer } from "ws";
import { nodeWsSends } from ${JSON.stringify(join(root, "src", "runtime", "websocket", "node-ws-sends.ts"))};
const way = process.argv[2];
const server = createServer();
const wss = new WebSocketServer({ server, perMessageDeflate: false });
const sockets = [];
const settle = () => new Promise((done) => setTimeout(done, 500));
wss.on("connection", async (ws) => {
  sockets.push(ws);
  if (sockets.length < ${CLIENTS}) return;
  await settle();
  globalThis.gc?.();
  const before = process.memoryUsage();
  const sends = sockets.map((ws) => (way === "shared" ? nodeWsSends(ws).send : (text) => ws.send(text)));
  for (let i = 0; i < ${UPDATES}; i++) {
    const update = JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { n: i, text: "x".repeat(${SIZE}) } });
    for (const send of sends) send(update);
  }
  await settle();
  globalThis.gc?.();
  const after = process.memoryUsage();
  const buffered = sockets.reduce((sum, ws) => sum + ws.bufferedAmount, 0);
  const mb = (key) => (after[key] - before[key]) / 2 ** 20;
  process.stdout.write(JSON.stringify({ way, arrayBuffersMb: mb("arrayBuffers"), heapMb: mb("heapUsed"), rssMb: mb("rss"), bufferedMb: buffered / 2 ** 20 }) + "\\n");
  process.exit(0);
});
server.listen(0, "127.0.0.1", () => {
  for (let i = 0; i < ${CLIENTS}; i++) {
    // A client that completes the handshake and then never reads.
    const socket = connect(server.address().port, "127.0.0.1");
    socket.write("GET / HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n");
    socket.once("data", () => socket.pause());
  }
});
`;

const { build } = await import("esbuild");
const dir = mkdtempSync(join(tmpdir(), "ws-fanout-memory-"));
try {
  const entry = join(dir, "entry.ts");
  writeFileSync(entry, child);
  const script = join(dir, "run.mjs");
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: script,
    nodePaths: [join(root, "node_modules")],
    external: ["bufferutil", "utf-8-validate"],
    banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
    logLevel: "error",
  });
  console.log(`${CLIENTS} clients that do not read, ${UPDATES} updates of ${SIZE / 1024} KiB each (node ${process.version})`);
  for (const way of ["shared", "string", "shared", "string"]) {
    const run = spawnSync(process.execPath, ["--expose-gc", script, way], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" }, timeout: 60_000 });
    if (run.status !== 0) throw new Error(run.stderr);
    const r = JSON.parse(run.stdout);
    const label = way === "shared" ? "one Buffer for all clients (the server's sends)" : "a string per client (ws.send(text))";
    console.log(`${label.padEnd(48)} +${r.arrayBuffersMb.toFixed(1)} MB ArrayBuffers, +${r.heapMb.toFixed(1)} MB JS heap, +${r.rssMb.toFixed(1)} MB RSS (bufferedAmount ${r.bufferedMb.toFixed(1)} MB)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
