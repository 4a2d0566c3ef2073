/**
 * Structure-aware JSON-RPC inputs: valid envelopes with hostile params for
 * every ACP method the agent serves, invalid envelopes, ids of every JSON
 * type, batches, responses to requests never sent, huge and deeply nested
 * values, invalid UTF-8. Each input is one message body; the framing is added
 * by the transport. `@@SID@@` and `@@CWD@@` are replaced when sending by the
 * latest session id and the project directory, so valid sessions get hit.
 */
import { DupObject, RawJson, deepValue, hugeString, randomString, randomValue, toJsonText } from "./transport-json-values.ts";
import { Prng } from "./transport-prng.ts";

/** A message body: text (placeholders allowed) and raw bytes, concatenated. */
export type Segment = string | Uint8Array;

/** One generated JSON-RPC-level input. */
export interface RpcInput {
  /** Short description for failure reports. */
  label: string;
  segments: Segment[];
  /**
   * Nested so deep that a runtime's JSON parser may refuse it (-32700): its
   * answer is optional.
   */
  deep?: boolean;
  /** Belongs to a class of inputs with a known, separately tracked bug. */
  knownBug?: string;
}

/** Options shared by the generators. */
export interface GenerateOptions {
  /** Leave out inputs of the known bug classes (to make progress while they are being fixed). */
  excludeKnown: boolean;
  /** Largest single body to generate, in bytes. */
  maxBodyBytes: number;
}

const MODES = ["read-only", "ask", "write", "yolo"];

type Template = (rng: Prng) => Record<string, unknown>;
const sid = "@@SID@@";
const cwd = "@@CWD@@";
const sessionRef = (rng: Prng) => (rng.chance(0.85) ? sid : rng.pick(["sess_unknown", "", sid + "x", "../" + sid]));

const PROMPT_BLOCKS: ((rng: Prng) => unknown)[] = [
  (rng) => ({ type: "text", text: rng.pick(["hello", "", " ", "/help", "/session", "/name fuzz", "/compact", "/unknown-cmd a b", "/review \"a b\"", randomString(rng, 20)]) }),
  () => ({ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }),
  (rng) => ({ type: "image", mimeType: rng.pick(["text/plain", "image/png", ""]), data: rng.pick(["!!!", "", "AAAA"]) }),
  () => ({ type: "audio", mimeType: "audio/wav", data: "AAAA" }),
  (rng) => ({ type: "resource_link", name: "x", uri: rng.pick(["file://@@CWD@@/a.txt", "file:///dev/zero", "file:///etc/passwd", "file://@@CWD@@", "http://127.0.0.1:9/x", "not a uri", "file://@@CWD@@/%2e%2e/x"]) }),
  (rng) => ({ type: "resource", resource: rng.pick([{ uri: "file:///x", text: "t", mimeType: "text/plain" }, { uri: "file:///b", blob: "AAAA", mimeType: "application/octet-stream" }, { uri: 5 }]) }),
  (rng) => randomValue(rng, 2),
];

