/**
 * One MCP server of a session: connects (with a startup timeout), lists its
 * tools, calls them, and brings a server that stopped back on the next call,
 * a bounded number of times. Failures become `ToolError`s and notices that
 * name the server; secrets never appear in them.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../runtime/log.ts";
import { platformFetch } from "../../runtime/fetch/platform-fetch.ts";
import { redact, redactSecrets } from "../../runtime/secrets.ts";
import { ToolError } from "../types.ts";
import { isStdioServer, type McpServerConfig } from "./config.ts";
import { describeExit, messageOf, schemaIssues, seconds } from "./failures.ts";
import type { ProcessTransport } from "./stdio-transport.ts";
import { createTransport } from "./transports.ts";
import type { InputCheck } from "./tool-adapter.ts";

type Sdk = typeof import("./sdk.ts");
let sdkLoading: Promise<Sdk> | undefined;

/** Loads the MCP SDK once, on first use. */
export function loadMcpSdk(): Promise<Sdk> {
  sdkLoading ??= import("./sdk.ts");
  return sdkLoading;
}

/** The longest timer `setTimeout` takes; stands for "no timeout" in SDK requests (which default to 60 s). */
const NO_TIMEOUT_MS = 2_147_483_647;
/** How long closing waits for an HTTP server to end its session. */
const TERMINATE_SESSION_MS = 1000;

class StartupTimeout extends Error {}

/** Settings for one server connection. */
export interface McpConnectionOptions {
  config: McpServerConfig;
  cwd: string;
  startupTimeoutMs: number;
  callTimeoutMs?: number;
  maxRestarts: number;
  clientVersion: string;
  onNotice(text: string): void;
}

interface Session {
  client: Client;
  transport: Transport;
  process?: ProcessTransport;
}

/** Resolves like `promise`, or rejects with the signal's reason as soon as it is aborted. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A connection to one MCP server. */
export class McpConnection {
  readonly name: string;
  /** The server's tools as last listed (empty until connected). */
  tools: Tool[] = [];
  private session: Session | undefined;
  private opening: Promise<Session> | undefined;
  private starting: Promise<void> | undefined;
  private pending: Transport | undefined;
  private failure: string | undefined;
  private stopReason: string | undefined;
  private restarts = 0;
  private closed = false;
  private sdk: Sdk | undefined;
  private validator: InstanceType<Sdk["AjvJsonSchemaValidator"]> | undefined;
  private readonly stdio: boolean;

  constructor(private readonly options: McpConnectionOptions) {
    this.name = options.config.name;
    this.stdio = isStdioServer(options.config);
  }

  /** Connects and lists the tools; never rejects (a failure becomes a notice). Idempotent. */
  start(): Promise<void> {
    this.starting ??= this.open().then(
      () => {},
      (error) => {
        if (this.closed) return;
        this.failure = messageOf(error);
        this.notice(`MCP server "${this.name}" failed to ${this.stdio ? "start" : "connect"}: ${this.failure}`);
      },
    );
    return this.starting;
  }

  /** Whether the server is connected now. */
  get connected(): boolean {
    return this.session !== undefined;
  }

  /** Builds an input validator (the SDK is loaded once the server has connected). */
  compile(schema: Record<string, unknown>): InputCheck {
    if (!this.sdk) return () => undefined;
    // One ajv per connection: it keeps every schema it compiled, which should go when the session does.
    this.validator ??= new this.sdk.AjvJsonSchemaValidator();
    const validate = this.validator.getValidator(schema as never);
    return (input) => {
      const result = validate(input);
      // ajv names the root `data`: "data/text must be string" reads better as "text must be string".
      return result.valid ? undefined : result.errorMessage.replace(/(^|, )data\//g, "$1").replace(/(^|, )data /g, "$1");
    };
  }

  /** Calls a tool; throws a `ToolError` naming the server when the call cannot complete, and the signal's reason when aborted. */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    signal.throwIfAborted();
    const session = await abortable(this.ensureSession(), signal);
    // A per-call controller: the SDK never removes its listener from the signal it is given.
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      // With the default result schema the answer is always a `CallToolResult` (the SDK's type also allows the legacy shape).
      return (await session.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: controller.signal,
        timeout: this.options.callTimeoutMs ?? NO_TIMEOUT_MS,
      })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new ToolError(redact(this.callFailure(error, tool, session)));
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Shuts the server down (a stdio server's whole process tree). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    const work: Promise<unknown>[] = [];
    if (session) work.push(this.closeSession(session));
    if (this.pending) work.push(this.pending.close());
    await Promise.allSettled(work);
    // An open in progress notices `closed` and closes what it built.
    await Promise.allSettled([this.opening, this.starting]);
  }

  private notice(text: string): void {
    const safe = redact(text);
    log.info(safe);
    this.options.onNotice(safe);
  }

  private nextStep(): string {
    const again = this.stdio ? "restarted" : "reconnected";
    if (this.restarts < this.options.maxRestarts) return `it will be ${again} on the next call`;
    return this.options.maxRestarts === 0 ? `it will not be ${again}` : `it was already ${again} ${this.restarts} times and will not be ${again} again`;
  }

