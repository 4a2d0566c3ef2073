/**
 * An MCP `Transport` over a child process: newline-delimited JSON-RPC on its
 * stdin/stdout, stderr to our debug log. Unlike the SDK's own stdio transport
 * it starts the server as a process group and `close()` kills the whole tree,
 * so helpers the server started (npx, shells, language servers) do not outlive it.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../runtime/log.ts";
import type { ShellExit } from "../../runtime/process/child-lifecycle.ts";
import { spawnProcess, type SpawnedProcess } from "../../runtime/process/spawn-program.ts";

/** What to start, for which server. */
export interface ProcessTransportOptions {
  /** The server's name, for logs. */
  server: string;
  command: string;
  args: string[];
  cwd: string;
  /** The child's whole environment. */
  env: Record<string, string>;
}

/** A line longer than this without a newline is not a message we will ever parse. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Last stderr lines kept for startup failure messages. */
const STDERR_TAIL_LINES = 5;
/** After the process exits, this long is left for the rest of its stdout to arrive. */
const DRAIN_AFTER_EXIT_MS = 100;

/** Transport for one stdio MCP server; one process per `start()`. */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** How the process ended, once it has. */
  exit: ShellExit | undefined;
  /** The last lines the server wrote to stderr (not redacted: pass them through `redact` before showing them). */
  readonly stderrTail: string[] = [];

  private child: SpawnedProcess | undefined;
  private closed = false;
  private closeNotified = false;
  private stdoutDone: Promise<void> = Promise.resolve();
  private readonly encoder = new TextEncoder();

  constructor(private readonly options: ProcessTransportOptions) {}

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error("ProcessTransport already started");
    const { command, args, cwd, env } = this.options;
    this.child = await spawnProcess({ command, args, cwd, env });
    if (this.closed) {
      await this.child.terminate();
      throw new Error("closed while starting");
    }
    const child = this.child;
    log.debug(`MCP server "${this.options.server}" started (pid ${child.pid})`);
    this.stdoutDone = this.readStdout(child.stdout);
    void this.readStderr(child.stderr);
    void child.exited.then(async (exit) => {
      this.exit = exit;
      log.debug(`MCP server "${this.options.server}" exited`, exit);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.stdoutDone, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_AFTER_EXIT_MS)))]);
      clearTimeout(timer);
      this.notifyClose();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.child || this.closed) throw new Error("Not connected");
    await this.child.write(this.encoder.encode(`${JSON.stringify(message)}\n`));
  }

  /** Kills the server's whole process tree (SIGTERM, then SIGKILL after a grace period). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    if (child) {
      child.closeStdin();
      await child.terminate();
    }
    this.notifyClose();
  }

  private notifyClose(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    this.onclose?.();
  }

  private async readStdout(stdout: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== "") this.handleLine(line);
        }
        if (buffer.length > MAX_LINE_BYTES) {
          this.onerror?.(new Error(`a message from the server exceeded ${MAX_LINE_BYTES} bytes`));
          void this.close();
          return;
        }
      }
    } catch (error) {
      if (!this.closed) this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private handleLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // Servers that print banners to stdout are common; the line is not a message.
      log.debug(`MCP server "${this.options.server}" wrote a non-JSON line to stdout: ${line.slice(0, 200)}`);
      return;
    }
    const result = JSONRPCMessageSchema.safeParse(parsed);
    if (!result.success) {
      this.onerror?.(new Error(`not a JSON-RPC message: ${line.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(result.data);
  }

  private async readStderr(stderr: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    const emit = (line: string) => {
      if (line.trim() === "") return;
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
      log.debug(`MCP server "${this.options.server}" stderr: ${line}`);
    };
    try {
      for await (const chunk of stderr) {
        buffer += decoder.decode(chunk, { stream: true });
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) emit(line);
        if (buffer.length > 64 * 1024) {
          emit(buffer);
          buffer = "";
        }
      }
    } catch {
      // stderr is only diagnostics
    }
    emit(buffer);
  }
}