/** Valid-looking params per ACP method; mutations make them hostile. */
export const METHOD_TEMPLATES: Record<string, Template> = {
  initialize: (rng) => ({
    protocolVersion: rng.pick([1, 1, 0, 2, 99999, -1]),
    clientCapabilities: rng.chance(0.7) ? { fs: { readTextFile: rng.chance(0.5), writeTextFile: rng.chance(0.5) }, terminal: rng.chance(0.5) } : randomValue(rng, 2),
  }),
  authenticate: (rng) => ({ methodId: rng.pick(["acp-edge-credentials", "acp-edge-credentials", "other", ""]) }),
  logout: () => ({}),
  "session/new": (rng) => ({ cwd: rng.chance(0.8) ? cwd : rng.pick(["relative", "/", "/nonexistent", "/dev/null", cwd + "/.."]), mcpServers: rng.chance(0.9) ? [] : [mcpServer(rng)], ...(rng.chance(0.2) ? { additionalDirectories: [rng.pick([cwd, "/tmp", "rel", "/nonexistent"])] } : {}) }),
  "session/load": (rng) => ({ sessionId: sessionRef(rng), cwd, mcpServers: [] }),
  "session/resume": (rng) => ({ sessionId: sessionRef(rng), cwd, mcpServers: [] }),
  "session/list": (rng) => (rng.chance(0.5) ? {} : { cwd: rng.pick([cwd, "/", "rel"]), ...(rng.chance(0.3) ? { cursor: rng.pick(["", "abc", "eyJ4IjoxfQ", randomString(rng, 10)]) } : {}) }),
  "session/close": (rng) => ({ sessionId: sessionRef(rng) }),
  "session/delete": (rng) => ({ sessionId: rng.chance(0.3) ? sid : "sess_unknown" }),
  "session/fork": (rng) => ({ sessionId: sessionRef(rng), cwd, mcpServers: [] }),
  "session/set_mode": (rng) => ({ sessionId: sessionRef(rng), modeId: rng.chance(0.8) ? rng.pick(MODES) : randomString(rng, 6) }),
  "session/set_config_option": (rng) => ({
    sessionId: sessionRef(rng),
    configId: rng.pick(["mode", "model", "thought_level", "bogus"]),
    value: rng.pick([...MODES, "faux/echo", "faux/missing", "off", "high", "xhigh", "bogus"]),
  }),
  "session/prompt": (rng) => ({ sessionId: sessionRef(rng), prompt: Array.from({ length: rng.range(rng.chance(0.1) ? 0 : 1, 3) }, () => rng.pick(PROMPT_BLOCKS)(rng)) }),
  "session/cancel": (rng) => ({ sessionId: sessionRef(rng) }),
  "$/cancel_request": (rng) => ({ requestId: randomId(rng) }),
  "session/set_model": (rng) => ({ sessionId: sessionRef(rng), modelId: rng.pick(["faux/echo", "nope"]) }),
};

/**
 * Methods added after the first seeds were recorded. They come from a stream
 * of their own (see `extensionInput`), so every input those seeds made before
 * is made again, apart from the few this replaces.
 */
const EXTENSION_TEMPLATES: Record<string, Template> = {
  // While a prompt of the same batch runs it is injected, on an idle session it starts a turn or is declined.
  "_session/steering": (rng) => ({
    sessionId: sessionRef(rng),
    prompt: Array.from({ length: rng.range(rng.chance(0.1) ? 0 : 1, 3) }, () => rng.pick(PROMPT_BLOCKS)(rng)),
    ...(rng.chance(0.6)
      ? { _meta: rng.pick<unknown>([{ steering: { idleBehavior: "promptRequired" } }, { steering: { idleBehavior: rng.pick<unknown>(["startNewTurn", "", 1, null]) } }, { steering: "promptRequired" }, { steering: {} }, {}, null]) }
      : {}),
  }),
};

const UNKNOWN_METHODS = ["", " ", "session/", "session/unknown", "session/inject", "session/steer", "_session/steering ", "fs/read_text_file", "terminal/create", "session/update", "session/request_permission", "_acp-edge/x", "_", "$/", "$/progress", "rpc.discover", "__proto__", "constructor", "initialize ", "INITIALIZE", "session/new\u0000"];

function mcpServer(rng: Prng): unknown {
  return rng.pick<unknown>([
    { type: "http", name: "m", url: "http://127.0.0.1:9/mcp", headers: [] },
    { type: "sse", name: "m", url: "not a url", headers: [] },
    { name: "m", command: "/nonexistent/mcp-server", args: [], env: [] },
    { name: "", command: "", args: "x", env: {} },
    randomValue(rng, 2),
  ]);
}

/** An id of any JSON type, biased to a small pool so duplicates and cancel targets collide. */
export function randomId(rng: Prng): unknown {
  return rng.weighted<() => unknown>([
    [40, () => rng.int(24)],
    [8, () => rng.pick(["a", "", "0", "1", "id-" + rng.int(8), "\u0000", "😀", "probe"])],
    [4, () => rng.pick([-1, -0.5, 1.5, 1e308, 2 ** 53 + 2, -(2 ** 63), 0.1])],
    [3, () => new RawJson(rng.pick(["-0", "123456789012345678901234567890", "1e2", "1.0"]))],
    [2, () => null],
    [1, () => hugeString(rng, rng.range(1000, 70_000))],
  ])();
}

/** An id that makes the envelope invalid (object, array, boolean, non-finite). */
function invalidId(rng: Prng): unknown {
  return rng.pick<unknown>([{}, { a: 1 }, [], [1], true, false, new RawJson("1e400"), new RawJson("-1e400")]);
}

