/**
 * A scripted model provider on 127.0.0.1 for tests. It speaks Anthropic
 * Messages (also as Anthropic on Vertex's `streamRawPredict`), OpenAI chat
 * completions (also on Azure's deployment paths), OpenAI Responses and
 * Gemini's `streamGenerateContent` over SSE, and Bedrock's ConverseStream as
 * a binary event stream; each request pops the next scripted turn. Only `node:*` modules, so Bun, Node
 * and Deno can all import it.
 *
 * Run it by hand: `bun tests/helpers/fake-model-server.ts turns.json` prints
 * the URL and serves the turns from the file until killed.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { AnthropicCacheSim, type SimulatedUsage } from "./anthropic-cache-sim.ts";
import { bedrockError, converseFrames, geminiFrames, googleError } from "./fake-cloud-wire.ts";

/** One scripted model reply. */
export interface ScriptedTurn {
  /** Streamed before the text. */
  thinking?: string;
  text?: string;
  /** `rawInput`, when given, is streamed as the arguments text instead of `input` as JSON (malformed calls). */
  toolCalls?: Array<{ id?: string; name: string; input: unknown; rawInput?: string }>;
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** Default: "tool_use"/"tool_calls" when there are tool calls, else "end". */
  stop?: "end" | "max_tokens" | "refusal" | "pause_turn";
  /** Characters per text/thinking/argument delta (default 5). */
  chunkSize?: number;
  /** Delay before each SSE chunk (default 0). */
  chunkDelayMs?: number;
  /** Answer with this HTTP status and the provider's error JSON instead of a stream. */
  error?: { status: number; message: string; retryAfterMs?: number };
  /** Holds the reply (after its headers, before its first frame) until this settles: the test releases it. */
  gate?: Promise<unknown>;
  /**
   * Searches the provider runs itself before the text: Anthropic `server_tool_use` + `web_search_tool_result`
   * blocks (`error`: a `web_search_tool_result_error` with that code), OpenAI Responses `web_search_call` items.
   */
  searches?: ScriptedSearch[];
  /** Anthropic: the reply ends right after the first search's call block, before its result and the message's end. */
  cutAfterSearchCall?: boolean;
  /** Sources the text cites (Anthropic `citations_delta`, OpenAI `url_citation` annotations). */
  citations?: Array<{ url: string; title: string }>;
}

/** One search the fake provider runs. */
export interface ScriptedSearch {
  id?: string;
  query: string;
  results?: Array<{ url: string; title: string; encryptedContent?: string; pageAge?: string }>;
  error?: string;
}

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when it was not JSON. */
  body: any;
  /** How Anthropic's cache would have billed it (Messages requests, with `simulateCache`). */
  cache?: SimulatedUsage;
  /** `performance.now()` when the whole request had arrived, and when its reply was written (benches: the model's share of a turn). */
  receivedAt: number;
  answeredAt?: number;
}

