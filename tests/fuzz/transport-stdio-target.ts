/**
 * The stdio transport under fuzz: one `acp-edge agent stdio --model faux/echo`
 * process for a whole run, fed framed inputs (NDJSON or Content-Length) split
 * into chunks at random byte boundaries, its stdout read strictly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { agentCommand, cleanEnv, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { processGone } from "../helpers/processes.ts";
import { AgentConnection, normalTurn, OWN_ID } from "./transport-agent-conn.ts";
import { requestIn } from "./transport-oracle.ts";
import { OutputReader, type OutputFraming } from "./transport-output-reader.ts";
import { Prng } from "./transport-prng.ts";
import { expansionInput, extensionInput, generateRpcInput, type GenerateOptions, type RpcInput } from "./transport-rpc-inputs.ts";
import { currentRss, encodeSegments, peakRss, stderrGist, type Finding, type FuzzTarget } from "./transport-target.ts";

/** One stdio input: a message and how its frame is written. */
export interface StdioInput {
  rpc: RpcInput;
  /** Seed for the frame variant and the chunk boundaries, chosen once the bytes are known. */
  wireSeed: number;
}

/** The stdio input number `index` of a run. */
export function generateStdioInput(seed: number, index: number, options: GenerateOptions): StdioInput {
  const rng = new Prng(seed, index, 1);
  const rpc = generateRpcInput(rng, options);
  return { rpc: extensionInput(seed, index, options) ?? expansionInput(seed, index) ?? rpc, wireSeed: rng.uint32() };
}

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

function frameFor(framing: OutputFraming, body: Uint8Array, rng: Prng): Uint8Array {
  let head: string;
  let tail = "";
  if (framing === "ndjson") {
    head = rng.chance(0.03) ? rng.pick(["\n", "  \n", "\r\n", "\t"]) : "";
    tail = rng.chance(0.1) ? "\r\n" : "\n";
  } else {
    const n = body.byteLength;
    head = rng.weighted([
      [85, `Content-Length: ${n}\r\n\r\n`],
      [3, `content-length:${n}\r\n\r\n`],
      [3, `Content-Length: ${n}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n`],
      [3, `Content-Type: application/json\r\nContent-Length:  ${n} \r\n\r\n`],
      [3, `Content-Length: ${n}\n\n`],
      [3, `\r\nContent-Length: ${n}\r\n\r\n`],
    ]);
  }
  const headBytes = new TextEncoder().encode(head);
  const tailBytes = new TextEncoder().encode(tail);
  const out = new Uint8Array(headBytes.byteLength + body.byteLength + tailBytes.byteLength);
  out.set(headBytes);
  out.set(body, headBytes.byteLength);
  out.set(tailBytes, headBytes.byteLength + body.byteLength);
  return out;
}