function mutateParams(rng: Prng, params: Record<string, unknown>, options: GenerateOptions, out: { deep?: boolean }): unknown {
  let value: unknown = params;
  const rounds = rng.weighted([[40, 0], [30, 1], [20, 2], [10, 3]]);
  for (let i = 0; i < rounds; i++) {
    const keys = value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof RawJson) ? Object.keys(value as object) : [];
    const op = rng.weighted<string>([
      [keys.length ? 10 : 0, "replace-field"],
      [keys.length ? 6 : 0, "delete-field"],
      [6, "add-field"],
      [3, "replace-all"],
      [1, "huge-field"],
      [1, "deep-field"],
    ]);
    const obj = value as Record<string, unknown>;
    switch (op) {
      case "replace-field":
        value = { ...obj, [rng.pick(keys)]: randomValue(rng) };
        break;
      case "delete-field": {
        const { [rng.pick(keys)]: _, ...rest } = obj;
        value = rest;
        break;
      }
      case "add-field":
        value = keys.length || value === params ? { ...obj, [rng.pick(["_meta", "__proto__", "constructor", "extra", "sessionId", "cwd"])]: randomValue(rng) } : value;
        break;
      case "replace-all":
        value = randomValue(rng);
        break;
      case "huge-field":
        value = { ...(keys.length ? obj : {}), [keys.length ? rng.pick(keys) : "pad"]: hugeString(rng, rng.chance(0.05) ? rng.range(1 << 20, Math.min(options.maxBodyBytes, 4 << 20)) : rng.range(1 << 10, 1 << 17)) };
        break;
      case "deep-field": {
        const depth = rng.weighted([[6, rng.range(10, 500)], [3, rng.range(500, 5000)], [1, rng.range(5000, 200_000)]]);
        if (depth > 1000) out.deep = true;
        value = { ...(keys.length ? obj : {}), [keys.length ? rng.pick(keys) : "deep"]: deepValue(rng, depth) };
        break;
      }
    }
  }
  return value;
}

/** Shuffles an envelope's keys (order must not matter). */
function envelope(rng: Prng, fields: [string, unknown][]): string {
  if (rng.chance(0.2)) fields = [...fields].sort(() => (rng.chance(0.5) ? 1 : -1));
  return toJsonText(new DupObject(fields.filter(([, v]) => v !== undefined)));
}

function validRequest(rng: Prng, options: GenerateOptions): RpcInput {
  const known = rng.chance(0.9);
  const method = known ? rng.pick(Object.keys(METHOD_TEMPLATES)) : rng.chance(0.5) ? rng.pick(UNKNOWN_METHODS) : randomString(rng, rng.range(1, 12));
  const flags: { deep?: boolean } = {};
  const template = Object.hasOwn(METHOD_TEMPLATES, method) ? METHOD_TEMPLATES[method] : undefined;
  const params = template ? mutateParams(rng, template(rng), options, flags) : randomValue(rng);
  const notification = method === "session/cancel" || method === "$/cancel_request" ? rng.chance(0.7) : rng.chance(0.05);
  const fields: [string, unknown][] = [["jsonrpc", "2.0"]];
  if (!notification) fields.push(["id", randomId(rng)]);
  fields.push(["method", method]);
  if (rng.chance(0.95)) fields.push(["params", params]);
  if (rng.chance(0.03)) fields.push([rng.pick(["extra", "result", "error", "_meta"]), randomValue(rng, 1)]);
  return { label: `${notification ? "notification" : "request"} ${JSON.stringify(method).slice(0, 40)}`, segments: [envelope(rng, fields)], ...flags };
}

