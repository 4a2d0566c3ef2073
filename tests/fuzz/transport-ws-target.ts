/**
 * `agent serve` under fuzz: one server process for a whole run, reached over
 * raw WebSocket connections to `/acp` and `/v1/session/{ref}/apc`. A
 * connection is replaced whenever an input closes it (or is meant to leave
 * it unusable); the server itself must survive everything.
 */
import type { RuntimeName, Sandbox } from "../helpers/agent-process.ts";
import { processGone } from "../helpers/processes.ts";
import { startServe, type ServeProcess } from "../helpers/serve-process.ts";
import { AgentConnection, normalTurn, OWN_ID } from "./transport-agent-conn.ts";
import { requestIn } from "./transport-oracle.ts";
import { preview } from "./transport-output-reader.ts";
import { Prng } from "./transport-prng.ts";
import type { RpcInput } from "./transport-rpc-inputs.ts";
import type { StdioInput } from "./transport-stdio-target.ts";
import { currentRss, encodeSegments, peakRss, stderrGist, type Finding, type FuzzTarget } from "./transport-target.ts";
import { RawWebSocket, UpgradeRefused } from "./transport-ws-client.ts";
import { encodeFrame } from "./transport-ws-frames.ts";
import { messageFrames, type WsInput } from "./transport-ws-inputs.ts";

export { generateWsInput } from "./transport-ws-inputs.ts";

const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** A one-line description of any transport input, for failure reports. */
export function describeInput(input: unknown): string {
  const i = input as Partial<StdioInput> & Partial<{ kind: string; label: string; route: string; frames: Uint8Array[]; rpc: RpcInput }>;
  const rpcText = (rpc: RpcInput) => {
    const bytes = encodeSegments(rpc.segments, { sessionId: "@@SID@@", cwd: "@@CWD@@" });
    return `${rpc.label}: ${preview(bytes, 300)}`;
  };
  if (i.kind === "reconnect") return `reconnect to ${i.route}`;
  if (i.kind === "frames") return `${i.label}: ${i.frames!.map((f) => Buffer.from(f.subarray(0, 24)).toString("hex")).join(" | ")}`;
  if (i.rpc) return rpcText(i.rpc);
  return JSON.stringify(input).slice(0, 300);
}

interface Live {
  ws: RawWebSocket;
  conn: AgentConnection;
  route: "acp" | "apc";
  /** Set once an input that may close the connection was sent on it. */
  closeAllowed: boolean;
}

/** A running `agent serve` with the connection currently fuzzed. */
export class WsTarget implements FuzzTarget<WsInput> {
  #live: Live | undefined;
  #finding: Finding | undefined;
  #apcRef: string | undefined;
  #probes = 0;
  #connections = 0;
  readonly #rng: Prng;
  /** Picks the route of replacement connections, apart from the mask keys so replays pick alike. */
  readonly #routes: Prng;

  private constructor(
    readonly serve: ServeProcess,
    readonly sandbox: Sandbox,
    seed: number,
    readonly timeoutMs: number,
  ) {
    this.#rng = new Prng(seed, 0x5e5);
    this.#routes = new Prng(seed, 0x4f7);
  }

  /** Starts the server and opens a first `/acp` connection. */
  static async start(runtime: RuntimeName, sandbox: Sandbox, seed: number, timeoutMs: number): Promise<{ target: WsTarget; finding?: Finding }> {
    const serve = await startServe(runtime, sandbox, { args: ["--model", "faux/echo"] });
    const target = new WsTarget(serve, sandbox, seed, timeoutMs);
    const finding = await target.#connect("acp");
    return { target, finding };
  }

  get pid(): number {
    return this.serve.proc.child.pid!;
  }

