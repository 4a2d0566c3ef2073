/**
 * Checking a key before it is stored: one small request (a few output
 * tokens) to the provider through the same client a session uses, and a
 * verdict a person can act on: the key was refused, the endpoint cannot be
 * reached, the model id is unknown there, or it worked.
 * @module
 */
import { createAiSdkModel } from "./ai-sdk.ts";
import { catalogInfo } from "./catalog.ts";
import { ModelError, type ProviderEndpoint } from "./types.ts";

/** Why a check failed. */
export type CheckFailure = "refused" | "unreachable" | "unknown_model" | "endpoint" | "failed";

/** The verdict; messages are free of the key. */
export type CheckResult = { ok: true; warning?: string } | { ok: false; reason: CheckFailure; message: string };

/** The model each built-in provider is checked with when none is named: cheap, and open to every account. */
export const CHECK_MODELS: Record<string, string> = {
  anthropic: "claude-haiku-4-5",
  openai: "gpt-4o-mini",
  google: "gemini-2.5-flash",
  bedrock: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
};

/** How long the check waits for the provider's first answer. */
const CHECK_TIMEOUT_MS = 30_000;

/** The provider's own words from a `ModelError` message (`provider: HTTP 401 — words`). */
function detail(error: ModelError): string {
  return error.message.replace(/^[^:]*:\s*/, "");
}

/** Whether `text` names `modelId` as a word of its own (`m` is not named by "model"). */
function namesModel(text: string, modelId: string): boolean {
  const haystack = text.toLowerCase();
  const needle = modelId.toLowerCase();
  const partOfId = /[a-z0-9_.:/@-]/;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1] ?? " ";
    const after = haystack[at + needle.length] ?? " ";
    if (!partOfId.test(before) && !partOfId.test(after)) return true;
  }
  return false;
}

/** Sorts a failed request into what the person logging in must fix. */
export function classifyFailure(error: unknown, endpoint: ProviderEndpoint, modelId: string): CheckResult {
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return { ok: false, reason: "unreachable", message: `no answer within ${CHECK_TIMEOUT_MS / 1000} s` };
  }
  if (!(error instanceof ModelError)) return { ok: false, reason: "failed", message: error instanceof Error ? error.message : String(error) };
  const status = error.status;
  const words = detail(error);
  if (status === undefined) return { ok: false, reason: "unreachable", message: words };
  if (status === 401 || status === 403) return { ok: false, reason: "refused", message: words };
  if (status === 429) return { ok: true, warning: `the provider accepted the key but is limiting requests (${words})` };
  // Every provider names the id in its refusal ("The model `x` does not exist", "model: x", "model \"x\" not found").
  if ((status === 404 || status === 400 || status === 422) && namesModel(words, modelId)) {
    return { ok: false, reason: "unknown_model", message: `model "${modelId}": ${words}` };
  }
  if (status === 404 || status === 405) return { ok: false, reason: "endpoint", message: words };
  return { ok: false, reason: "failed", message: words };
}

/** Sends one small request for `modelId` to `endpoint`; resolves with the verdict, never rejects. */
export async function checkCredential(endpoint: ProviderEndpoint, modelId: string): Promise<CheckResult> {
  const info = { ...catalogInfo(endpoint.provider, modelId), maxOutputTokens: 16, reasoning: false };
  const client = createAiSdkModel(info, { ...endpoint, maxRetries: 0 });
  try {
    const events = client.stream({
      system: "Answer with one word.",
      messages: [{ role: "user", content: [{ type: "text", text: "Say OK." }] }],
      tools: [],
      thinking: "off",
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    });
    // The first event proves the key works; leaving the loop cancels the rest of the answer.
    for await (const _event of events) break;
    return { ok: true };
  } catch (error) {
    return classifyFailure(error, endpoint, modelId);
  }
}