/** A running fake server. */
export interface FakeModelServer {
  /** `http://127.0.0.1:PORT`, without `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Streams the client closed before the server finished them. */
  abortedStreams: number;
  push(...turns: ScriptedTurn[]): void;
  /** Resolves with the `n`th request (1-based) once it has arrived. */
  request(n: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/** A promise the test settles by hand: `gate` for a scripted turn, `release()` to let it go. */
export function manualGate(): { gate: Promise<void>; release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { gate, release };
}

type Api = "anthropic" | "chat" | "responses" | "gemini" | "converse";
/** One SSE frame: an optional `event:` name and a JSON (or literal) payload. */
type Frame = { event?: string; data: unknown };

const ROUTES: Record<string, Api> = {
  "/v1/messages": "anthropic",
  "/v1/chat/completions": "chat",
  "/v1/responses": "responses",
};
/** The clouds' paths: the model id sits inside them. */
const PATTERNS: Array<[RegExp, Api]> = [
  [/\/models\/[^/]+:streamGenerateContent$/, "gemini"],
  [/\/publishers\/anthropic\/models\/[^/]+:streamRawPredict$/, "anthropic"],
  [/^\/model\/[^/]+\/converse-stream$/, "converse"],
  [/\/openai\/deployments\/[^/]+\/chat\/completions$/, "chat"],
];
const NO_TURN = "fake model server: no scripted turn left";
/** A frame that is never written: the reply ends where it stands. */
const CUT: Frame = { data: "cut" };

function routeOf(path: string): Api | undefined {
  return ROUTES[path] ?? PATTERNS.find(([pattern]) => pattern.test(path))?.[1];
}

/** An answer a test's `answer` hook gives instead of the scripted model (token endpoints, refused credentials). */
export interface DirectAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Starts a server on 127.0.0.1 with an ephemeral port. */
/** Options of the fake server. */
export interface FakeModelOptions {
  /** Answers a request when no scripted turn is queued (benchmarks: every request gets an answer chosen from its body). */
  reply?: (request: RecordedRequest) => ScriptedTurn;
  /**
   * Bills Messages requests by a simulation of Anthropic's prompt cache and
   * reports its reads and writes as the reply's usage (unless the turn scripts its own).
   */
  simulateCache?: boolean;
  /**
   * Sees every request first (with its raw body and its path as sent, query
   * included) and may answer it itself: a token endpoint, or a cloud refusing
   * a bad signature. Undefined lets the scripted model answer.
   */
  answer?: (request: RecordedRequest, rawBody: string, rawPath: string) => DirectAnswer | undefined;
}

export async function startFakeModelServer(turns: ScriptedTurn[] = [], options: FakeModelOptions = {}): Promise<FakeModelServer> {
  const queue = [...turns];
  const sockets = new Set<Socket>();
  /** Waiters for a request number, woken as requests arrive. */
  const waiters: Array<{ n: number; resolve(request: RecordedRequest): void }> = [];
  let ids = 0;
  const cache = options.simulateCache ? new AnthropicCacheSim() : undefined;
  const state: FakeModelServer = {
    url: "",
    requests: [],
    abortedStreams: 0,
    push: (...more) => void queue.push(...more),
    request: (n) =>
      new Promise<RecordedRequest>((resolve) => {
        const arrived = state.requests[n - 1];
        if (arrived) resolve(arrived);
        else waiters.push({ n, resolve });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const recorded: RecordedRequest = { method: req.method ?? "", path, headers: lowerHeaders(req), body: parseJson(raw), receivedAt: performance.now() };
    if (cache && req.method === "POST" && routeOf(path) === "anthropic") recorded.cache = cache.bill(recorded.body);
    state.requests.push(recorded);
    for (const waiter of waiters.splice(0)) {
      if (waiter.n === state.requests.length) waiter.resolve(recorded);
      else waiters.push(waiter);
    }
    const direct = options.answer?.(recorded, raw, req.url ?? "/");
    if (direct) return sendJson(res, direct.status, direct.body, direct.headers);
    const api = req.method === "POST" ? routeOf(path) : undefined;
    if (!api) return sendJson(res, 404, { error: { message: `fake model server: no route for ${req.method} ${path}` } });
    const scripted = queue.shift() ?? options.reply?.(recorded);
    const simulated = recorded.cache;
    const turn =
      scripted && simulated && !scripted.usage
        ? { ...scripted, usage: { input: simulated.input, output: 5, cacheRead: simulated.cacheRead, cacheWrite: simulated.cacheWrite } }
        : scripted;
    if (!turn) return sendJson(res, 500, errorBody(api, 500, NO_TURN));
    if (turn.error) {
      const retryAfter: Record<string, string> = turn.error.retryAfterMs === undefined ? {} : { "retry-after-ms": String(turn.error.retryAfterMs) };
      if (api === "converse") {
        const { body, headers } = bedrockError(turn.error.status, turn.error.message);
        return sendJson(res, turn.error.status, body, { ...headers, ...retryAfter });
      }
      return sendJson(res, turn.error.status, errorBody(api, turn.error.status, turn.error.message), retryAfter);
    }
    if (api === "converse") {
      if (!(await streamBinary(res, converseFrames(turn, ++ids), turn.chunkDelayMs ?? 0, turn.gate))) state.abortedStreams++;
      recorded.answeredAt = performance.now();
      return;
    }
    const model = String(parseJson(raw)?.model ?? "fake-model");
    const frames =
      api === "anthropic"
        ? anthropicFrames(turn, model, ++ids)
        : api === "chat"
          ? chatFrames(turn, model, ++ids)
          : api === "gemini"
            ? geminiFrames(turn)
            : responsesFrames(turn, model, ++ids);
    if (!(await streamFrames(res, frames, turn.chunkDelayMs ?? 0, turn.gate))) state.abortedStreams++;
    recorded.answeredAt = performance.now();
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("fake model server: no TCP address");
  state.url = `http://127.0.0.1:${address.port}`;
  return state;
}

// ---------- wire formats ----------

/** A tool call's arguments as streamed: the raw text when scripted, else its input as JSON. */
function argumentsText(call: { input: unknown; rawInput?: string }): string {
  return call.rawInput ?? JSON.stringify(call.input ?? {});
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function anthropicFrames(turn: ScriptedTurn, model: string, n: number): Frame[] {
  const size = turn.chunkSize ?? 5;
  const usage = turn.usage ?? { input: 10, output: 5 };
  const frames: Frame[] = [];
  const ev = (type: string, body: Record<string, unknown> = {}) => frames.push({ event: type, data: { type, ...body } });
  ev("message_start", {
    message: {
      id: `msg_fake_${n}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
      usage: {
        input_tokens: usage.input, output_tokens: 1,
        cache_read_input_tokens: usage.cacheRead ?? 0, cache_creation_input_tokens: usage.cacheWrite ?? 0,
      },
    },
  });
  let index = 0;
  const block = (start: Record<string, unknown>, deltas: Array<Record<string, unknown>>) => {
    ev("content_block_start", { index, content_block: start });
    for (const delta of deltas) ev("content_block_delta", { index, delta });
    ev("content_block_stop", { index });
    index++;
  };
  if (turn.thinking !== undefined) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...chunks(turn.thinking, size).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: `fake-signature-${n}` },
    ]);
  }
  for (const [i, search] of (turn.searches ?? []).entries()) {
    const id = search.id ?? `srvtoolu_fake_${n}_${i}`;
    block(
      { type: "server_tool_use", id, name: "web_search", input: {} },
      chunks(JSON.stringify({ query: search.query }), size).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    );
    if (turn.cutAfterSearchCall) return [...frames, CUT];
    const content = search.error
      ? { type: "web_search_tool_result_error", error_code: search.error }
      : (search.results ?? []).map((r) => ({
          type: "web_search_result", url: r.url, title: r.title,
          encrypted_content: r.encryptedContent ?? `fake-encrypted-${n}-${i}`, page_age: r.pageAge ?? null,
        }));
    block({ type: "web_search_tool_result", tool_use_id: id, content }, []);
  }
  if (turn.text !== undefined) {
    block({ type: "text", text: "" }, [
      ...chunks(turn.text, size).map((text) => ({ type: "text_delta", text })),
      ...(turn.citations ?? []).map((c, i) => ({
        type: "citations_delta",
        citation: { type: "web_search_result_location", cited_text: turn.text!.slice(0, 10), url: c.url, title: c.title, encrypted_index: `fake-index-${i}` },
      })),
    ]);
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    block(
      { type: "tool_use", id: call.id ?? `toolu_fake_${n}_${i}`, name: call.name, input: {} },
      chunks(argumentsText(call), size).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    );
  }
  const stop = turn.stop === "max_tokens" || turn.stop === "refusal" || turn.stop === "pause_turn" ? turn.stop : turn.toolCalls?.length ? "tool_use" : "end_turn";
  const searched = (turn.searches ?? []).filter((s) => !s.error).length;
  ev("message_delta", {
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: usage.output, ...(turn.searches ? { server_tool_use: { web_search_requests: searched } } : {}) },
  });
  ev("message_stop");
  return frames;
}

function chatFrames(turn: ScriptedTurn, model: string, n: number): Frame[] {
  const size = turn.chunkSize ?? 5;
  const usage = turn.usage ?? { input: 10, output: 5 };
  const base = { id: `chatcmpl-fake-${n}`, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
  const frames: Frame[] = [];
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    frames.push({ data: { ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] } });
  delta({ role: "assistant", content: "" });
  for (const piece of chunks(turn.thinking ?? "", size)) delta({ reasoning_content: piece });
  for (const piece of chunks(turn.text ?? "", size)) delta({ content: piece });
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = call.id ?? `call_fake_${n}_${i}`;
    delta({ tool_calls: [{ index: i, id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of chunks(argumentsText(call), size)) {
      delta({ tool_calls: [{ index: i, function: { arguments: piece } }] });
    }
  }
  const finish = turn.stop === "max_tokens" ? "length" : turn.stop === "refusal" ? "content_filter" : turn.toolCalls?.length ? "tool_calls" : "stop";
  delta({}, finish);
  const cacheRead = usage.cacheRead ?? 0;
  frames.push({
    data: {
      ...base, choices: [],
      usage: {
        prompt_tokens: usage.input + cacheRead, completion_tokens: usage.output, total_tokens: usage.input + cacheRead + usage.output,
        prompt_tokens_details: { cached_tokens: cacheRead },
      },
    },
  });
  frames.push({ data: "[DONE]" });
  return frames;
}

function responsesFrames(turn: ScriptedTurn, model: string, n: number): Frame[] {
  const size = turn.chunkSize ?? 5;
  const usage = turn.usage ?? { input: 10, output: 5 };
  const responseId = `resp_fake_${n}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const frames: Frame[] = [];
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>) => frames.push({ event: type, data: { type, sequence_number: seq++, ...body } });
  const output: unknown[] = [];
  const shell = { id: responseId, object: "response", created_at: createdAt, model };
  ev("response.created", { response: { ...shell, status: "in_progress", output: [], usage: null } });
  ev("response.in_progress", { response: { ...shell, status: "in_progress", output: [], usage: null } });

  if (turn.thinking !== undefined) {
    const id = `rs_fake_${n}`;
    const output_index = output.length;
    ev("response.output_item.added", { output_index, item: { id, type: "reasoning", summary: [] } });
    ev("response.reasoning_summary_part.added", { item_id: id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
    for (const piece of chunks(turn.thinking, size)) {
      ev("response.reasoning_summary_text.delta", { item_id: id, output_index, summary_index: 0, delta: piece });
    }
    ev("response.reasoning_summary_text.done", { item_id: id, output_index, summary_index: 0, text: turn.thinking });
    const part = { type: "summary_text", text: turn.thinking };
    ev("response.reasoning_summary_part.done", { item_id: id, output_index, summary_index: 0, part });
    const item = { id, type: "reasoning", summary: [part], encrypted_content: `fake-encrypted-${n}` };
    ev("response.output_item.done", { output_index, item });
    output.push(item);
  }
  for (const [i, search] of (turn.searches ?? []).entries()) {
    const id = search.id ?? `ws_fake_${n}_${i}`;
    const output_index = output.length;
    ev("response.output_item.added", { output_index, item: { id, type: "web_search_call", status: "in_progress" } });
    const sources = (search.results ?? []).map((r) => ({ type: "url", url: r.url }));
    const item = { id, type: "web_search_call", status: search.error ? "failed" : "completed", action: { type: "search", query: search.query, sources } };
    ev("response.output_item.done", { output_index, item });
    output.push(item);
  }
  if (turn.text !== undefined) {
    const id = `msg_fake_${n}`;
    const output_index = output.length;
    const refusal = turn.stop === "refusal";
    const empty = refusal ? { type: "refusal", refusal: "" } : { type: "output_text", text: "", annotations: [] };
    ev("response.output_item.added", { output_index, item: { id, type: "message", status: "in_progress", role: "assistant", content: [] } });
    ev("response.content_part.added", { item_id: id, output_index, content_index: 0, part: empty });
    for (const piece of chunks(turn.text, size)) {
      if (refusal) ev("response.refusal.delta", { item_id: id, output_index, content_index: 0, delta: piece });
      else ev("response.output_text.delta", { item_id: id, output_index, content_index: 0, delta: piece, logprobs: [] });
    }
    const full = refusal ? { type: "refusal", refusal: turn.text } : { type: "output_text", text: turn.text, annotations: [] };
    if (refusal) ev("response.refusal.done", { item_id: id, output_index, content_index: 0, refusal: turn.text });
    else ev("response.output_text.done", { item_id: id, output_index, content_index: 0, text: turn.text, logprobs: [] });
    for (const [annotation_index, c] of (turn.citations ?? []).entries()) {
      ev("response.output_text.annotation.added", {
        item_id: id, output_index, content_index: 0, annotation_index,
        annotation: { type: "url_citation", start_index: 0, end_index: turn.text.length, url: c.url, title: c.title },
      });
    }
    ev("response.content_part.done", { item_id: id, output_index, content_index: 0, part: full });
    const item = { id, type: "message", status: "completed", role: "assistant", content: [full] };
    ev("response.output_item.done", { output_index, item });
    output.push(item);
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = `fc_fake_${n}_${i}`;
    const callId = call.id ?? `call_fake_${n}_${i}`;
    const output_index = output.length;
    const args = argumentsText(call);
    const item = { id, type: "function_call", call_id: callId, name: call.name, arguments: "" };
    ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress" } });
    for (const piece of chunks(args, size)) {
      ev("response.function_call_arguments.delta", { item_id: id, output_index, delta: piece });
    }
    ev("response.function_call_arguments.done", { item_id: id, output_index, arguments: args });
    const done = { ...item, arguments: args, status: "completed" };
    ev("response.output_item.done", { output_index, item: done });
    output.push(done);
  }
  const cacheRead = usage.cacheRead ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  const incomplete = turn.stop === "max_tokens";
  ev(incomplete ? "response.incomplete" : "response.completed", {
    response: {
      ...shell,
      status: incomplete ? "incomplete" : "completed",
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      output,
      usage: {
        input_tokens: usage.input + cacheRead + cacheWrite,
        input_tokens_details: { cached_tokens: cacheRead, ...(usage.cacheWrite !== undefined ? { cache_write_tokens: cacheWrite } : {}) },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + cacheRead + cacheWrite + usage.output,
      },
    },
  });
  return frames;
}

function errorBody(api: Api, status: number, message: string): unknown {
  if (api === "gemini") return googleError(status, message);
  if (api === "converse") return bedrockError(status, message).body;
  if (api === "anthropic") {
    const type =
      { 400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error" }[
        status
      ] ?? "api_error";
    return { type: "error", error: { type, message } };
  }
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  const code = status === 401 ? "invalid_api_key" : status === 429 ? "rate_limit_exceeded" : null;
  return { error: { message, type, param: null, code } };
}

// ---------- HTTP plumbing ----------

/** Writes the frames; false when the client went away first. */
async function streamFrames(res: ServerResponse, frames: Frame[], delayMs: number, gate?: Promise<unknown>): Promise<boolean> {
  let closed = false;
  res.on("close", () => {
    if (!res.writableFinished) closed = true;
  });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  if (gate) await gate;
  for (const frame of frames) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (closed || res.destroyed) return false;
    if (frame === CUT) {
      // The reply ends there, whole as HTTP but without the rest of the message: every runtime reads all that was written.
      await new Promise<void>((resolve) => res.end(resolve));
      return false;
    }
    const data = typeof frame.data === "string" ? frame.data : JSON.stringify(frame.data);
    res.write(`${frame.event ? `event: ${frame.event}\n` : ""}data: ${data}\n\n`);
  }
  if (closed || res.destroyed) return false;
  await new Promise<void>((resolve) => res.end(resolve));
  return true;
}

/** Writes binary frames (Bedrock's event stream); false when the client went away first. */
async function streamBinary(res: ServerResponse, frames: Uint8Array[], delayMs: number, gate?: Promise<unknown>): Promise<boolean> {
  let closed = false;
  res.on("close", () => {
    if (!res.writableFinished) closed = true;
  });
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
  res.flushHeaders();
  if (gate) await gate;
  for (const frame of frames) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (closed || res.destroyed) return false;
    res.write(frame);
  }
  if (closed || res.destroyed) return false;
  await new Promise<void>((resolve) => res.end(resolve));
  return true;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

// ---------- manual use ----------

async function main(file: string | undefined): Promise<void> {
  const { readFileSync } = await import("node:fs");
  const turns: ScriptedTurn[] = file ? JSON.parse(readFileSync(file, "utf8")) : [];
  const server = await startFakeModelServer(turns);
  console.log(server.url);
}

async function isMain(): Promise<boolean> {
  // When bundled into another script, import.meta describes that script: never start a server then.
  if (!/\/fake-model-server\.[cm]?[jt]s$/.test(new URL(import.meta.url).pathname)) return false;
  const flag = (import.meta as ImportMeta & { main?: boolean }).main;
  if (typeof flag === "boolean") return flag;
  const [{ default: process }, { pathToFileURL }, { realpathSync }] = await Promise.all([
    import("node:process"),
    import("node:url"),
    import("node:fs"),
  ]);
  const script = process.argv[1];
  try {
    return !!script && pathToFileURL(realpathSync(script)).href === import.meta.url;
  } catch {
    return false;
  }
}

if (await isMain()) {
  const { default: process } = await import("node:process");
  await main(process.argv[2]);
}
