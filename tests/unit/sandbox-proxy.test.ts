/**
 * The sandbox's filtering proxy outside a sandbox: its reading of request
 * heads (a table, then a seeded fuzzer over mutated and random heads: it
 * never throws, and what it lets through names one well-formed host and is
 * sent on as one clean origin-form head), its decision (a host must be
 * covered before its name is resolved; a `*.domain` entry never reaches a
 * non-public address; only the checked address is connected to), the proxy
 * behind a real forwarder process and its carrier (refusals, many
 * connections larger than the flow-control window with half-close, the
 * forwarder stopping when the agent's end goes), the hidden command that
 * runs the forwarder in a compiled executable, and the agent's end of a
 * carrier fed hostile and fuzzed frames.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, type Duplex } from "node:stream";
import { readHostPattern, hostText } from "../../src/runtime/fetch/host-key.ts";
import { MAX_HEAD_BYTES, headEnd, isRefusal, parseRequestHead } from "../../src/runtime/sandbox/proxy/request-head.ts";
import { decideTarget, readAllowHosts } from "../../src/runtime/sandbox/proxy/proxy-target.ts";
import { createFilteringProxy, type FilteringProxy, type FilteringProxyOptions } from "../../src/runtime/sandbox/proxy/filtering-proxy.ts";
import { FORWARDER_COMMAND, forwarderProgram } from "../../src/runtime/sandbox/network/forwarder.ts";
import { carrierCodec } from "../../src/runtime/sandbox/network/carrier-codec.ts";
import { MAX_CARRIER_STREAMS, serveCarrier } from "../../src/runtime/sandbox/network/carrier-streams.ts";
import { NODE, ROOT } from "../helpers/agent-process.ts";
import { prng } from "../fuzz/session-file-mutations.ts";

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "acp-edge-proxy-unit-")));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (text: string) => new TextEncoder().encode(text);
const parse = (text: string) => parseRequestHead(bytes(text));


describe("reading a request head", () => {
  test("CONNECT host:port and absolute-form http are read; the forwarded head is origin-form, one Host, no proxy headers, Connection: close", () => {
    expect(parse("CONNECT registry.example.com:443 HTTP/1.1\r\nHost: registry.example.com:443\r\n\r\n")).toMatchObject({ kind: "connect", host: { name: "registry.example.com", port: "443" } });
    expect(parse("CONNECT [::1]:8080 HTTP/1.1\r\n\r\n")).toMatchObject({ kind: "connect", host: { name: "[::1]", port: "8080" } });
    expect(parse("CONNECT EXAMPLE.com.:443 HTTP/1.1\r\n\r\n")).toMatchObject({ kind: "connect", host: { name: "example.com", port: "443" } });
    const forward = parse("POST http://Example.com/a/b?c=1 HTTP/1.1\r\nHost: evil.example\r\nProxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\nContent-Length: 2\r\nX-Thing:  v \r\n\r\n");
    expect(forward).toMatchObject({ kind: "forward", host: { name: "example.com", port: "80" } });
    expect((forward as { head: string }).head).toBe("POST /a/b?c=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\nX-Thing: v\r\nConnection: close\r\n\r\n");
  });

  test("anything else is refused with a reason", () => {
    const refused: Array<[string, number]> = [
      ["CONNECT evil:1@127.0.0.1:80 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT ::1:80 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT a/b:80 HTTP/1.1\r\n\r\n", 400],
      ["CONNECT *.example.com:443 HTTP/1.1\r\n\r\n", 400],
      ["GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400],
      ["GET https://example.com/ HTTP/1.1\r\n\r\n", 400],
      ["GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n", 400],
      ["GET http://a@example.com/ HTTP/1.1\r\n\r\n", 400],
      ["GET ftp://example.com/ HTTP/1.1\r\n\r\n", 400],
      ["GET http://example.com/ HTTP/2.0\r\n\r\n", 400],
      ["GET  http://example.com/ HTTP/1.1\r\n\r\n", 400],
      ["GET http://example.com/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400],
      ["GET http://example.com/ HTTP/1.1\r\nX: a\u0000b\r\n\r\n", 400],
      ["GET http://example.com/ HTTP/1.1\r\nBad Name: a\r\n\r\n", 400],
      ["GET http://example.com/ HTTP/1.1\r\n: a\r\n\r\n", 400],
      ["GET http://example.com/\u00e9 HTTP/1.1\r\n\r\n", 400],
      [`GET http://example.com/${"a".repeat(MAX_HEAD_BYTES)} HTTP/1.1\r\n\r\n`, 431],
      ["GET http://example.com/ HTTP/1.1\r\n", 400],
    ];
    for (const [head, status] of refused) expect({ head, result: parse(head) }).toMatchObject({ head, result: { status } });
  });

  test("the head's end is found only at an empty line", () => {
    expect(headEnd(bytes("GET / HTTP/1.1\r\n"))).toBe(-1);
    expect(headEnd(bytes("GET / HTTP/1.1\n\n"))).toBe(-1);
    expect(headEnd(bytes("A\r\n\r\nrest"))).toBe(5);
  });

  test("fuzzed heads: never a throw; what is let through names one well-formed host and is sent on cleanly", () => {
    const next = prng(20261206);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const hosts = ["127.0.0.1:8080", "[::1]:80", "example.com:443", "EXAMPLE.com.:443", "evil:1@127.0.0.1:80", "0x7f.1:80", "a..b:1", "[::ffff:127.0.0.1]:22", "xn--bcher-kva.example:80", "bücher.example:80", "%41.example:80", "exa mple:80", "[::1%25eth0]:80"];
    const pieces = ["\r\n", "\n", "\r", " ", "\t", ":", "@", "/", "?", "#", "\u0000", "\u007f", "\u00ff", "[", "]", "%", "*", "..", "\\"];
    let letThrough = 0;
    for (let i = 0; i < 4000; i++) {
      const connect = next() < 0.5;
      const host = pick(hosts);
      let head = connect
        ? `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`
        : `${pick(["GET", "POST", "PUT", "G ET", "get"])} http://${host}${pick(["/", "/a?b", "", "/../x", "/%2e%2e/"])} HTTP/1.${pick(["0", "1", "2"])}\r\nHost: x\r\nProxy-Authorization: secret\r\n\r\n`;
      // Mutate: insert, delete or replace a few characters anywhere.
      for (let m = Math.floor(next() * 4); m > 0; m--) {
        const at = Math.floor(next() * head.length);
        const op = next();
        head = op < 0.4 ? head.slice(0, at) + pick(pieces) + head.slice(at) : op < 0.7 ? head.slice(0, at) + head.slice(at + 1) : head.slice(0, at) + String.fromCharCode(Math.floor(next() * 256)) + head.slice(at + 1);
      }
      const raw = next() < 0.1 ? new Uint8Array(Math.floor(next() * 300)).map(() => Math.floor(next() * 256)) : new Uint8Array([...head].map((c) => c.charCodeAt(0) & 0xff));
      const result = parseRequestHead(raw);
      if (isRefusal(result)) {
        expect([400, 431]).toContain(result.status);
        expect(result.reason.length).toBeGreaterThan(0);
        continue;
      }
      letThrough++;
      // One well-formed host with a real port, as the normaliser writes it.
      expect(readHostPattern(hostText(result.host))).toEqual({ ...result.host });
      expect(result.host.subdomains).toBe(false);
      expect(Number(result.host.port)).toBeGreaterThan(0);
      expect(Number(result.host.port)).toBeLessThan(65536);
      expect(result.target).not.toContain("@");
      if (result.kind === "forward") {
        const lines = result.head.split("\r\n");
        expect(lines.slice(-2)).toEqual(["", ""]);
        for (const line of lines) expect(line).not.toMatch(/[\r\n\u0000]/);
        expect(lines[0]).toMatch(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ \/\S* HTTP\/1\.[01]$/);
        expect(lines.filter((line) => /^host:/i.test(line))).toHaveLength(1);
        expect(lines.filter((line) => /^(proxy-authorization|proxy-connection|connection|keep-alive):/i.test(line))).toEqual(["Connection: close"]);
      }
    }
    // The fuzzer exercises both sides.
    expect(letThrough).toBeGreaterThan(200);
  });
});

describe("deciding a target", () => {
  const never = async (name: string): Promise<never> => {
    throw new Error(`resolved ${name} before it was allowed`);
  };
  const answers = (addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

  test("a host no entry covers is refused without resolving its name", async () => {
    const allowed = readAllowHosts(["registry.example.com", "*.github.example", "127.0.0.1:3000"]);
    for (const host of ["evil.example:443", "github.example:443", "127.0.0.1:3001", "[::1]:3000", "registry.example.com.evil:443"]) {
      expect(await decideTarget(readHostPattern(host)!, allowed, never)).toMatchObject({ allowed: false, status: 403, reason: expect.stringContaining("not in sandbox.allowHosts") });
    }
  });

  test("a name under *.domain that resolves to a non-public address is refused (DNS rebinding); an entry naming the host allows it", async () => {
    const wildcard = readAllowHosts(["*.example.com"]);
    expect(await decideTarget(readHostPattern("api.example.com:443")!, wildcard, answers(["93.184.216.34"]))).toEqual({ allowed: true, addresses: [{ address: "93.184.216.34", family: 4 }], port: 443 });
    for (const address of ["127.0.0.1", "10.0.0.5", "169.254.169.254", "::1", "::ffff:10.0.0.1", "fd00::1"]) {
      expect(await decideTarget(readHostPattern("api.example.com:443")!, wildcard, answers(["93.184.216.34", address]))).toMatchObject({ allowed: false, status: 403 });
    }
    expect(await decideTarget(readHostPattern("db.example.com:5432")!, readAllowHosts(["*.example.com", "db.example.com"]), answers(["10.0.0.5"]))).toEqual({ allowed: true, addresses: [{ address: "10.0.0.5", family: 4 }], port: 5432 });
    expect(await decideTarget(readHostPattern("localhost:3000")!, readAllowHosts(["localhost:3000"]), answers(["::1", "127.0.0.1"]))).toMatchObject({ allowed: true, addresses: [{ address: "::1" }, { address: "127.0.0.1" }] });
  });

  test("the addresses connected to are the ones checked: the answers in order, or the literal itself", async () => {
    expect(await decideTarget(readHostPattern("[::1]:80")!, readAllowHosts(["[::1]:80"]), never)).toEqual({ allowed: true, addresses: [{ address: "::1", family: 6 }], port: 80 });
    expect(await decideTarget(readHostPattern("a.example:80")!, readAllowHosts(["a.example"]), answers(["2606:4700::1", "93.184.216.34"]))).toEqual({
      allowed: true,
      addresses: [{ address: "2606:4700::1", family: 6 }, { address: "93.184.216.34", family: 4 }],
      port: 80,
    });
    expect(await decideTarget(readHostPattern("a.example:80")!, readAllowHosts(["a.example"]), answers([]))).toMatchObject({ allowed: false, status: 502 });
  });
});

/** A forwarder as a sandbox runs it (here outside one): its port, and the child to end. */
async function startForwarder(words: readonly string[], proxy: FilteringProxy): Promise<{ port: number; child: ChildProcess; carrier: ReturnType<typeof serveCarrier> }> {
  // The words start with environment entries, as `env` takes them inside the sandbox.
  const child = spawn("env", [...words], { stdio: ["pipe", "pipe", "pipe"], cwd: "/" });
  const carrier = serveCarrier(child.stdout!, (frame) => child.stdin!.write(frame), (stream) => proxy.serve(stream));
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stderr!.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes("\n")) resolve(Number(text.trim()));
    });
    child.once("exit", () => reject(new Error(`the forwarder ended: ${text}`)));
  });
  return { port, child, carrier };
}

