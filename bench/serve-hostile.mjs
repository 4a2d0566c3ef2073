// Hostile HTTP clients against `agent serve`, per runtime, with the server's peak RSS for each attack:
//   bodies:    POST /v1/sessions with a 100 MB `{"cwd":"/aaaa…"}` — with Content-Length, chunked (no length), with a
//              Content-Length that lies (says 1,000 bytes, sends 100 MB; says 100 MB, sends 10 bytes and stalls), a
//              slow trickle (a byte every 20 ms for 5 s), four concurrent 480 MB bodies; then POST /acp with four
//              concurrent 100 MB bodies (its limit is the 16 MiB message limit);
//   abandoned: 64 `initialize` POSTs to /acp that never DELETE, then a new WebSocket and a new HTTP client, at once
//              and again after the Retry-After they were given; then 1,000 more abandoned `initialize` POSTs, each
//              followed by a WebSocket client; and on a server with `--http-idle-timeout 5`, 64 abandoned
//              connections and what is left of them 6 s later.
// Each line: what was sent, the answer (status, answer bytes, bytes the server took before answering), and the
// server's peak RSS during that attack (VmHWM, reset through /proc/PID/clear_refs before each one).
// Usage: npm run build && node bench/serve-hostile.mjs [--runtimes node,bun,deno] [--only bodies|abandoned]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import WebSocket from "ws";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const option = (name, fallback) => {
  const at = flags.indexOf(`--${name}`);
  return flags.find((f) => f.startsWith(`--${name}=`))?.slice(name.length + 3) ?? (at >= 0 ? flags[at + 1] : fallback);
};
const runtimes = option("runtimes", "node,bun,deno").split(",");
const only = option("only", "");
const token = "bench-token-0123456789abcdefghij";
const cli = join(root, "dist", "cli.js");
const commands = {
  node: [process.execPath, [cli]],
  bun: [join(bin, "bun"), [cli]],
  deno: [join(bin, "deno"), ["run", "-A", "--quiet", cli]],
};
const MB = 1_000_000;

async function startServer(runtime, args = []) {
  const work = mkdtempSync(join(tmpdir(), "acp-edge-hostile-"));
  const home = join(work, "home");
  const project = join(work, "project");
  for (const dir of [home, project]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, "settings.json"), "{}");
  const [command, prefix] = commands[runtime];
  // A minimal environment: nothing of this shell reaches the measured process.
  const child = spawn(command, [...prefix, "agent", "serve", "--port", "0", "--model", "faux/echo", ...args], {
    env: benchEnv({ HOME: work, ACP_EDGE_HOME: home, ACP_EDGE_TOKEN: token }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise((done, fail) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) done(m[1]);
    });
    child.once("exit", () => fail(new Error(`the server exited: ${stderr}`)));
  });
  return {
    url,
    project,
    pid: child.pid,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    stop() {
      child.kill("SIGKILL");
      rmSync(work, { recursive: true, force: true });
    },
  };
}

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
const peak = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, "5");
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * One HTTP/1.1 request over a raw socket. The body is `{"cwd":"/aaa…"}` of `size` bytes, sent with a
 * Content-Length (`declared`, the true size by default) or chunked; writing stops as soon as the server answers or
 * closes. `trickle` sends one byte per `trickle` ms instead, for at most `trickleMs`.
 */
