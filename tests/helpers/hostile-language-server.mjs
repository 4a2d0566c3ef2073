#!/usr/bin/env node
// A language server that misbehaves on purpose, chosen by its first argument:
//   flood   answers, then buries every opened file under errors, log messages and reports on other files
//   silent  never answers initialize
//   crash   appends a line to the file named by its second argument when it starts, exits as soon as a file is opened
//   marker  writes the file named by its second argument when it starts (then behaves)
//   fuzz    answers each opened file with reports of random shapes from the seed in its second argument
//   huge    answers an opened file with a message announcing 100 MB, and sends 32 MiB of it
//   stubborn  behaves, but outlives the end of its input and ignores SIGTERM and exit
// Speaks LSP's Content-Length framing on stdin/stdout with nothing but node:*.
import { appendFileSync, writeFileSync } from "node:fs";

const [mode, extra] = process.argv.slice(2);
if (mode === "marker") writeFileSync(extra, "started");
if (mode === "crash") appendFileSync(extra, "started\n");

function send(message) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...message }));
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function diagnostics(count, line) {
  return Array.from({ length: count }, (_, i) => ({
    range: { start: { line: line + (i % 50), character: 0 }, end: { line: line + (i % 50), character: 1 } },
    severity: i % 2 === 0 ? 1 : 2,
    message: `flood error ${i} ${"x".repeat(i === 0 ? 5000 : 10)}`,
  }));
}

/** A seeded xorshift32 (plain node, so no import of the fuzzers' TypeScript one), so a failing seed can be replayed. */
function generator(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

const random = generator(Number(extra ?? 1));
const pick = (items) => items[Math.floor(random() * items.length)];
function junk(depth = 0) {
  return pick([
    () => null, () => true, () => -1, () => 2 ** 53, () => 1.5, () => "", () => "x".repeat(Math.floor(random() * 100_000)),
    () => "line\nbreak\u0000\u202e", () => (depth < 3 ? [junk(depth + 1), junk(depth + 1)] : []), () => (depth < 3 ? { line: junk(depth + 1), character: junk(depth + 1) } : {}),
  ])();
}
function fuzzedDiagnostic() {
  return {
    range: random() < 0.8 ? { start: { line: pick([0, 3, -5, 1e12, junk()]), character: pick([0, 7, -1, junk()]) }, end: junk() } : junk(),
    severity: pick([1, 1, 2, 3, 4, undefined, "1", junk()]),
    message: pick(["plain error", junk(), "y".repeat(Math.floor(random() * 20_000))]),
    code: pick([undefined, 2322, "E1", junk()]),
    source: pick([undefined, "fuzz", junk()]),
  };
}

function handle(message) {
  if (message.method === "initialize") {
    if (mode === "silent") return;
    send({ id: message.id, result: { capabilities: { textDocumentSync: 1 } } });
  } else if (message.method === "shutdown") {
    send({ id: message.id, result: null });
  } else if (message.method === "exit") {
    if (mode !== "stubborn") process.exit(0);
  } else if (message.method === "textDocument/didOpen") {
    if (mode === "crash") process.exit(3);
    const uri = message.params.textDocument.uri;
    if (mode === "flood") {
      for (let i = 0; i < 2000; i++) send({ method: "window/logMessage", params: { type: 4, message: `noise ${i}` } });
      for (let i = 0; i < 2000; i++) send({ method: "textDocument/publishDiagnostics", params: { uri: `file:///elsewhere/${i}.fk`, diagnostics: diagnostics(3, 0) } });
      for (let i = 0; i < 20; i++) send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: diagnostics(5000, 0) } });
      send({ method: "textDocument/publishDiagnostics", params: { uri: 42, diagnostics: "junk" } });
    } else if (mode === "huge") {
      process.stdout.write("Content-Length: 100000000\r\n\r\n");
      const mib = Buffer.alloc(1024 * 1024, "x");
      for (let i = 0; i < 32; i++) process.stdout.write(mib);
    } else if (mode === "fuzz") {
      for (let i = 0; i < 30; i++) {
        const list = random() < 0.9 ? Array.from({ length: Math.floor(random() * 200) }, fuzzedDiagnostic) : junk();
        send({ method: "textDocument/publishDiagnostics", params: random() < 0.9 ? { uri, diagnostics: list, version: junk() } : junk() });
      }
    } else {
      send({ method: "textDocument/publishDiagnostics", params: { uri, diagnostics: diagnostics(1, 0) } });
    }
  } else if (message.id !== undefined && message.method) {
    send({ id: message.id, error: { code: -32601, message: "unknown method" } });
  }
}

let buffer = Buffer.alloc(0);
process.stdin.on("data", (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString();
    buffer = buffer.subarray(end + 4 + length);
    handle(JSON.parse(body));
  }
});
if (mode === "stubborn") {
  process.on("SIGTERM", () => {});
  setInterval(() => {}, 1000);
} else {
  process.stdin.on("end", () => process.exit(0));
}
