/**
 * The forwarder inside a sandbox whose commands may reach allowed hosts. It
 * listens on a free port of the sandbox's own loopback and carries every
 * connection it accepts as a stream of frames (carrier-codec.ts) over its
 * stdin and stdout — two pipes the agent opened for it before the sandbox
 * started — to the agent, which feeds each stream to its filtering proxy.
 * It opens no socket but its listener and the connections to it: the
 * sandbox's socket filter, which refuses Unix-domain sockets, holds for it
 * as for the command. It runs on the agent's own runtime (Node and Bun
 * evaluate it with `-e`, Deno with `eval`, a compiled executable through a
 * hidden command), prints its port on stderr once it listens, and ends
 * with the sandbox.
 * @module
 */
import process from "node:process";
import { runtimeName } from "../../host/detect.ts";
import { isCompiledExecutable } from "../../host/own-invocation.ts";
import { carrierCodec, type CarrierCodec } from "./carrier-codec.ts";

/** The executable's internal command that runs the forwarder: `acp-edge __sandbox-forwarder`; not in `--help`. */
export const FORWARDER_COMMAND = "__sandbox-forwarder";

type Net = typeof import("node:net");
type Socket = import("node:net").Socket;

interface ForwardedStream {
  socket: Socket;
  /** Bytes the agent still lets this stream send. */
  credit: number;
  /** Read from the socket, not yet sent for want of credit (the socket is paused meanwhile). */
  pending: Uint8Array;
  /** Written to the socket while it was full: granted back to the agent once it drains. */
  owed: number;
  endPending: boolean;
  sentEnd: boolean;
  gotEnd: boolean;
}

/**
 * Listens on the loopback and relays each connection over `input`/`output` (the carrier), calling
 * `ready` with the port once it listens. Self-contained (it is also run from its own source text):
 * everything it uses comes in as arguments.
 */
export function runForwarder(net: Net, input: NodeJS.ReadableStream, output: NodeJS.WritableStream, codec: CarrierCodec, ready: (port: number) => void, quit: () => void): void {
  const { kinds } = codec;
  const streams = new Map<number, ForwardedStream>();
  let nextId = 1;
  const send = (kind: number, id: number, value: number, payload?: Uint8Array) => output.write(codec.encode(kind, id, value, payload));
  /** Sends what credit allows; the socket reads on only when nothing is left waiting. */
  const pump = (id: number, stream: ForwardedStream) => {
    while (stream.pending.length > 0 && stream.credit > 0) {
      const size = Math.min(stream.pending.length, stream.credit, codec.maxData);
      send(kinds.data, id, size, stream.pending.subarray(0, size));
      stream.pending = stream.pending.subarray(size);
      stream.credit -= size;
    }
    if (stream.pending.length > 0) return void stream.socket.pause();
    if (stream.endPending) {
      stream.endPending = false;
      stream.sentEnd = true;
      send(kinds.end, id, 0);
    } else stream.socket.resume();
  };
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    const id = nextId++;
    const stream: ForwardedStream = { socket, credit: codec.window, pending: new Uint8Array(0), owed: 0, endPending: false, sentEnd: false, gotEnd: false };
    streams.set(id, stream);
    send(kinds.open, id, 0);
    socket.on("data", (chunk: Uint8Array) => {
      if (stream.pending.length === 0) stream.pending = chunk;
      else {
        const joined = new Uint8Array(stream.pending.length + chunk.length);
        joined.set(stream.pending);
        joined.set(chunk, stream.pending.length);
        stream.pending = joined;
      }
      pump(id, stream);
    });
    socket.on("end", () => {
      stream.endPending = true;
      pump(id, stream);
    });
    socket.on("drain", () => {
      if (stream.owed > 0 && streams.has(id)) send(kinds.credit, id, stream.owed);
      stream.owed = 0;
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      if (!streams.delete(id)) return;
      // Not both directions ended: the connection broke, and the agent drops its side.
      if (!(stream.sentEnd && stream.gotEnd)) send(kinds.reset, id, 0);
    });
  });
  const read = codec.reader((kind, id, value, payload) => {
    const stream = streams.get(id);
    // A stream already gone (a reset crossed a frame on its way): nothing to do.
    if (!stream) return;
    if (kind === kinds.data) {
      if (stream.socket.write(payload)) send(kinds.credit, id, payload.length);
      else stream.owed += payload.length;
    } else if (kind === kinds.end) {
      stream.gotEnd = true;
      stream.socket.end();
    } else if (kind === kinds.reset) {
      streams.delete(id);
      stream.socket.destroy();
    } else if (kind === kinds.credit) {
      stream.credit += value;
      pump(id, stream);
    }
  });
  const stop = () => {
    server.close();
    for (const { socket } of streams.values()) socket.destroy();
    streams.clear();
    quit();
  };
  input.on("data", (chunk: Uint8Array) => {
    try {
      read(chunk);
    } catch {
      stop();
    }
  });
  // The agent's end gone: nothing can be relayed any more; the listener goes, so commands get "connection refused".
  input.on("end", stop);
  input.on("error", stop);
  output.on("error", stop);
  server.listen(0, "127.0.0.1", () => ready((server.address() as { port: number }).port));
}

/**
 * The environment entry, program and arguments that run the forwarder on this runtime. Deno gets
 * a cache folder it can write (`cacheFolder`, writable in the sandbox): with only a read-only one
 * it compiles the forwarder anew each time, some 200 ms per command.
 */
export function forwarderProgram(cacheFolder: string): string[] {
  // Always four words for the script that starts it: a compiled executable gets a second entry that means nothing.
  if (isCompiledExecutable()) return [`DENO_DIR=${cacheFolder}`, "ACP_EDGE_FORWARDER=1", process.execPath, FORWARDER_COMMAND];
  const source = [
    'Promise.all([import("node:net"), import("node:process")]).then(([net, proc]) => {',
    "const p = proc.default ?? proc;",
    // Its stderr's reader goes once it has the port: a later write there must not end the forwarder.
    'p.stderr.on("error", () => {});',
    `(${runForwarder.toString()})(net.default ?? net, p.stdin, p.stdout, (${carrierCodec.toString()})(), (port) => p.stderr.write(port + "\\n"), () => p.exit(0));`,
    "});",
  ].join("\n");
  return [`DENO_DIR=${cacheFolder}`, process.execPath, runtimeName === "deno" ? "eval" : "-e", source];
}

/** The hidden command: relays over stdin/stdout and prints the port on stderr; runs until the sandbox ends it. */
export async function runForwarderCommand(): Promise<void> {
  const net = await import("node:net");
  process.stderr.on("error", () => {});
  runForwarder(net, process.stdin, process.stdout, carrierCodec(), (port) => process.stderr.write(`${port}\n`), () => process.exit(0));
  await new Promise<never>(() => {});
}