function rawPost(url, path, { size, chunked = false, declared = size, stallAfter, trickle, trickleMs = 5000, extra = {} }) {
  const target = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(target.port), target.hostname);
    // The answer's head, the first bytes of its body, and how many body bytes came (an echo can be huge).
    let head = "";
    let status = 0;
    let excerpt = "";
    let answerBytes = 0;
    let expected = Number.POSITIVE_INFINITY;
    let chunkedAnswer = false;
    let tail = "";
    let sent = 0;
    let finished = false;
    const started = Date.now();
    const finish = (how) => {
      if (finished) return;
      finished = true;
      socket.destroy();
      done({ status, answerBytes, excerpt, sent, ms: Date.now() - started, how });
    };
    const takeBody = (chunk) => {
      answerBytes += chunk.length;
      if (excerpt.length < 200) excerpt += chunk.subarray(0, 200).toString("latin1");
      tail = (tail + chunk.subarray(-5).toString("latin1")).slice(-5);
      if (answerBytes >= expected || (chunkedAnswer && tail === "0\r\n\r\n")) finish("answered");
    };
    socket.on("data", (d) => {
      if (status) return takeBody(d);
      head += d.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      const lines = head.slice(0, end);
      status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines)?.[1] ?? 0) || -1;
      const length = /content-length:\s*(\d+)/i.exec(lines)?.[1];
      if (length !== undefined) expected = Number(length);
      chunkedAnswer = /transfer-encoding:\s*chunked/i.test(lines);
      takeBody(Buffer.from(head.slice(end + 4), "latin1"));
    });
    socket.on("close", () => finish("closed"));
    socket.on("error", () => finish("reset"));
    socket.on("connect", async () => {
      const headers = {
        Host: target.host,
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        ...(chunked ? { "Transfer-Encoding": "chunked" } : { "Content-Length": String(declared) }),
        ...extra,
      };
      socket.write(`POST ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
      const prefix = Buffer.from('{"cwd":"/');
      const filler = Buffer.alloc(64 * 1024, "a");
      const write = (chunk) => {
        sent += chunk.length;
        const framed = chunked ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]) : chunk;
        return socket.write(framed) ? Promise.resolve() : new Promise((r) => socket.once("drain", r));
      };
      if (trickle) {
        await write(prefix);
        const end = Date.now() + trickleMs;
        while (!finished && Date.now() < end) {
          await write(Buffer.from("a"));
          await new Promise((r) => setTimeout(r, trickle));
        }
        finish("trickled");
        return;
      }
      const total = stallAfter ?? size;
      await write(prefix);
      while (!finished && sent < total - 2) await write(filler.subarray(0, Math.min(filler.length, total - 2 - sent)));
      if (stallAfter !== undefined) return; // says more than it sends: wait for the server
      if (!finished) await write(Buffer.from('"}'));
      if (chunked && !finished) socket.write("0\r\n\r\n");
    });
  });
}

function describe(result) {
  return `${result.status || "no answer"} (${result.how}) in ${result.ms} ms, answer ${result.answerBytes} bytes, sent ${mib(result.sent)}${result.excerpt ? ` — ${JSON.stringify(result.excerpt.slice(0, 80))}` : ""}`;
}

async function measured(server, label, attack) {
  resetPeak(server.pid);
  const before = rss(server.pid);
  const outcome = await attack();
  const top = peak(server.pid);
  console.log(`  ${label.padEnd(44)} peak RSS ${mib(top)} (+${mib(top - before)} over ${mib(before)}); ${outcome}; server ${server.alive() ? "up" : "DOWN"}`);
}

const SESSIONS = "/v1/sessions";
/** The body attacks, each against a fresh server so one's garbage does not hide the next one's peak. */
const BODY_ATTACKS = [
  ["100 MB with Content-Length", async (server) => describe(await rawPost(server.url, SESSIONS, { size: 100 * MB }))],
  ["100 MB chunked (no Content-Length)", async (server) => describe(await rawPost(server.url, SESSIONS, { size: 100 * MB, chunked: true }))],
  ["says 1,000 bytes, sends 100 MB", async (server) => describe(await rawPost(server.url, SESSIONS, { size: 100 * MB, declared: 1000 }))],
  [
    "says 100 MB, sends 10 bytes, stalls 5 s",
    async (server) => {
      const stalled = rawPost(server.url, SESSIONS, { size: 100 * MB, stallAfter: 10 });
      const healthy = await fetch(`${server.url}/healthz`).then((r) => r.status);
      const result = await Promise.race([stalled, new Promise((r) => setTimeout(() => r(undefined), 5000))]);
      return `${result ? describe(result) : "still open after 5 s"}; /healthz meanwhile ${healthy}`;
    },
  ],
  [
    "slow trickle, a byte every 20 ms for 5 s",
    async (server) => {
      const trickling = rawPost(server.url, SESSIONS, { size: 0, chunked: true, trickle: 20 });
      const healthy = await fetch(`${server.url}/healthz`).then((r) => r.status);
      return `${describe(await trickling)}; /healthz meanwhile ${healthy}`;
    },
  ],
  [
    "4 concurrent 480 MB chunked",
    async (server) => {
      const results = await Promise.all(Array.from({ length: 4 }, () => rawPost(server.url, SESSIONS, { size: 480 * MB, chunked: true })));
      return results.map((r) => `${r.status || r.how}/${mib(r.sent)}`).join(", ");
    },
  ],
  [
    "POST /acp: 4 concurrent 100 MB chunked",
    async (server) => {
      const results = await Promise.all(Array.from({ length: 4 }, () => rawPost(server.url, "/acp", { size: 100 * MB, chunked: true })));
      return results.map((r) => `${r.status || r.how}/${mib(r.sent)}`).join(", ");
    },
  ],
];

async function bodies(runtime) {
  for (const [label, attack] of BODY_ATTACKS) {
    const server = await startServer(runtime);
    try {
      await measured(server, label, () => attack(server));
      const created = await fetch(`${server.url}${SESSIONS}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ cwd: server.project }) });
      if (created.status !== 201) console.log(`    afterwards a normal POST /v1/sessions answers ${created.status}`);
    } finally {
      server.stop();
    }
  }
}

