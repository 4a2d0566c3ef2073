/**
 * The clouds' wire formats for the fake model server: Gemini's
 * `streamGenerateContent` SSE chunks, Bedrock ConverseStream's binary AWS
 * event stream (encoded with the codec the Bedrock provider decodes with),
 * and the checks a cloud makes before answering: a SigV4 signature
 * recomputed from the request, an OAuth token exchange that verifies the
 * service account's signed assertion. Runs on Bun, Node and Deno.
 * @module
 */
import { createHash, createHmac, createVerify, type KeyObject } from "node:crypto";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { RecordedRequest, ScriptedTurn } from "./fake-model-server.ts";

type Frame = { event?: string; data: unknown };

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Gemini's stream: one candidate per chunk, thoughts as `thought: true` parts, calls as whole `functionCall` parts, usage on the last chunk. */
export function geminiFrames(turn: ScriptedTurn): Frame[] {
  const size = turn.chunkSize ?? 5;
  const usage = turn.usage ?? { input: 10, output: 5 };
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}): Frame => ({ data: { candidates: [{ content: { role: "model", parts }, index: 0, ...extra }] } });
  const frames: Frame[] = [];
  for (const piece of chunks(turn.thinking ?? "", size)) frames.push(chunk([{ text: piece, thought: true }]));
  for (const piece of chunks(turn.text ?? "", size)) frames.push(chunk([{ text: piece }]));
  for (const call of turn.toolCalls ?? []) frames.push(chunk([{ functionCall: { name: call.name, args: call.input } }]));
  const finishReason = turn.stop === "max_tokens" ? "MAX_TOKENS" : turn.stop === "refusal" ? "SAFETY" : "STOP";
  const cacheRead = usage.cacheRead ?? 0;
  frames.push({
    data: {
      candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason, index: 0 }],
      usageMetadata: {
        promptTokenCount: usage.input + cacheRead,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + cacheRead + usage.output,
        ...(cacheRead ? { cachedContentTokenCount: cacheRead } : {}),
      },
    },
  });
  return frames;
}

/** Bedrock's error body: `{message}`, its type in a header. */
export function bedrockError(status: number, message: string): { body: unknown; headers: Record<string, string> } {
  const type = status === 403 ? "AccessDeniedException" : status === 429 ? "ThrottlingException" : status >= 500 ? "InternalServerException" : "ValidationException";
  return { body: { message }, headers: { "x-amzn-errortype": type } };
}