/** Runs `check` against a forwarder (the runtime's own, unless `words` say otherwise) to a proxy with `options`; ends both after. */
async function throughForwarder(options: FilteringProxyOptions, check: (port: number) => Promise<void>, words: readonly string[] = forwarderProgram(join(dir, "cache"))): Promise<void> {
  const proxy = createFilteringProxy(options);
  const forwarder = await startForwarder(words, proxy);
  try {
    await check(forwarder.port);
  } finally {
    proxy.close();
    forwarder.child.kill("SIGKILL");
  }
}

/** Sends `head` to the forwarder on `port` and returns all it answered; `halfClose` ends the sending side after it. */
function exchange(port: number, head: string | Uint8Array, halfClose = false): Promise<string> {
  return new Promise((resolve) => {
    const client = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    let got = "";
    client.on("data", (d) => (got += d.toString("latin1")));
    client.on("error", (e: NodeJS.ErrnoException) => resolve(`${got}ERROR ${e.code}`));
    client.on("end", () => client.end());
    client.on("close", () => resolve(got));
    client.write(head);
    if (halfClose) client.end();
  });
}

describe("the proxy behind a forwarder and its carrier", () => {
  let site: Server;
  let port: number;
  let hits: string[];
  beforeAll(async () => {
    hits = [];
    site = createServer((request, response) => {
      hits.push(request.url ?? "");
      if (request.url === "/echo") {
        // Counts what came (the request body ends when the client half-closes), then sends as much back.
        let size = 0;
        request.on("data", (d: Buffer) => (size += d.length));
        request.on("end", () => {
          response.writeHead(200, { connection: "close" });
          response.end(`got ${size} ` + "x".repeat(size));
        });
        return;
      }
      response.writeHead(200, { connection: "close" });
      response.end(`site ${request.url} host=${request.headers.host}`);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", () => resolve()));
    port = (site.address() as { port: number }).port;
  });
  afterAll(() => site.close());

  test("allowed requests go through, others are refused and the proxy keeps serving; closing ends it", async () => {
    await throughForwarder({ allowHosts: [`127.0.0.1:${port}`] }, async (relay) => {
      expect(await exchange(relay, `GET http://127.0.0.1:${port}/plain HTTP/1.1\r\nHost: elsewhere\r\n\r\n`)).toContain(`site /plain host=127.0.0.1:${port}`);
      expect(await exchange(relay, `GET http://127.0.0.1:${port + 1}/x HTTP/1.1\r\n\r\n`)).toStartWith("HTTP/1.1 403 Forbidden");
      expect(await exchange(relay, "\u0000\u00ff\r\n\r\n")).toStartWith("HTTP/1.1 400 Bad Request");
      expect(await exchange(relay, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n${"X: y\r\n".repeat(4000)}`)).toStartWith("HTTP/1.1 431");
      // Ended before a whole head: refused, not left waiting.
      expect(await exchange(relay, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n`, true)).toStartWith("HTTP/1.1 400 Bad Request");
      const tunnel = await exchange(relay, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\nGET /tunnel HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`);
      expect(tunnel).toStartWith("HTTP/1.1 200 Connection Established\r\n\r\n");
      expect(tunnel).toContain("site /tunnel");
      expect(hits).toEqual(["/plain", "/tunnel"]);
    });
  });

  test("many connections at once, each sending and getting more than a window, with half-close: every byte arrives", async () => {
    await throughForwarder({ allowHosts: [`127.0.0.1:${port}`] }, async (relay) => {
      const size = 700 * 1024;
      const body = "y".repeat(size);
      const answers = await Promise.all(
        Array.from({ length: 24 }, () =>
          exchange(relay, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\nPOST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n${body}`, true),
        ),
      );
      for (const answer of answers) {
        expect(answer).toContain(`got ${size} `);
        // The body is all x (between the chunks' sizes, which hold none).
        expect(answer.slice(answer.indexOf(`got ${size} `)).replace(/[^x]/g, "").length).toBe(size);
      }
    });
  }, 60_000);

  test("a name whose first checked address refuses is reached at the next one (localhost on ::1, then 127.0.0.1)", async () => {
    const resolve = async () => [
      { address: "::1", family: 6 },
      { address: "127.0.0.1", family: 4 },
    ];
    await throughForwarder({ allowHosts: [`localhost:${port}`], resolve }, async (relay) => {
      expect(await exchange(relay, `GET http://localhost:${port}/next HTTP/1.1\r\n\r\n`)).toContain("site /next");
    });
  });

  test("when the agent's end of the carrier goes, the forwarder stops listening: connections are refused", async () => {
    const proxy = createFilteringProxy({ allowHosts: [`127.0.0.1:${port}`] });
    const forwarder = await startForwarder(forwarderProgram(join(dir, "cache")), proxy);
    const exited = new Promise((resolve) => forwarder.child.once("exit", resolve));
    forwarder.carrier.close("test");
    forwarder.child.stdin!.end();
    await exited;
    expect(await exchange(forwarder.port, `GET http://127.0.0.1:${port}/late HTTP/1.1\r\n\r\n`)).toBe("ERROR ECONNREFUSED");
    expect(hits).not.toContain("/late");
    proxy.close();
  });

  test("the hidden command of the executable relays the same way, and --help does not show it", async () => {
    await throughForwarder({ allowHosts: [`127.0.0.1:${port}`] }, async (relay) => {
      expect(await exchange(relay, `GET http://127.0.0.1:${port}/relayed HTTP/1.1\r\n\r\n`)).toContain("site /relayed");
    }, [`DENO_DIR=${join(dir, "cache")}`, NODE, join(ROOT, "dist", "cli.js"), FORWARDER_COMMAND]);
    const help = spawnSync(NODE, [join(ROOT, "dist", "cli.js"), "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).not.toContain(FORWARDER_COMMAND);
    expect(help.stdout).not.toContain("forwarder");
  });
});

describe("the agent's end of a carrier, fed hostile frames", () => {
  const codec = carrierCodec();
  const { kinds } = codec;
  const frame = (kind: number, id: number, value: number, payload?: Uint8Array) => codec.encode(kind, id, value, payload);

  /** Feeds `bytes` in pieces to a carrier end; returns what it sent back, the streams it accepted and why it ended. */
  async function feed(bytes: Uint8Array[], accept: (stream: Duplex) => void = () => {}) {
    const input = new PassThrough();
    const sent: Uint8Array[] = [];
    const accepted: Duplex[] = [];
    const end = serveCarrier(input, (f) => sent.push(f), (stream) => {
      accepted.push(stream);
      accept(stream);
    });
    for (const piece of bytes) input.write(piece);
    input.end();
    const why = await end.done;
    return { sent, accepted, why };
  }

  test("a broken frame, an unknown kind, stream 0, an oversized or empty data frame, or an id opened twice ends the carrier", async () => {
    const broken: Array<[string, Uint8Array[]]> = [
      ["unknown kind", [frame(9, 1, 0)]],
      ["stream 0", [frame(kinds.open, 0, 0)]],
      ["oversized", [frame(kinds.open, 1, 0), Uint8Array.of(kinds.data, 0, 0, 0, 1, 0, 1, 0, 1)]],
      ["empty data", [frame(kinds.open, 1, 0), frame(kinds.data, 1, 0)]],
      ["reopened", [frame(kinds.open, 2, 0), frame(kinds.open, 2, 0)]],
      ["out of order", [frame(kinds.open, 5, 0), frame(kinds.open, 3, 0)]],
    ];
    for (const [label, bytes] of broken) {
      const { why, accepted } = await feed(bytes);
      expect({ label, why }).toEqual({ label, why: expect.stringContaining("broke its format") });
      for (const stream of accepted) expect(stream.destroyed).toBe(true);
    }
  });

  test("data beyond the credit granted resets the stream; streams beyond the bound are reset at once", async () => {
    const chunk = new Uint8Array(codec.maxData).fill(65);
    // The proxy never reads: no credit comes back, and the fifth full chunk is more than the window.
    const flood = [frame(kinds.open, 1, 0), ...Array.from({ length: codec.window / codec.maxData + 1 }, () => frame(kinds.data, 1, chunk.length, chunk))];
    const { accepted } = await feed(flood, (stream) => stream.pause());
    expect(accepted[0]!.destroyed).toBe(true);
    const opens = Array.from({ length: MAX_CARRIER_STREAMS + 5 }, (_, i) => frame(kinds.open, i + 1, 0));
    const { sent, accepted: many } = await feed(opens);
    expect(many).toHaveLength(MAX_CARRIER_STREAMS);
    const resets = sent.filter((f) => f[0] === kinds.reset).length;
    expect(resets).toBeGreaterThanOrEqual(5);
  });

  test("fuzzed frame streams: the carrier never throws, never accepts more than the bound, and never sends more than the credit it was given", async () => {
    const next = prng(20261207);
    for (let round = 0; round < 300; round++) {
      const pieces: Uint8Array[] = [];
      let id = 0;
      for (let n = Math.floor(next() * 30); n > 0; n--) {
        const r = next();
        if (r < 0.2) pieces.push(frame(kinds.open, ++id, 0));
        else if (r < 0.55) {
          const size = 1 + Math.floor(next() * 2000);
          pieces.push(frame(kinds.data, 1 + Math.floor(next() * Math.max(id, 1)), size, new TextEncoder().encode(`CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n`.padEnd(size, "z").slice(0, size))));
        } else if (r < 0.65) pieces.push(frame(kinds.end, 1 + Math.floor(next() * Math.max(id, 1)), 0));
        else if (r < 0.72) pieces.push(frame(kinds.reset, 1 + Math.floor(next() * Math.max(id, 1)), 0));
        else if (r < 0.8) pieces.push(frame(kinds.credit, 1 + Math.floor(next() * Math.max(id, 1)), Math.floor(next() * 2 ** 32)));
        else pieces.push(new Uint8Array(Math.floor(next() * 20)).map(() => Math.floor(next() * 256)));
      }
      // Split at random places: frames arrive in any cut.
      const whole = new Uint8Array(pieces.reduce((sum, p) => sum + p.length, 0));
      let at = 0;
      for (const p of pieces) {
        whole.set(p, at);
        at += p.length;
      }
      const cuts: Uint8Array[] = [];
      for (let from = 0; from < whole.length; ) {
        const to = Math.min(whole.length, from + 1 + Math.floor(next() * 64));
        cuts.push(whole.subarray(from, to));
        from = to;
      }
      const proxy = createFilteringProxy({ allowHosts: [] });
      const { sent, accepted, why } = await feed(cuts, (stream) => proxy.serve(stream));
      proxy.close();
      expect(typeof why).toBe("string");
      expect(accepted.length).toBeLessThanOrEqual(MAX_CARRIER_STREAMS);
      // What the agent sent per stream stays within the window (no credit beyond it is honoured).
      const perStream = new Map<number, number>();
      for (const f of sent) {
        if (f[0] !== kinds.data) continue;
        const sid = new DataView(f.buffer, f.byteOffset).getUint32(1);
        perStream.set(sid, (perStream.get(sid) ?? 0) + f.length - 9);
      }
      for (const total of perStream.values()) expect(total).toBeLessThanOrEqual(codec.window * 5);
    }
  });
});