/** Random cut points inside `length` bytes: none mostly, a few, or every byte. */
function cutsFor(length: number, rng: Prng): number[] {
  const mode = rng.weighted([[90, "whole"], [9, "some"], [length <= 400 ? 1 : 0, "every"]]);
  if (mode === "whole" || length < 2) return [];
  if (mode === "every") return Array.from({ length: length - 1 }, (_, i) => i + 1);
  const cuts = new Set<number>();
  const n = rng.range(1, 4);
  for (let i = 0; i < n; i++) cuts.add(rng.range(1, length - 1));
  return [...cuts].sort((a, b) => a - b);
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A running `agent stdio` speaking one framing. */
export class StdioTarget implements FuzzTarget<StdioInput> {
  readonly conn = new AgentConnection();
  readonly #proc: { child: ChildProcess; stderr(): string; exited: Promise<{ code: number | null; signal: string | null }> };
  readonly #reader: OutputReader;
  #probes = 0;
  #exited: { code: number | null; signal: string | null } | undefined;

  private constructor(
    readonly runtime: RuntimeName,
    readonly framing: OutputFraming,
    readonly sandbox: Sandbox,
  ) {
    // Spawned here rather than with spawnAgent: its Web Stream view of stdout would pause the pipe once nobody reads it.
    const { command, args } = agentCommand(runtime, ["agent", "stdio", "--model", "faux/echo"]);
    const child = spawn(command, args, { cwd: sandbox.project, env: cleanEnv({ ACP_EDGE_HOME: sandbox.home }), stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-8000)));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    this.#proc = { child, stderr: () => stderr, exited };
    this.#reader = new OutputReader(framing, (m) => this.conn.receive(m), (problem) => this.conn.fail({ kind: "bad-output", detail: problem }));
    child.stdin!.on("error", () => {});
    child.stdout!.on("data", (chunk: Buffer) => this.#reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    child.stdout!.on("end", () => this.#reader.end());
    this.#proc.exited.then((exit) => {
      this.#exited = exit;
      this.conn.wake();
    });
  }

  /** Spawns the agent and opens a session (initialize + session/new). */
  static async start(runtime: RuntimeName, framing: OutputFraming, sandbox: Sandbox, timeoutMs: number): Promise<{ target: StdioTarget; finding?: Finding }> {
    const target = new StdioTarget(runtime, framing, sandbox);
    const conn = target.conn;
    await target.#write(target.#frame(conn.ownRequest(`${OWN_ID}init`, "initialize", { protocolVersion: 1, clientCapabilities: {} })));
    await target.#write(target.#frame(conn.ownRequest(`${OWN_ID}new`, "session/new", { cwd: sandbox.project, mcpServers: [] })));
    const ok = await conn.until(() => conn.own.has(`${OWN_ID}new`) || target.#exited !== undefined, timeoutMs);
    if (!ok || target.#exited) return { target, finding: target.#crash() ?? conn.finding ?? { kind: "wedged", detail: "no answer to the opening session/new" } };
    return { target };
  }

  get pid(): number {
    return this.#proc.child.pid!;
  }

  #frame(json: string): Uint8Array {
    const body = new TextEncoder().encode(json);
    return this.framing === "ndjson" ? frameFor("ndjson", body, new Prng(0)) : new TextEncoder().encode(`Content-Length: ${body.byteLength}\r\n\r\n${json}`);
  }

  async #write(bytes: Uint8Array): Promise<void> {
    const stdin = this.#proc.child.stdin!;
    if (this.#exited || stdin.destroyed) return;
    if (!stdin.write(bytes)) await new Promise<void>((resolve) => {
      const done = () => {
        stdin.off("drain", done);
        stdin.off("close", done);
        clearInterval(poll);
        resolve();
      };
      const poll = setInterval(() => this.#exited && done(), 50);
      stdin.on("drain", done);
      stdin.on("close", done);
    });
  }

  async send(input: StdioInput): Promise<void> {
    const rng = new Prng(input.wireSeed);
    const body = encodeSegments(input.rpc.segments, { sessionId: this.conn.sessionId, cwd: this.sandbox.project });
    const owing = requestIn(body, MAX_MESSAGE_BYTES);
    if (owing) this.conn.ledger.expect(owing.key, owing.required && !input.rpc.deep);
    const frame = frameFor(this.framing, body, rng);
    const cuts = cutsFor(frame.byteLength, rng);
    let from = 0;
    for (const cut of cuts) {
      await this.#write(frame.subarray(from, cut));
      await tick();
      from = cut;
    }
    await this.#write(frame.subarray(from));
  }

  #crash(): Finding | undefined {
    if (!this.#exited && !processGone(this.pid)) return undefined;
    const exit = this.#exited;
    const stderr = this.#proc.stderr();
    return { kind: "crashed", detail: `the agent exited (code ${exit?.code ?? "?"}, signal ${exit?.signal ?? "none"}): ${stderrGist(stderr)}\nstderr tail: ${stderr.slice(-600)}` };
  }

  async checkpoint(timeoutMs: number): Promise<Finding | undefined> {
    const id = `${OWN_ID}probe-${this.#probes++}`;
    await this.#write(this.#frame(this.conn.ownRequest(id, "fuzz/probe", {})));
    const ledger = this.conn.ledger;
    await this.conn.until(() => ledger.settled() || this.#exited !== undefined, timeoutMs);
    // A process seen gone before its exit event: wait for it, so the report has its code and last words.
    if (processGone(this.pid) && !this.#exited) await Promise.race([this.#proc.exited, new Promise((r) => setTimeout(r, 1000))]);
    const crash = this.#crash();
    if (crash) return crash;
    if (this.conn.finding) return this.conn.finding;
    const owed = ledger.unanswered();
    if (owed.length === 0) return undefined;
    const probeAnswered = this.conn.own.has(id);
    return {
      kind: probeAnswered ? "unanswered" : "wedged",
      detail: `${probeAnswered ? "" : "the connection stopped answering (a fresh probe got no answer); "}${owed.length} request(s) unanswered after ${timeoutMs} ms, ids ${owed.slice(0, 8).join(", ").slice(0, 300)}`,
    };
  }

  async finalTurn(timeoutMs: number): Promise<Finding | undefined> {
    const finding = await normalTurn((json) => this.#write(this.#frame(json)), this.conn, this.sandbox.project, timeoutMs, "final");
    return this.#crash() ?? finding;
  }

  async stop(timeoutMs: number): Promise<Finding | undefined> {
    this.#proc.child.stdin!.end();
    const exit = await Promise.race([this.#proc.exited, new Promise<undefined>((r) => setTimeout(r, timeoutMs))]);
    if (!exit) {
      this.kill();
      return { kind: "exit", detail: `the agent did not exit within ${timeoutMs} ms of end of input` };
    }
    if (exit.code !== 0) return { kind: "exit", detail: `the agent exited with code ${exit.code} (signal ${exit.signal}) after end of input; stderr: ${this.#proc.stderr().slice(-600)}` };
    return this.conn.finding;
  }

  rss(): number {
    return currentRss(this.pid);
  }

  peakRss(): number {
    return peakRss(this.pid);
  }

  kill(): void {
    if (!this.#exited) this.#proc.child.kill("SIGKILL");
  }
}
