// WebSocket round-trip latency and throughput of `agent serve`, per runtime.
// Measures, over one /acp connection on loopback:
//   - round trips: sequential `initialize` requests (p50 / p99),
//   - request throughput: pipelined `initialize` requests (window 256),
//   - streaming: a faux/echo prompt of 200 KB answered as ~50k `agent_message_chunk` updates.
// Usage: npm run bench:ws   (or `node bench/ws-latency.mjs [round-trips]` after `npm run build`)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import WebSocket from "ws";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const roundTrips = Number(process.argv[2] ?? 2000);
const token = "bench-token-0123456789abcdefghij";
const servers = [
  { name: "node dist/cli.js", command: process.execPath, args: [join(root, "dist", "cli.js")] },
  { name: "bun dist/cli.js", command: join(bin, "bun"), args: [join(root, "dist", "cli.js")] },
  { name: "deno run -A dist/cli.js", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "dist", "cli.js")] },
];

function start(server, home) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(server.command, [...server.args, "agent", "serve", "--port", "0", "--model", "faux/echo", "--no-session"], {
      env: benchEnv({ ACP_EDGE_HOME: home, ACP_EDGE_TOKEN: token }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (c) => {
      err += c;
      const url = /listening on (http:\/\/\S+)/.exec(err)?.[1];
      if (url) resolvePromise({ child, url: url.replace("http", "ws") });
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

function connect(url) {
  return new Promise((resolvePromise, reject) => {
    const ws = new WebSocket(`${url}/acp`, ["agent-client-protocol.v1"], { headers: { Authorization: `Bearer ${token}` } });
    const waiting = new Map();
    const updates = { count: 0, bytes: 0 };
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString());
      if (message.method === "session/update") {
        updates.count += 1;
        updates.bytes += data.length;
        return;
      }
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    });
    let next = 0;
    const request = (method, params) =>
      new Promise((done) => {
        const id = ++next;
        waiting.set(id, done);
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      });
    ws.once("open", () => resolvePromise({ ws, request, updates }));
    ws.once("error", reject);
  });
}

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

console.log(`agent serve over WebSocket (loopback, one /acp connection)`);
console.log(`${"server".padEnd(26)} ${"RTT p50".padStart(9)} ${"RTT p99".padStart(9)} ${"requests/s".padStart(11)} ${"updates/s".padStart(10)} ${"MB/s".padStart(6)}`);
for (const server of servers) {
  const home = mkdtempSync(join(tmpdir(), "acp-edge-wsbench-"));
  const { child, url } = await start(server, home);
  try {
    const { ws, request, updates } = await connect(url);
    const init = { protocolVersion: 1, clientCapabilities: {} };
    await request("initialize", init);
    for (let i = 0; i < 200; i += 1) await request("initialize", init); // warm up
    const rtts = [];
    for (let i = 0; i < roundTrips; i += 1) {
      const t = performance.now();
      await request("initialize", init);
      rtts.push((performance.now() - t) * 1000);
    }
    const total = 20_000;
    let inFlight = [];
    const started = performance.now();
    for (let i = 0; i < total; i += 1) {
      inFlight.push(request("initialize", init));
      if (inFlight.length >= 256) {
        await Promise.all(inFlight);
        inFlight = [];
      }
    }
    await Promise.all(inFlight);
    const rps = total / ((performance.now() - started) / 1000);

    const { result } = await request("session/new", { cwd: root, mcpServers: [] });
    const text = "stream ".repeat(200 * 1024 / 7);
    updates.count = 0;
    updates.bytes = 0;
    const t = performance.now();
    await request("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text }] });
    const seconds = (performance.now() - t) / 1000;
    console.log(
      `${server.name.padEnd(26)} ${`${percentile(rtts, 0.5).toFixed(0)} µs`.padStart(9)} ${`${percentile(rtts, 0.99).toFixed(0)} µs`.padStart(9)} ${rps.toFixed(0).padStart(11)} ${(updates.count / seconds).toFixed(0).padStart(10)} ${(updates.bytes / seconds / 1e6).toFixed(1).padStart(6)}`,
    );
    ws.close();
  } finally {
    child.kill("SIGTERM");
    rmSync(home, { recursive: true, force: true });
  }
}
