/**
 * A small MCP server for the tests, built on the MCP SDK's server side.
 *
 *   bun tests/helpers/mcp-test-server.ts --stdio [--notes FILE] [--crash-after N]
 *       [--hang-on-start] [--exit-at-start CODE] [--pid-file FILE]
 *
 *   bun tests/helpers/mcp-test-server.ts --http [--notes FILE]   (prints its Streamable HTTP URL)
 *
 * or in process: `startHttpMcpServer(options)` serves Streamable HTTP on
 * `<url>/mcp` and the old HTTP+SSE transport on `<url>/sse` (127.0.0.1, port 0).
 *
 * Tools: echo (read-only), whoami (an env var / header it received), write_note
 * (appends to the notes file), slow (waits; notes "slow cancelled" when
 * cancelled), image, resource, fail (isError), bad_result (a malformed result),
 * crash (exits hard), pid, spawn_child (starts `sleep 60`, returns its pid), and a
 * few tools whose names need sanitising.
 */
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export interface TestServerOptions {
  /** File that write_note appends to (default: $MCP_TEST_NOTES). */
  notesFile?: string;
  /** Exit hard on the tool call after this many calls. */
  crashAfter?: number;
  /** How `crash` ends things: the stdio server exits; over HTTP it only throws. */
  exit?: (code: number) => void;
}

/** The tool names that need sanitising (dots, and one far over 64 characters). */
export const ODD_TOOL_NAMES = ["name.with.dots", "name_with_dots", `very_long_tool_name_${"x".repeat(70)}`];

/** 1×1 transparent PNG. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const BAD_RESULT_MARKER = "__bad_result__";

const ECHO_SCHEMA = {
  type: "object",
  properties: { text: { type: "string", description: "Text to echo" } },
  required: ["text"],
  additionalProperties: false,
};

const tools = [
  { name: "echo", description: "Echoes the text back.", inputSchema: ECHO_SCHEMA, annotations: { readOnlyHint: true } },
  {
    name: "whoami",
    description: "Reports an environment variable and a request header it received.",
    inputSchema: { type: "object", properties: { env: { type: "string" }, header: { type: "string" } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: "write_note",
    description: "Saves a note.",
    inputSchema: { type: "object", properties: { note: { type: "string", minLength: 1 } }, required: ["note"] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  {
    name: "slow",
    description: "Waits `ms` milliseconds.",
    inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0 } }, required: ["ms"] },
  },
  { name: "image", description: "Returns an image.", inputSchema: { type: "object", properties: {} } },
  { name: "resource", description: "Returns an embedded resource and a link.", inputSchema: { type: "object", properties: {} } },
  { name: "fail", description: "Returns an error result.", inputSchema: { type: "object", properties: {} } },
  { name: "bad_result", description: "Returns a malformed result.", inputSchema: { type: "object", properties: {} } },
  { name: "crash", description: "Exits hard.", inputSchema: { type: "object", properties: {} } },
  { name: "pid", description: "Returns the server's process id.", inputSchema: { type: "object", properties: {} } },
  { name: "spawn_child", description: "Starts `sleep 60` and returns its pid.", inputSchema: { type: "object", properties: {} } },
  ...ODD_TOOL_NAMES.map((name) => ({ name, description: `Odd name ${name}.`, inputSchema: ECHO_SCHEMA })),
];

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/** Rewrites the marked result on its way out: the SDK's server would refuse to send a malformed one. */
function withBadResults<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const result = (message as { result?: CallToolResult }).result;
    const first = result?.content?.[0];
    if (first?.type === "text" && first.text === BAD_RESULT_MARKER) {
      return send({ ...message, result: { content: "this should be an array" } } as never, options);
    }
    return send(message, options);
  };
  return transport;
}