const initialize = (url) =>
  fetch(`${url}/acp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }),
  });

function webSocketStatus(url) {
  return new Promise((done) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/acp`, ["agent-client-protocol.v1"], { headers: { Authorization: `Bearer ${token}` } });
    ws.once("open", () => {
      ws.close();
      done(101);
    });
    ws.once("unexpected-response", (_req, res) => {
      res.resume();
      done(res.statusCode);
    });
    ws.once("error", () => done(0));
  });
}

const capabilities = async (url) => (await (await fetch(`${url}/v1/capabilities`, { headers: { Authorization: `Bearer ${token}` } })).json()).connections;

async function abandoned(server) {
  await measured(server, "64 abandoned initialize POSTs", async () => {
    const statuses = [];
    for (let i = 0; i < 64; i += 1) statuses.push((await initialize(server.url)).status);
    const ws = await webSocketStatus(server.url);
    const http = await initialize(server.url);
    return `initializes ${summary(statuses)}; at once a WebSocket client ${ws}, an HTTP client ${http.status} (Retry-After ${http.headers.get("retry-after")})`;
  });
  await measured(server, "the same after Retry-After", async () => {
    const wait = Number((await initialize(server.url)).headers.get("retry-after") ?? 0);
    await new Promise((r) => setTimeout(r, wait * 1000 + 100));
    const ws = await webSocketStatus(server.url);
    const http = await initialize(server.url);
    return `after ${wait} s a WebSocket client ${ws}, an HTTP client ${http.status}; open ${JSON.stringify(await capabilities(server.url))}`;
  });
  await measured(server, "1,000 more abandoned, each then a WebSocket", async () => {
    const statuses = [];
    const sockets = [];
    for (let i = 0; i < 1000; i += 1) {
      statuses.push((await initialize(server.url)).status);
      sockets.push(await webSocketStatus(server.url));
    }
    return `initializes ${summary(statuses)}; WebSockets ${summary(sockets)}`;
  });
}

/** With a 5 s idle timeout: 64 abandoned connections are all closed at their deadlines. */
async function reaped(server) {
  await measured(server, "64 abandoned, --http-idle-timeout 5", async () => {
    for (let i = 0; i < 64; i += 1) await initialize(server.url);
    const before = await capabilities(server.url);
    await new Promise((r) => setTimeout(r, 6000));
    const after = await capabilities(server.url);
    return `open ${before.open} → ${after.open} 6 s later; then a WebSocket client ${await webSocketStatus(server.url)}, an HTTP client ${(await initialize(server.url)).status}`;
  });
}

const summary = (statuses) =>
  Object.entries(statuses.reduce((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}))
    .map(([status, count]) => `${count}× ${status}`)
    .join(", ");

async function abandonedOnce(runtime) {
  for (const [run, args] of [
    [abandoned, []],
    [reaped, ["--http-idle-timeout", "5"]],
  ]) {
    const server = await startServer(runtime, args);
    try {
      await run(server);
    } finally {
      server.stop();
    }
  }
}

for (const runtime of runtimes) {
  if (!only || only === "bodies") {
    console.log(`${runtime} — bodies`);
    await bodies(runtime);
  }
  if (!only || only === "abandoned") {
    console.log(`${runtime} — abandoned connections`);
    await abandonedOnce(runtime);
  }
}
