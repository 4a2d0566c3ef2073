/**
 * `sandbox.allowHosts`, end to end over stdio: in `auto` mode a confined
 * command reaches a host the user's settings name — through the session's
 * filtering proxy, plain http (absolute-form) and a CONNECT tunnel alike —
 * and nothing else: another local server is refused with a 403 naming the
 * setting (its handler never runs), a connection that ignores the proxy
 * variables reaches nothing, hostile CONNECT targets (userinfo, IPv6
 * literals, a trailing-dot spelling, a huge head, garbage bytes) are
 * refused cleanly and the proxy keeps serving; a background command gets
 * the same way out, and so does one in the editor's terminal. A project file that names
 * hosts is ignored, with a notice.
 */
import { describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { NODE, RUNTIMES } from "../helpers/agent-process.ts";
import { EditorTerminals } from "../helpers/editor-capabilities.ts";
import { prng } from "../fuzz/session-file-mutations.ts";
import { finalStatus, startScenario, toolText, toolResultText, type ScenarioOptions } from "../helpers/scenario.ts";

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", input: { command } }] });
const done = { text: "done" };

/** A local HTTP server that counts the requests its handler saw, by path. */
function site(name: string): Promise<{ server: Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? "");
    response.writeHead(200, { "content-type": "text/plain", connection: "close" });
    response.end(`hello from ${name} ${request.url}\n`);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, hits })));
}

/** Ends the agent and the test's servers. */
function closeAll(s: { close(): void }, ...servers: Array<{ close(): unknown }>): void {
  s.close();
  for (const server of servers) server.close();
}

/**
 * Run inside the sandbox by the runtime itself: sends each raw request head to the proxy the environment
 * names and prints the first line of each answer (or the whole answer of the last, a tunnel that works).
 */
const HOSTILE_CLIENT = `
const net = require("node:net");
const port = Number(new URL(process.env.HTTP_PROXY).port);
const cases = JSON.parse(require("node:fs").readFileSync("hostile-cases.json", "utf8"));
const send = (bytes) => new Promise((resolve) => {
  const socket = net.connect(port, "127.0.0.1");
  let got = "";
  socket.on("data", (d) => (got += d.toString("latin1")));
  socket.on("error", (e) => resolve("ERROR " + e.code + " " + got));
  socket.on("close", () => resolve(got));
  socket.write(Buffer.from(bytes, "base64"));
});
(async () => {
  for (const [label, bytes, whole] of cases) {
    const answer = await send(bytes);
    console.log(label + " => " + (whole ? answer.replace(/\\r\\n/g, " | ") : answer.split("\\r\\n")[0] || "(nothing)"));
  }
})();
`;