function invalidEnvelope(rng: Prng, options: GenerateOptions): RpcInput {
  const method = rng.chance(0.5) ? "initialize" : rng.pick(Object.keys(METHOD_TEMPLATES));
  const params = METHOD_TEMPLATES[method]!(rng);
  const kind = rng.pick(["no-jsonrpc", "bad-jsonrpc", "object-id", "bad-method", "response", "both-result-error", "dup-keys"]);
  switch (kind) {
    case "no-jsonrpc":
      return { label: `request without "jsonrpc" ${method}`, segments: [envelope(rng, [["id", randomId(rng)], ["method", method], ["params", params]])], knownBug: "bad-envelope-request" };
    case "bad-jsonrpc": {
      const version = rng.pick<unknown>(["1.0", "2", 2, 2.0, null, "2.0 ", "", {}]);
      return { label: `request with "jsonrpc":${JSON.stringify(version)} ${method}`, segments: [envelope(rng, [["jsonrpc", version], ["id", randomId(rng)], ["method", method], ["params", params]])], knownBug: "bad-envelope-request" };
    }
    case "object-id":
      return { label: `request with an invalid id ${method}`, segments: [envelope(rng, [["jsonrpc", "2.0"], ["id", invalidId(rng)], ["method", method], ["params", params]])], knownBug: "bad-envelope-request" };
    case "bad-method":
      return { label: "request with a non-string method", segments: [envelope(rng, [["jsonrpc", "2.0"], ["id", randomId(rng)], ["method", rng.pick<unknown>([1, null, {}, [], true])], ["params", params]])] };
    case "response":
      return { label: "response to a request never sent", segments: [envelope(rng, [["jsonrpc", "2.0"], ["id", rng.chance(0.5) ? rng.int(10) : randomId(rng)], rng.chance(0.5) ? ["result", randomValue(rng)] : ["error", rng.chance(0.7) ? { code: rng.pick([-32603, -32601, 0, 1.5]), message: "x" } : randomValue(rng)]])] };
    case "both-result-error":
      return { label: "response with both result and error", segments: [envelope(rng, [["jsonrpc", "2.0"], ["id", rng.int(10)], ["result", {}], ["error", { code: 1, message: "x" }]])] };
    default: {
      const first = randomId(rng);
      return { label: "duplicate keys in one envelope", segments: [envelope(rng, [["jsonrpc", "2.0"], ["id", first], ["method", "session/list"], ["id", randomId(rng)], ["params", {}], ["method", method], ["params", params]])] };
    }
  }
}

function batch(rng: Prng, options: GenerateOptions): RpcInput {
  const items = Array.from({ length: rng.range(0, 4) }, () => new RawJson(validRequest(rng, options).segments.join("")));
  return { label: `batch of ${items.length}`, segments: [toJsonText(items)] };
}

function notJsonRpc(rng: Prng): RpcInput {
  const text = rng.pick(["1", '"x"', "null", "true", "{}", "{ }", '{"jsonrpc":"2.0"}', "[]", "[[]]", "{\"a\":", "{", "}", "{]", "nul", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}}", "\u0000", "{\"id\":1e999}"]);
  return { label: `not a JSON-RPC object: ${JSON.stringify(text).slice(0, 30)}`, segments: [text] };
}

function garbage(rng: Prng): RpcInput {
  const bytes = rng.bytes(rng.range(1, 64));
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) bytes[i] = 0x20;
  bytes[0] = rng.pick([0x7b, 0x5b]); // still looks like JSON to a framing detector
  return { label: "random bytes", segments: [bytes] };
}

/** Splices invalid UTF-8 (or a raw control byte) into a message's text at a random place. */
function withInvalidUtf8(rng: Prng, input: RpcInput): RpcInput {
  const text = input.segments.map((s) => (typeof s === "string" ? s : new TextDecoder().decode(s))).join("");
  const at = rng.int(text.length + 1);
  const bad = rng.pick([[0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xc3], [0x00], [0x0d]]);
  return { ...input, label: `${input.label} + invalid UTF-8 at ${at}`, segments: [text.slice(0, at), new Uint8Array(bad), text.slice(at)] };
}

function oversize(rng: Prng, options: GenerateOptions): RpcInput {
  const size = options.maxBodyBytes + rng.range(1, 1024);
  const head = `{"jsonrpc":"2.0","id":${rng.int(24)},"method":"session/prompt","params":{"pad":"`;
  return { label: `message over the limit (${size} bytes)`, segments: [head + "x".repeat(size - head.length - 3) + '"}}'] };
}

/**
 * True when the body, decoded as the agent decodes it, is request-shaped (a
 * string method and an id) without being a valid JSON-RPC 2.0 request: the
 * known bug class, whichever mutation produced it.
 */
function isBadEnvelopeRequest(input: RpcInput): boolean {
  const decoder = new TextDecoder();
  const text = input.segments.map((s) => (typeof s === "string" ? s : decoder.decode(s))).join("");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (typeof m.method !== "string" || !("id" in m)) return false;
  const validId = m.id === null || typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
  return m.jsonrpc !== "2.0" || !validId;
}