  private ensureSession(): Promise<Session> {
    if (this.closed) return Promise.reject(new ToolError(`MCP server "${this.name}" has been shut down.`));
    if (this.session) return Promise.resolve(this.session);
    if (this.opening) return this.opening;
    if (this.failure !== undefined) {
      return Promise.reject(new ToolError(redact(`MCP server "${this.name}" is not connected: ${this.failure}`)));
    }
    const stopped = `MCP server "${this.name}" stopped (${this.stopReason ?? "connection closed"})`;
    if (this.restarts >= this.options.maxRestarts) return Promise.reject(new ToolError(redact(`${stopped}; ${this.nextStep()}.`)));
    this.restarts++;
    log.info(`restarting MCP server "${this.name}" (${this.restarts} of ${this.options.maxRestarts})`);
    const opening = this.open().catch((error: unknown) => {
      const text = `MCP server "${this.name}" could not be ${this.stdio ? "restarted" : "reconnected"}: ${messageOf(error)}`;
      if (!this.closed) this.notice(text);
      throw new ToolError(redact(text));
    });
    this.opening = opening;
    void opening.catch(() => {}).finally(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    return opening;
  }

  private callFailure(error: unknown, tool: string, session: Session): string {
    const sdk = this.sdk as Sdk;
    const server = `MCP server "${this.name}"`;
    const exit = describeExit(session.process);
    if (exit || (error instanceof sdk.McpError && error.code === sdk.ErrorCode.ConnectionClosed)) {
      if (this.closed) return `${server} has been shut down.`;
      // The close handler may not have run yet (the process exited, its pipe is still draining).
      this.sessionClosed(session);
      return `${server} stopped (${this.stopReason ?? "connection closed"}); ${this.nextStep()}`;
    }
    if (error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
      return `${server} did not answer "${tool}" within ${seconds(this.options.callTimeoutMs ?? NO_TIMEOUT_MS)}.`;
    }
    const issues = schemaIssues(error);
    if (issues !== undefined) return `${server} returned a malformed result for "${tool}": ${issues}`;
    if (error instanceof sdk.McpError) return `${server} returned an error for "${tool}": ${error.message}`;
    return `${server} request failed: ${messageOf(error)}`;
  }

  /** The session ended without us closing it: remember why, and tell the user once. */
  private sessionClosed(session: Session): void {
    if (this.closed || this.session !== session) return;
    this.session = undefined;
    this.stopReason = describeExit(session.process) ?? "connection closed";
    void this.closeSession(session);
    this.notice(`MCP server "${this.name}" stopped (${this.stopReason}); ${this.nextStep()}.`);
  }

  private async closeSession(session: Session): Promise<void> {
    const http = session.transport as { terminateSession?: () => Promise<void>; sessionId?: string };
    if (typeof http.terminateSession === "function" && http.sessionId) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([http.terminateSession().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, TERMINATE_SESSION_MS)))]);
      clearTimeout(timer);
    }
    await session.client.close().catch(() => {});
  }

  /** Starts the server, initializes and lists its tools, all within the startup timeout. */
  private async open(): Promise<Session> {
    const [sdk, fetch] = await Promise.all([this.sdk ?? loadMcpSdk(), isStdioServer(this.options.config) ? undefined : platformFetch()]);
    this.sdk = sdk;
    if (this.closed) throw new Error("shut down");
    const { transport, process: child } = createTransport(sdk, this.options.config, this.options.cwd, fetch);
    const session: Session = { transport, ...(child ? { process: child } : {}), client: undefined as unknown as Client };
    const client = new sdk.Client(
      { name: "acp-edge", version: this.options.clientVersion },
      {
        capabilities: {},
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (!error && tools && this.session === session) this.tools = tools;
            },
          },
        },
      },
    );
    session.client = client;
    client.onclose = () => this.sessionClosed(session);
    client.onerror = (error) => log.debug(`MCP server "${this.name}": ${messageOf(error)}`);
    this.pending = transport;
    const timeoutMs = this.options.startupTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const handshake = (async () => {
      await client.connect(transport, { timeout: timeoutMs });
      return await listAllTools(client, timeoutMs);
    })();
    handshake.catch(() => {}); // it may lose the race below and reject later
    try {
      const tools = await Promise.race([
        handshake,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StartupTimeout()), timeoutMs))),
      ]);
      if (this.closed) throw new Error("shut down");
      this.tools = tools;
      this.session = session;
      this.stopReason = undefined;
      return session;
    } catch (error) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      throw new Error(this.startupFailure(error, child));
    } finally {
      clearTimeout(timer);
      if (this.pending === transport) this.pending = undefined;
    }
  }

  private startupFailure(error: unknown, child: ProcessTransport | undefined): string {
    if (error instanceof StartupTimeout) return `did not finish starting within ${seconds(this.options.startupTimeoutMs)}`;
    const exit = describeExit(child);
    if (exit) {
      const stderr = redactSecrets(child?.stderrTail.at(-1) ?? "").trim();
      return `exited during startup (${exit})${stderr ? `: ${stderr.slice(0, 300)}` : ""}`;
    }
    const issues = schemaIssues(error);
    if (issues !== undefined) return `sent a malformed answer: ${issues}`;
    return messageOf(error);
  }
}

/** Every tool of the server, following pagination. */
async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length < 10_000);
  return tools;
}