function hostileCases(allowed: number, other: number): Array<[string, string, boolean]> {
  const b64 = (text: string | Uint8Array) => Buffer.from(text as string).toString("base64");
  // Seeded: a failing run can be repeated.
  const random = prng(20261206);
  const garbage = new Uint8Array(600).map(() => Math.floor(random() * 256));
  return [
    ["userinfo", b64(`CONNECT evil:1@127.0.0.1:${allowed} HTTP/1.1\r\nHost: evil:1@127.0.0.1:${allowed}\r\n\r\n`), false],
    ["ipv6-loopback", b64(`CONNECT [::1]:${allowed} HTTP/1.1\r\n\r\n`), false],
    // The IPv4-mapped spelling is the allowed host itself (the one normaliser reads it so); NAT64 carries it without being it.
    ["ipv6-mapped", b64(`CONNECT [::ffff:127.0.0.1]:${allowed} HTTP/1.1\r\n\r\nGET /mapped HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), false],
    ["nat64", b64(`CONNECT [64:ff9b::127.0.0.1]:${allowed} HTTP/1.1\r\n\r\n`), false],
    ["trailing-dot", b64(`CONNECT 127.0.0.1.:${other} HTTP/1.1\r\n\r\n`), false],
    ["localhost", b64(`CONNECT localhost:${allowed} HTTP/1.1\r\n\r\n`), false],
    ["no-port", b64(`CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n`), false],
    ["origin-form", b64(`GET /direct HTTP/1.1\r\nHost: 127.0.0.1:${allowed}\r\n\r\n`), false],
    ["huge", b64(`CONNECT 127.0.0.1:${allowed}${"a".repeat(40_000)} HTTP/1.1\r\n\r\n`), false],
    ["garbage", b64(Buffer.concat([Buffer.from(garbage), Buffer.from("\r\n\r\n")])), false],
    ["folded", b64(`GET http://127.0.0.1:${other}/folded HTTP/1.1\r\nHost: x\r\n y\r\n\r\n`), false],
    ["after", b64(`CONNECT 127.0.0.1:${allowed} HTTP/1.1\r\n\r\nGET /after HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), true],
  ];
}

/**
 * Run inside the sandbox by the runtime itself: a command that goes for the carrier directly. It finds
 * the forwarder in its own process namespace, reports whether the forwarder's environment holds the
 * key, then, by `mode`: `forge` stops the forwarder and speaks the framing in its place (one stream to
 * the other host, one to the allowed host, reading the answers); `garbage` writes a frame of no known kind there and
 * waits for the forwarder to stop; `kill` kills the forwarder and waits for it to be gone.
 */
const HOSTILE_CARRIER = `
const fs = require("node:fs");
const [mode, key, allowed, other] = process.argv.slice(2);
const mine = new Set([String(process.pid), String(process.ppid)]);
const pid = fs.readdirSync("/proc").find((p) => {
  if (!/^[0-9]+$/.test(p) || mine.has(p)) return false;
  // Not bubblewrap (process 1 here), whose command line holds the forwarder's too.
  try { const line = fs.readFileSync("/proc/" + p + "/cmdline", "latin1"); return !line.split("\\0")[0].endsWith("bwrap") && (line.includes("node:net") || line.includes("__sandbox-forwarder")); } catch { return false; }
});
if (!pid) { console.log("no forwarder found"); process.exit(1); }
console.log("forwarder environment holds the key: " + fs.readFileSync("/proc/" + pid + "/environ", "latin1").includes(key));
const frame = (kind, id, value, payload) => {
  const b = Buffer.alloc(9 + (payload ? payload.length : 0));
  b.writeUInt8(kind, 0); b.writeUInt32BE(id, 1); b.writeUInt32BE(value, 5);
  if (payload) payload.copy(b, 9);
  return b;
};
const gone = () => { try { process.kill(Number(pid), 0); return false; } catch { return true; } };
const waitGone = () => { if (gone()) console.log("forwarder gone"); else setTimeout(waitGone, 50); };
const up = fs.openSync("/proc/" + pid + "/fd/1", "w");
if (mode === "forge") {
  // The forwarder stopped, the command alone reads the agent's answers: it speaks the framing itself.
  process.kill(Number(pid), "SIGSTOP");
  const toOther = Buffer.from("CONNECT 127.0.0.1:" + other + " HTTP/1.1\\r\\n\\r\\nGET /forged-other HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n");
  const toAllowed = Buffer.from("CONNECT 127.0.0.1:" + allowed + " HTTP/1.1\\r\\n\\r\\nGET /forged HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n");
  const [a, b] = [4000000000, 4000000001];
  fs.writeSync(up, Buffer.concat([frame(1, a, 0), frame(2, a, toOther.length, toOther), frame(3, a, 0), frame(1, b, 0), frame(2, b, toAllowed.length, toAllowed), frame(3, b, 0)]));
  const down = fs.openSync("/proc/" + pid + "/fd/0", "r");
  const got = { [a]: "", [b]: "" };
  const over = new Set();
  let buffered = Buffer.alloc(0);
  while (over.size < 2) {
    const chunk = Buffer.alloc(65536);
    const n = fs.readSync(down, chunk);
    if (n === 0) break;
    buffered = Buffer.concat([buffered, chunk.subarray(0, n)]);
    while (buffered.length >= 9) {
      const kind = buffered[0], id = buffered.readUInt32BE(1), value = buffered.readUInt32BE(5);
      const size = kind === 2 ? value : 0;
      if (buffered.length < 9 + size) break;
      if (kind === 2 && id in got) got[id] += buffered.subarray(9, 9 + size).toString("latin1");
      if ((kind === 3 || kind === 4) && id in got) over.add(id);
      buffered = buffered.subarray(9 + size);
    }
  }
  console.log("forged-other => " + got[a].split("\\r\\n")[0]);
  console.log("forged-allowed => " + got[b].replace(/\\r\\n/g, " | "));
} else if (mode === "garbage") {
  fs.writeSync(up, Buffer.from([99, 0, 0, 0, 1, 255, 255, 255, 255]));
  waitGone();
} else {
  process.kill(Number(pid), "SIGKILL");
  waitGone();
}
`;

describe.each(RUNTIMES)("sandbox.allowHosts on %s", (runtime) => {
  test("a confined command reaches the allowed host through the proxy, and nothing else", async () => {
    const allowed = await site("allowed");
    const other = await site("other");
    const curl = (url: string, extra = "") => `curl -sS --max-time 20 ${extra} ${url}; echo " exit=$?"`;
    const options: ScenarioOptions = {
      script: [
        bash("env", `echo "proxy=$HTTP_PROXY https=$HTTPS_PROXY all=$ALL_PROXY no=[$NO_PROXY$no_proxy]"`),
        bash("plain", curl(`http://127.0.0.1:${allowed.port}/plain`)),
        bash("tunnel", curl(`http://127.0.0.1:${allowed.port}/tunnel`, "--proxytunnel")),
        bash("other", curl(`http://127.0.0.1:${other.port}/other`)),
        bash("other-tunnel", curl(`http://127.0.0.1:${other.port}/other-tunnel`, "--proxytunnel")),
        bash("direct", curl(`http://127.0.0.1:${allowed.port}/direct`, "--noproxy '*'")),
        bash("hostile", `"${NODE}" hostile-client.js`),
        // A background command gets the same way out.
        { toolCalls: [{ id: "bg", name: "bash", input: { command: `{ ${curl(`http://127.0.0.1:${allowed.port}/background`)}; } > bg.txt; mv bg.txt bg-done.txt`, background: true } }] },
        done,
      ],
      args: ["--approval-mode", "auto"],
      settings: { sandbox: { allowHosts: [`127.0.0.1:${allowed.port}`] } },
      files: { "project/hostile-client.js": HOSTILE_CLIENT, "project/hostile-cases.json": JSON.stringify(hostileCases(allowed.port, other.port)) },
      env: (sandbox) => ({ HOME: join(sandbox.root, "user") }),
    };
    const s = await startScenario(runtime, options);
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const updates = s.updates();
      // The setting is honoured now: no session notice says otherwise.
      expect(JSON.stringify(updates)).not.toContain("not supported");
      // session/status and /session name the hosts.
      const status = await (s.client.agent.request as (m: string, p: unknown) => Promise<any>)("session/status", { sessionId: s.sessionId });
      expect(status.sandbox).toMatchObject({ commands: "sandboxed", allowHosts: [`127.0.0.1:${allowed.port}`] });
      const before = s.updates().length;
      await s.prompt("/session");
      expect(JSON.stringify(s.updates(before))).toContain(`network only to 127.0.0.1:${allowed.port} through the proxy`);
      expect(toolText(updates, "env")).toContain('"sandboxed":true');
      expect(toolResultText(updates, "env")).toMatch(/proxy=http:\/\/127\.0\.0\.1:\d+ https=http:\/\/127\.0\.0\.1:\d+ all=http:\/\/127\.0\.0\.1:\d+ no=\[\]/);

      expect(toolResultText(updates, "plain")).toContain("hello from allowed /plain");
      expect(toolResultText(updates, "tunnel")).toContain("hello from allowed /tunnel");

      expect(toolResultText(updates, "other")).toContain(`127.0.0.1:${other.port} is not in sandbox.allowHosts`);
      expect(toolResultText(updates, "other-tunnel")).toContain("403");
      expect(toolResultText(updates, "other-tunnel")).not.toContain("hello from");
      expect(finalStatus(updates, "other-tunnel")).toBe("completed");

      expect(toolResultText(updates, "direct")).not.toContain("hello from");
      expect(toolResultText(updates, "direct")).toMatch(/exit=[1-9]/);

      const hostile = toolResultText(updates, "hostile");
      const refused: Record<string, number> = {
        userinfo: 400,
        "ipv6-loopback": 403,
        "ipv6-mapped": 200,
        nat64: 403,
        "trailing-dot": 403,
        localhost: 403,
        "no-port": 400,
        "origin-form": 400,
        huge: 431,
        garbage: 400,
        folded: 400,
      };
      for (const [label, status] of Object.entries(refused)) expect(hostile).toContain(`${label} => HTTP/1.1 ${status} `);
      // After all of that the proxy still serves.
      expect(hostile).toContain("after => HTTP/1.1 200 Connection Established");
      expect(hostile).toContain("hello from allowed /after");

      await waitFor(() => existsSync(join(s.sandbox.project, "bg-done.txt")), 20_000, "the background command's request");
      expect(readFileSync(join(s.sandbox.project, "bg-done.txt"), "utf8")).toContain("hello from allowed /background");

      // The other server's handler never ran; the allowed one saw only what went through the proxy.
      expect(other.hits).toEqual([]);
      expect(allowed.hits.sort()).toEqual(["/after", "/background", "/mapped", "/plain", "/tunnel"]);
    } finally {
      closeAll(s, allowed.server, other.server);
    }
  }, 90_000);

  test("the carrier fails closed: frames a command writes itself are judged per stream; garbage or a killed forwarder leaves connection refused, never a way around; Unix sockets stay refused", async () => {
    const allowed = await site("allowed");
    const other = await site("other");
    let otherConnections = 0;
    other.server.on("connection", () => otherConnections++);
    const service = createNetServer((socket) => socket.end("SERVICE-REPLY\n"));
    const socketPath = join(mkdtempSync(join(tmpdir(), "acp-edge-service-")), "service.sock");
    await new Promise<void>((resolve) => service.listen(socketPath, resolve));
    const key = "sk-ant-hidden-from-the-forwarder-0123456789";
    const curl = (path: string) => `curl -sS --max-time 20 http://127.0.0.1:${allowed.port}${path}; echo " exit=$?"`;
    const carrier = (mode: string) => `"${NODE}" hostile-carrier.js ${mode} ${key} ${allowed.port} ${other.port}`;
    const s = await startScenario(runtime, {
      script: [
        bash("unix", `"${NODE}" -e "const c = require('net').connect('${socketPath}'); c.on('data', (d) => console.log('GOT ' + d)); c.on('error', (e) => console.log('no connection: ' + e.code))"; echo "proxy=$HTTP_PROXY"`),
        bash("forge", carrier("forge")),
        bash("garbage", `${carrier("garbage")}; ${curl("/after-garbage")}`),
        bash("kill", `${carrier("kill")}; ${curl("/after-kill")}`),
        bash("fresh", curl("/fresh")),
        done,
      ],
      args: ["--approval-mode", "auto"],
      settings: { sandbox: { allowHosts: [`127.0.0.1:${allowed.port}`] } },
      files: { "project/hostile-carrier.js": HOSTILE_CARRIER },
      env: (sandbox) => ({ HOME: join(sandbox.root, "user"), ANTHROPIC_API_KEY: key }),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const updates = s.updates();
      // The socket filter holds with allowed hosts: the command has a proxy and still no Unix socket.
      expect(toolText(updates, "unix")).toContain("no connection: EACCES");
      expect(toolText(updates, "unix")).toMatch(/proxy=http:\/\/127\.0\.0\.1:\d+/);
      expect(toolText(updates, "unix")).not.toContain("SERVICE-REPLY");

      expect(toolText(updates, "forge")).toContain("forwarder environment holds the key: false");
      // A stream the command made up is judged as any: the allowed host is reached, the other is refused unseen.
      expect(toolText(updates, "forge")).toContain("forged-other => HTTP/1.1 403 Forbidden");
      expect(toolText(updates, "forge")).toContain("hello from allowed /forged");

      expect(toolText(updates, "garbage")).toContain("forwarder gone");
      expect(toolText(updates, "garbage")).toMatch(/after-garbage[\s\S]*exit=7|exit=7/);
      expect(toolText(updates, "kill")).toContain("forwarder gone");
      expect(toolText(updates, "kill")).toContain("exit=7");
      // The next command has a carrier of its own.
      expect(toolText(updates, "fresh")).toContain("hello from allowed /fresh");

      expect(allowed.hits.sort()).toEqual(["/forged", "/fresh"]);
      expect(other.hits).toEqual([]);
      expect(otherConnections).toBe(0);
    } finally {
      closeAll(s, allowed.server, other.server);
      service.close();
      rmSync(join(socketPath, ".."), { recursive: true, force: true });
    }
  }, 90_000);

  test("a cancelled command's connection through the proxy ends with it, upstream too; the next command gets a carrier of its own", async () => {
    const allowed = await site("allowed");
    // A response that never ends: its upstream connection stays open until the proxy ends it.
    let reached: () => void = () => {};
    const slowReached = new Promise<void>((resolve) => (reached = resolve));
    let upstreamClosed: Promise<void> = new Promise(() => {});
    const slow = createServer((request, response) => {
      upstreamClosed = new Promise((resolve) => request.socket.once("close", () => resolve()));
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("first part\n");
      reached();
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", () => resolve()));
    const slowPort = (slow.address() as { port: number }).port;
    const s = await startScenario(runtime, {
      script: [bash("slow", `curl -sS -N http://127.0.0.1:${slowPort}/slow`), bash("fresh", `curl -sS --max-time 20 http://127.0.0.1:${allowed.port}/fresh`), done],
      args: ["--approval-mode", "auto"],
      settings: { sandbox: { allowHosts: [`127.0.0.1:${allowed.port}`, `127.0.0.1:${slowPort}`] } },
      env: (sandbox) => ({ HOME: join(sandbox.root, "user") }),
    });
    try {
      const turn = s.prompt("go");
      await slowReached;
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      // Settles only when the proxy ends its connection to the server.
      await upstreamClosed;
      expect((await s.prompt("again")).stopReason).toBe("end_turn");
      expect(toolResultText(s.updates(), "fresh")).toContain("hello from allowed /fresh");
    } finally {
      closeAll(s, allowed.server, slow);
    }
  }, 60_000);

  test("in the editor's terminal the sandbox it runs has the same way out: the allowed host is reached, another is refused", async () => {
    const allowed = await site("allowed");
    const other = await site("other");
    const terminals = new EditorTerminals();
    const s = await startScenario(runtime, {
      script: [
        bash("term", `curl -sS --max-time 20 http://127.0.0.1:${allowed.port}/term; curl -sS --max-time 20 http://127.0.0.1:${other.port}/term; echo " term-done"`),
        done,
      ],
      args: ["--approval-mode", "auto"],
      settings: { sandbox: { allowHosts: [`127.0.0.1:${allowed.port}`] } },
      capabilities: { terminal: true },
      terminals,
      env: (sandbox) => ({ HOME: join(sandbox.root, "user") }),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(terminals.created).toHaveLength(1);
      // The editor runs the same command line: the shell that opens the socket filter and the carrier, then bubblewrap.
      expect(terminals.created[0]!.command).toBe("/bin/sh");
      expect(terminals.created[0]!.args.find((arg) => arg.endsWith("/bwrap"))).toBeDefined();
      expect(terminals.created[0]!.args).toContain("--seccomp");
      // The terminal's output, as the tool call's last update carries it.
      const text = toolText(s.updates(), "term");
      expect(text).toContain("hello from allowed /term");
      expect(text).toContain(`127.0.0.1:${other.port} is not in sandbox.allowHosts`);
      expect(text).toContain("term-done");
      expect(other.hits).toEqual([]);
    } finally {
      closeAll(s, allowed.server, other.server);
    }
  }, 60_000);

  test("a project file that names hosts is ignored, with a notice: the command reaches nothing", async () => {
    const allowed = await site("allowed");
    const s = await startScenario(runtime, {
      script: [bash("plain", `curl -sS --max-time 20 http://127.0.0.1:${allowed.port}/plain; echo " exit=$? proxy=[$HTTP_PROXY]"`), done],
      args: ["--approval-mode", "auto"],
      files: { "project/.acp-edge/settings.json": JSON.stringify({ sandbox: { allowHosts: [`127.0.0.1:${allowed.port}`] } }) },
      env: (sandbox) => ({ HOME: join(sandbox.root, "user") }),
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(toolResultText(s.updates(), "plain")).toContain("proxy=[]");
      expect(toolResultText(s.updates(), "plain")).not.toContain("hello from");
      expect(allowed.hits).toEqual([]);
      expect(s.proc.stderr()).toContain("ignored");
      expect(s.proc.stderr()).toContain("sandbox");
    } finally {
      closeAll(s, allowed.server);
    }
  }, 60_000);
});