/** One JSON-RPC-level input. */
export function generateRpcInput(rng: Prng, options: GenerateOptions): RpcInput {
  for (;;) {
    const kind = rng.weighted<string>([
      [70, "valid"],
      [12, "invalid-envelope"],
      [4, "batch"],
      [4, "not-json-rpc"],
      [2, "garbage"],
      [0.02, "oversize"],
    ]);
    let input =
      kind === "valid"
        ? validRequest(rng, options)
        : kind === "invalid-envelope"
          ? invalidEnvelope(rng, options)
          : kind === "batch"
            ? batch(rng, options)
            : kind === "not-json-rpc"
              ? notJsonRpc(rng)
              : kind === "garbage"
                ? garbage(rng)
                : oversize(rng, options);
    if (kind !== "oversize" && rng.chance(0.04)) input = withInvalidUtf8(rng, input);
    if (kind !== "oversize" && isBadEnvelopeRequest(input)) input.knownBug = "bad-envelope-request";
    if (options.excludeKnown && input.knownBug) continue;
    return input;
  }
}

/** Share of inputs that are an extension method's request (from their own stream, `Prng(seed, index, 26)`). */
const EXTENSION_SHARE = 0.04;

/**
 * The extension request that replaces input `index` of a run, if this index
 * gets one: a valid envelope for `_session/steering` with hostile params,
 * sometimes a notification or with its params mutated.
 */
export function extensionInput(seed: number, index: number, options: GenerateOptions): RpcInput | undefined {
  const rng = new Prng(seed, index, 26);
  if (!rng.chance(EXTENSION_SHARE)) return undefined;
  const method = rng.pick(Object.keys(EXTENSION_TEMPLATES));
  const flags: { deep?: boolean } = {};
  const params = mutateParams(rng, EXTENSION_TEMPLATES[method]!(rng), options, flags);
  const notification = rng.chance(0.05);
  const fields: [string, unknown][] = [["jsonrpc", "2.0"], ...(notification ? [] : [["id", randomId(rng)] as [string, unknown]]), ["method", method], ["params", params]];
  return { label: `${notification ? "notification" : "request"} ${JSON.stringify(method)}`, segments: [envelope(rng, fields)], ...flags };
}

/** Share of inputs that are an expansion-heavy message (from their own stream, `Prng(seed, index, 27)`). */
const EXPANSION_SHARE = 0.02;
/** How many links an expansion-heavy message carries: around the distinct-link limit (64) and far past the budget. */
const LINK_COUNTS = [1, 2, 10, 64, 65, 400, 2400];

/**
 * The expansion-heavy message that replaces input `index` of a run, if this
 * index gets one (and no extension request took it): a `session/prompt` or
 * `_session/steering` naming the project's 2 MiB file (`big.txt`), its small
 * one, distinct missing files, or all of them, up to thousands of times —
 * each answered at once, the agent's memory bounded (the runner checks it).
 */
export function expansionInput(seed: number, index: number): RpcInput | undefined {
  const rng = new Prng(seed, index, 27);
  if (!rng.chance(EXPANSION_SHARE)) return undefined;
  const count = rng.pick(LINK_COUNTS);
  const target = rng.pick(["big", "small", "distinct", "mixed"]);
  const link = (i: number) => {
    const name = target === "big" ? "big.txt" : target === "small" ? "a.txt" : target === "distinct" ? `missing-${i}.txt` : rng.pick(["big.txt", "a.txt", `missing-${i}.txt`]);
    return { type: "resource_link", name, uri: `file://${cwd}/${name}` };
  };
  const prompt: unknown[] = [{ type: "text", text: "read these" }, ...Array.from({ length: count }, (_, i) => link(i))];
  if (rng.chance(0.2)) prompt.push({ type: "image", mimeType: "image/png", data: rng.pick(["iVBORw0KGgo=", "not base64!", "iVBORw0KGgo"]) });
  const method = rng.pick(["session/prompt", "_session/steering"]);
  const params = {
    sessionId: sid,
    prompt,
    ...(method === "_session/steering" && rng.chance(0.5) ? { _meta: { steering: { idleBehavior: "promptRequired" } } } : {}),
  };
  const text = JSON.stringify({ jsonrpc: "2.0", id: randomId(rng), method, params });
  return { label: `expansion ${JSON.stringify(method)}: ${count} links to ${target}`, segments: [text] };
}