/** A server with the test tools; `options` decide where notes go and how crashes end. */
export function createTestServer(options: TestServerOptions = {}): Server {
  const server = new Server({ name: "mcp-test-server", version: "1.0.0" }, { capabilities: { tools: {} } });
  let calls = 0;
  const notes = () => options.notesFile ?? process.env.MCP_TEST_NOTES;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    calls++;
    if (options.crashAfter !== undefined && calls > options.crashAfter) {
      exit(1);
      throw new Error("crashed");
    }
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case "echo":
        return text(String(args.text));
      case "whoami": {
        const headers = extra.requestInfo?.headers ?? {};
        const header = typeof args.header === "string" ? headers[args.header.toLowerCase()] : undefined;
        const env = typeof args.env === "string" ? process.env[args.env] : undefined;
        return text(JSON.stringify({ env: env ?? null, header: header ?? null }));
      }
      case "write_note": {
        const file = notes();
        if (!file) return { ...text("no notes file configured"), isError: true };
        appendFileSync(file, `${String(args.note)}\n`);
        return text("saved");
      }
      case "slow": {
        const finished = await sleep(Number(args.ms), extra.signal);
        if (!finished) {
          const file = notes();
          if (file) appendFileSync(file, "slow cancelled\n");
        }
        return text(finished ? `waited ${args.ms} ms` : "cancelled");
      }
      case "image":
        return { content: [{ type: "text", text: "a pixel:" }, { type: "image", data: PNG_BASE64, mimeType: "image/png" }] };
      case "resource":
        return {
          content: [
            { type: "resource", resource: { uri: "file:///notes/readme.md", mimeType: "text/markdown", text: "# Notes" } },
            { type: "resource_link", uri: "file:///notes/todo.md", name: "todo.md", description: "the todo list" },
          ],
        };
      case "fail":
        return { ...text("it failed on purpose"), isError: true };
      case "bad_result":
        return text(BAD_RESULT_MARKER);
      case "crash":
        exit(1);
        throw new Error("crashed");
      case "pid":
        return text(String(process.pid));
      case "spawn_child": {
        const child = spawn("sleep", ["60"], { stdio: "ignore" });
        return text(String(child.pid));
      }
      default:
        if (ODD_TOOL_NAMES.includes(request.params.name)) return text(`${request.params.name}: ${String(args.text)}`);
        return { ...text(`unknown tool ${request.params.name}`), isError: true };
    }
  });
  return server;
}

/** A running HTTP test server. */
export interface HttpMcpServer {
  /** Base URL: `<url>/mcp` speaks Streamable HTTP, `<url>/sse` the old HTTP+SSE transport. */
  url: string;
  close(): Promise<void>;
}

/** Serves the test tools over HTTP on 127.0.0.1 (a free port). */
export async function startHttpMcpServer(options: TestServerOptions = {}): Promise<HttpMcpServer> {
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  const serverOptions = { ...options, exit: options.exit ?? (() => {}) };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/mcp") {
      const id = req.headers["mcp-session-id"];
      const existing = typeof id === "string" ? streamable.get(id) : undefined;
      if (existing) return existing.handleRequest(req, res);
      if (req.method !== "POST" || id !== undefined) {
        res.writeHead(404).end("unknown session");
        return;
      }
      const transport = withBadResults(
        new StreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sessionId) => void streamable.set(sessionId, transport),
        }),
      );
      transport.onclose = () => {
        if (transport.sessionId) streamable.delete(transport.sessionId);
      };
      await createTestServer(serverOptions).connect(transport);
      return transport.handleRequest(req, res);
    }
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = withBadResults(new SSEServerTransport("/messages", res));
      sse.set(transport.sessionId, transport);
      res.on("close", () => sse.delete(transport.sessionId));
      await createTestServer(serverOptions).connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sse.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) {
        res.writeHead(404).end("unknown session");
        return;
      }
      return transport.handlePostMessage(req, res);
    }
    res.writeHead(404).end("not found");
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const transport of [...streamable.values(), ...sse.values()]) await transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function flag(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main(args: string[]): Promise<void> {
  const pidFile = flag(args, "--pid-file");
  if (pidFile) writeFileSync(pidFile, String(process.pid));
  const exitAtStart = flag(args, "--exit-at-start");
  if (exitAtStart !== undefined) {
    const secret = process.env.MCP_TEST_SECRET;
    process.stderr.write(`fatal: cannot start${secret ? ` with key ${secret}` : ""}\n`);
    process.exit(Number(exitAtStart));
  }
  if (args.includes("--hang-on-start")) {
    setInterval(() => {}, 60_000);
    return;
  }
  const crashAfter = flag(args, "--crash-after");
  const notesFile = flag(args, "--notes");
  const secret = process.env.MCP_TEST_SECRET;
  process.stderr.write(`mcp-test-server: ready on stdio${secret ? ` (key ${secret})` : ""}\n`);
  const server = createTestServer({ ...(notesFile ? { notesFile } : {}), ...(crashAfter ? { crashAfter: Number(crashAfter) } : {}) });
  await server.connect(withBadResults(new StdioServerTransport()));
}

if (import.meta.main && process.argv.includes("--stdio")) await main(process.argv.slice(2));
else if (import.meta.main && process.argv.includes("--http")) {
  const notesFile = flag(process.argv, "--notes");
  const { url } = await startHttpMcpServer(notesFile ? { notesFile } : {});
  process.stdout.write(`${url}/mcp\n`);
}