/** Gemini's and Vertex's error body. */
export function googleError(status: number, message: string): unknown {
  const name = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED" }[status] ?? "INTERNAL";
  return { error: { code: status, message, status: name } };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One ConverseStream event as AWS frames it: prelude, headers, JSON payload, CRCs. */
function converseEvent(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** The whole ConverseStream reply for a turn, one binary frame per event. */
export function converseFrames(turn: ScriptedTurn, n: number): Uint8Array[] {
  const size = turn.chunkSize ?? 5;
  const usage = turn.usage ?? { input: 10, output: 5 };
  const frames: Uint8Array[] = [converseEvent("messageStart", { role: "assistant" })];
  let index = 0;
  if (turn.thinking !== undefined) {
    for (const text of chunks(turn.thinking, size)) frames.push(converseEvent("contentBlockDelta", { contentBlockIndex: index, delta: { reasoningContent: { text } } }));
    frames.push(converseEvent("contentBlockDelta", { contentBlockIndex: index, delta: { reasoningContent: { signature: `fake-signature-${n}` } } }));
    frames.push(converseEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  if (turn.text !== undefined) {
    for (const text of chunks(turn.text, size)) frames.push(converseEvent("contentBlockDelta", { contentBlockIndex: index, delta: { text } }));
    frames.push(converseEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    frames.push(converseEvent("contentBlockStart", { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id ?? `tooluse_fake_${n}_${i}`, name: call.name } } }));
    for (const input of chunks(call.rawInput ?? JSON.stringify(call.input ?? {}), size)) {
      frames.push(converseEvent("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input } } }));
    }
    frames.push(converseEvent("contentBlockStop", { contentBlockIndex: index++ }));
  }
  const stopReason = turn.stop === "max_tokens" ? "max_tokens" : turn.stop === "refusal" ? "content_filtered" : turn.toolCalls?.length ? "tool_use" : "end_turn";
  frames.push(converseEvent("messageStop", { stopReason }));
  frames.push(
    converseEvent("metadata", {
      usage: {
        inputTokens: usage.input,
        outputTokens: usage.output,
        totalTokens: usage.input + usage.output + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0),
        ...(usage.cacheRead !== undefined ? { cacheReadInputTokens: usage.cacheRead } : {}),
        ...(usage.cacheWrite !== undefined ? { cacheWriteInputTokens: usage.cacheWrite } : {}),
      },
      metrics: { latencyMs: 1 },
    }),
  );
  return frames;
}

// ---------- checks ----------

/** RFC 3986 leaves these unreserved; `encodeURIComponent` does not escape them, AWS does. */
const rfc3986 = (text: string) => text.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/**
 * Recomputes the request's SigV4 signature (AWS's documented algorithm,
 * not the client's code) with the secret the test gave the agent; a reason
 * when it does not match, as Bedrock would refuse it.
 */
export function sigV4Problem(request: RecordedRequest, rawBody: string, rawPath: string, credentials: { accessKeyId: string; secretAccessKey: string; region: string }): string | undefined {
  const authorization = request.headers.authorization ?? "";
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return "Authorization header is not AWS4-HMAC-SHA256";
  const [, keyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  if (keyId !== credentials.accessKeyId) return "The security token included in the request is invalid.";
  if (region !== credentials.region || service !== "bedrock") return `Credential should be scoped to a valid region and service (got ${region}/${service}).`;
  const amzDate = request.headers["x-amz-date"] ?? "";
  if (!amzDate.startsWith(date!)) return "Date in Credential scope does not match YYYYMMDD from X-Amz-Date.";
  const names = signedHeaders!.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) return "host and x-amz-date must be signed";
  const [path, query = ""] = rawPath.split("?");
  const canonicalPath = rfc3986(encodeURIComponent(path!.replace(/\/+/g, "/")).replace(/%2F/g, "/"));
  const canonicalQuery = [...new URLSearchParams(query)]
    .map(([k, v]) => [rfc3986(encodeURIComponent(k)), rfc3986(encodeURIComponent(v))])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map((pair) => pair.join("="))
    .join("&");
  const canonicalHeaders = names.map((name) => `${name}:${(request.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const canonical = [request.method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders, sha256(rawBody)].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, date!), region!), service!), "aws4_request");
  const expected = createHmac("sha256", key).update(toSign).digest("hex");
  return expected === signature ? undefined : "The request signature we calculated does not match the signature you provided.";
}

/** An OAuth token endpoint for service accounts: checks the RS256 assertion against the account's public key and its audience. */
export function tokenExchangeProblem(body: unknown, publicKey: KeyObject, audience: string): string | undefined {
  const form = new URLSearchParams(typeof body === "string" ? body : "");
  if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return "unsupported_grant_type";
  const [header, claims, signature] = (form.get("assertion") ?? "").split(".");
  if (!header || !claims || !signature) return "invalid_grant: malformed assertion";
  const verifier = createVerify("RSA-SHA256");
  verifier.update(`${header}.${claims}`);
  if (!verifier.verify(publicKey, Buffer.from(signature, "base64url"))) return "invalid_grant: Invalid JWT Signature.";
  const decoded = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { aud?: string; scope?: string; iss?: string };
  if (decoded.aud !== audience) return `invalid_grant: Invalid JWT: audience ${decoded.aud}`;
  if (!decoded.scope?.includes("cloud-platform")) return "invalid_scope";
  return undefined;
}