  #crash(): Finding | undefined {
    if (this.serve.proc.child.exitCode === null && this.serve.proc.child.signalCode === null && !processGone(this.pid)) return undefined;
    const stderr = this.serve.proc.stderr();
    return { kind: "crashed", detail: `agent serve exited (code ${this.serve.proc.child.exitCode}, signal ${this.serve.proc.child.signalCode}): ${stderrGist(stderr)}\nstderr tail: ${stderr.slice(-800)}` };
  }

  async #createApcSession(): Promise<string | undefined> {
    const response = await fetch(`${this.serve.url}/v1/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.serve.token}`, "content-type": "application/json" },
      body: JSON.stringify({ cwd: this.sandbox.project }),
    }).catch(() => undefined);
    if (!response || response.status !== 201) return undefined;
    return ((await response.json()) as { id: string }).id;
  }

  /** Opens a connection on `route` and runs initialize + session/new on it. */
  async #connect(route: "acp" | "apc", retry = true): Promise<Finding | undefined> {
    this.#drop();
    let path = "/acp";
    if (route === "apc") {
      this.#apcRef ??= await this.#createApcSession();
      if (!this.#apcRef) return this.#crash() ?? { kind: "refused", detail: "POST /v1/sessions did not create a session" };
      path = `/v1/session/${encodeURIComponent(this.#apcRef)}/apc`;
    }
    const conn = new AgentConnection();
    const live: Partial<Live> = { conn, route, closeAllowed: false };
    let ws: RawWebSocket;
    try {
      ws = await RawWebSocket.open(new URL(path, this.serve.wsUrl), this.serve.token, {
        onMessage: (m) => conn.receive(m),
        onProblem: (problem) => this.#fail({ kind: "bad-output", detail: problem }),
        onClosed: (code) => {
          conn.wake();
          if (!live.closeAllowed) this.#fail({ kind: "closed", detail: `the server closed a ${route} connection (code ${code ?? "none"}) that no input allowed it to close` });
        },
      });
    } catch (error) {
      await new Promise((r) => setTimeout(r, 100));
      const crash = this.#crash();
      if (crash) return crash;
      if (error instanceof UpgradeRefused && error.status === 404 && route === "apc" && retry) {
        this.#apcRef = undefined;
        return this.#connect(route, false);
      }
      return { kind: "refused", detail: `a new ${route} connection failed: ${error instanceof UpgradeRefused ? error.head.slice(0, 400) : String(error)}` };
    }
    live.ws = ws;
    this.#live = live as Live;
    this.#connections++;
    const id = `${OWN_ID}c${this.#connections}`;
    await this.#text(ws, conn.ownRequest(`${id}-init`, "initialize", { protocolVersion: 1, clientCapabilities: {} }));
    await this.#text(ws, conn.ownRequest(`${id}-new`, "session/new", { cwd: this.sandbox.project, mcpServers: [] }));
    const opened = await conn.ownResponse(`${id}-new`, this.timeoutMs);
    if (!opened) return this.#crash() ?? this.#finding ?? { kind: "wedged", detail: `no answer to session/new on a new ${route} connection` };
    if (opened.error) return { kind: "refused", detail: `session/new on a new ${route} connection failed: ${JSON.stringify(opened.error).slice(0, 300)}` };
    return undefined;
  }

  #fail(finding: Finding): void {
    this.#finding ??= finding;
    this.#live?.conn.wake();
  }

  /** Leaves the current connection (our FIN; the server should close it). */
  #drop(): void {
    const live = this.#live;
    if (!live) return;
    live.closeAllowed = true;
    live.ws.end();
    this.#live = undefined;
  }

  #text(ws: RawWebSocket, json: string): Promise<void> {
    return ws.write(encodeFrame({ opcode: 1, payload: new TextEncoder().encode(json) }, this.#rng));
  }

  async send(input: WsInput): Promise<void> {
    if (this.#finding) return;
    if (input.kind === "reconnect") {
      const finding = await this.#connect(input.route);
      if (finding) this.#fail(finding);
      return;
    }
    if (!this.#live || this.#live.ws.closed) {
      // A connection left behind by the last input is replaced on either route.
      const finding = await this.#connect(this.#routes.chance(0.3) ? "apc" : "acp");
      if (finding) return this.#fail(finding);
    }
    const live = this.#live!;
    let frames: Uint8Array[];
    let terminal: boolean;
    if (input.kind === "message") {
      const body = encodeSegments(input.rpc.segments, { sessionId: live.conn.sessionId, cwd: this.sandbox.project });
      const owing = requestIn(body, MAX_MESSAGE_BYTES);
      if (owing && input.close === "never") live.conn.ledger.expect(owing.key, owing.required && !input.rpc.deep);
      frames = messageFrames(body, new Prng(input.wireSeed));
      terminal = input.close !== "never";
    } else {
      frames = input.frames;
      terminal = input.terminal;
    }
    if (input.close !== "never") live.closeAllowed = true;
    for (const frame of frames) await live.ws.write(frame);
    if (input.close === "must") {
      const closed = await live.conn.until(() => live.ws.closed, this.timeoutMs);
      if (!closed && !this.#finding) {
        const label = input.kind === "message" ? input.rpc.label : input.label;
        this.#fail(this.#crash() ?? { kind: "closed", detail: `the server kept a connection open ${this.timeoutMs} ms after: ${label}` });
      }
    }
    if (terminal) this.#drop();
  }

  async checkpoint(timeoutMs: number): Promise<Finding | undefined> {
    if (this.#finding) {
      await new Promise((r) => setTimeout(r, 100)); // a crash explains a lost connection better
      return this.#crash() ?? this.#finding;
    }
    if (!this.#live || this.#live.ws.closed) {
      const finding = await this.#connect("acp");
      if (finding) return finding;
    }
    const live = this.#live!;
    const id = `${OWN_ID}probe-${this.#probes++}`;
    await this.#text(live.ws, live.conn.ownRequest(id, "fuzz/probe", {}));
    const ledger = live.conn.ledger;
    await live.conn.until(() => ledger.settled() || live.ws.closed, timeoutMs);
    await new Promise((r) => setTimeout(r, 0));
    // A process seen gone before its exit event: wait for it, so the report has its code and last words.
    if (processGone(this.pid) && this.serve.proc.child.exitCode === null) await Promise.race([this.serve.proc.exited, new Promise((r) => setTimeout(r, 1000))]);
    const crash = this.#crash();
    if (crash) return crash;
    if (this.#finding) return this.#finding;
    if (live.conn.finding) return live.conn.finding;
    const owed = ledger.unanswered();
    if (owed.length === 0) return undefined;
    if (live.ws.closed) return { kind: "closed", detail: `the ${live.route} connection closed with ${owed.length} request(s) unanswered` };
    const probeAnswered = live.conn.own.has(id);
    return {
      kind: probeAnswered ? "unanswered" : "wedged",
      detail: `${probeAnswered ? "" : `the ${live.route} connection stopped answering (a fresh probe got no answer); `}${owed.length} request(s) unanswered after ${timeoutMs} ms, ids ${owed.slice(0, 8).join(", ").slice(0, 300)}`,
    };
  }

  async finalTurn(timeoutMs: number): Promise<Finding | undefined> {
    if (this.#finding) return this.#finding;
    const opened = await this.#connect("acp");
    if (opened) return opened;
    const live = this.#live!;
    const finding = await normalTurn((json) => this.#text(live.ws, json), live.conn, this.sandbox.project, timeoutMs, "final");
    return this.#crash() ?? this.#finding ?? finding;
  }

  async stop(timeoutMs: number): Promise<Finding | undefined> {
    this.#drop();
    const leaked = await this.#openSessionsOnceAllLeft(timeoutMs);
    if (leaked) return leaked;
    this.serve.proc.child.kill("SIGTERM");
    const exit = await Promise.race([this.serve.proc.exited, new Promise<undefined>((r) => setTimeout(r, timeoutMs))]);
    if (!exit) {
      this.kill();
      return { kind: "exit", detail: `agent serve did not exit within ${timeoutMs} ms of SIGTERM` };
    }
    if (exit.code !== 0) return { kind: "exit", detail: `agent serve exited with code ${exit.code} (signal ${exit.signal}) after SIGTERM; stderr: ${this.serve.proc.stderr().slice(-600)}` };
    return this.#finding;
  }

  /**
   * Once every client has gone, no session may stay open in the server: a
   * session a closed connection stays attached to is memory nobody frees.
   */
  async #openSessionsOnceAllLeft(timeoutMs: number): Promise<Finding | undefined> {
    const headers = { authorization: `Bearer ${this.serve.token}` };
    const read = async (path: string) => (await fetch(`${this.serve.url}${path}`, { headers })).json();
    let open: string[] = [];
    for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
      try {
        const [capabilities, activity] = await Promise.all([read("/v1/capabilities"), read("/console/activity")]);
        open = Object.keys(activity.sessions);
        if (capabilities.connections.open === 0 && open.length === 0) return undefined;
      } catch {
        return this.#crash();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return { kind: "leak", detail: `${open.length} session(s) stayed open ${timeoutMs} ms after every client left: ${open.slice(0, 3).join(", ")}` };
  }

  rss(): number {
    return currentRss(this.pid);
  }

  peakRss(): number {
    return peakRss(this.pid);
  }

  kill(): void {
    this.#live?.ws.socket.destroy();
    if (this.serve.proc.child.exitCode === null) this.serve.proc.child.kill("SIGKILL");
  }
}
