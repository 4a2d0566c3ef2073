/**
 * A rehearsal of one streamed reply per wire protocol, served by a `fetch`
 * that never touches the network. Running it once through a provider package
 * builds what the provider only builds on its first reply
 * (response schemas, stream parsers, the first compiled paths of our own
 * event mapping), so a user's first prompt does not pay for it.
 * @module
 */
import type { ProviderApi } from "./types.ts";

type Frame = { event?: string; data: unknown };

function anthropicFrames(): Frame[] {
  const ev = (type: string, body: Record<string, unknown> = {}): Frame => ({ event: type, data: { type, ...body } });
  return [
    ev("message_start", {
      message: { id: "msg_rehearsal", type: "message", role: "assistant", model: "rehearsal", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
    }),
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "ok" } }),
    ev("content_block_stop", { index: 0 }),
    ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }),
    ev("message_stop"),
  ];
}

function chatFrames(): Frame[] {
  const base = { id: "chatcmpl-rehearsal", object: "chat.completion.chunk", created: 0, model: "rehearsal" };
  return [
    { data: { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] } },
    { data: { ...base, choices: [{ index: 0, delta: { content: "ok" }, finish_reason: null }] } },
    { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } },
    { data: { ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } } },
    { data: "[DONE]" },
  ];
}

function responsesFrames(): Frame[] {
  let seq = 0;
  const ev = (type: string, body: Record<string, unknown>): Frame => ({ event: type, data: { type, sequence_number: seq++, ...body } });
  const shell = { id: "resp_rehearsal", object: "response", created_at: 0, model: "rehearsal" };
  const id = "msg_rehearsal";
  const text = { type: "output_text", text: "ok", annotations: [] };
  const item = { id, type: "message", status: "completed", role: "assistant", content: [text] };
  return [
    ev("response.created", { response: { ...shell, status: "in_progress", output: [], usage: null } }),
    ev("response.output_item.added", { output_index: 0, item: { id, type: "message", status: "in_progress", role: "assistant", content: [] } }),
    ev("response.content_part.added", { item_id: id, output_index: 0, content_index: 0, part: { ...text, text: "" } }),
    ev("response.output_text.delta", { item_id: id, output_index: 0, content_index: 0, delta: "ok", logprobs: [] }),
    ev("response.output_text.done", { item_id: id, output_index: 0, content_index: 0, text: "ok", logprobs: [] }),
    ev("response.content_part.done", { item_id: id, output_index: 0, content_index: 0, part: text }),
    ev("response.output_item.done", { output_index: 0, item }),
    ev("response.completed", {
      response: {
        ...shell,
        status: "completed",
        incomplete_details: null,
        output: [item],
        usage: { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 },
      },
    }),
  ];
}

const FRAMES: Partial<Record<ProviderApi, () => Frame[]>> = { anthropic: anthropicFrames, openai: responsesFrames, "openai-compatible": chatFrames };

/** The clouds have no rehearsal: their wire formats depend on the model, and their credentials on the machine. */
export function hasRehearsal(api: ProviderApi): boolean {
  return FRAMES[api] !== undefined;
}

/** The base URL rehearsal models are given; `.invalid` can never resolve, should anything bypass the fetch below. */
export const REHEARSAL_BASE_URL = "https://rehearsal.invalid/v1";

/** A later macrotask: what arrived meanwhile (a client's request) is read before the rehearsal goes on. */
export const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A `fetch` that answers every request with one short streamed reply in `api`'s wire format, one
 * frame per macrotask, ending with the request's abort reason once it is aborted (only for the
 * APIs `hasRehearsal` names).
 */
export function rehearsalFetch(api: ProviderApi): typeof fetch {
  const build = FRAMES[api];
  if (!build) throw new Error(`no rehearsal for ${api}`);
  const frames = build().map((f) => `${f.event ? `event: ${f.event}\n` : ""}data: ${typeof f.data === "string" ? f.data : JSON.stringify(f.data)}\n\n`);
  return (async (_input: unknown, init?: RequestInit) => {
    const signal = init?.signal ?? undefined;
    // Drain the request body like a server would; the SDK may have serialised a stream.
    if (init?.body instanceof ReadableStream) await new Response(init.body).arrayBuffer();
    await nextTask();
    signal?.throwIfAborted();
    const encoder = new TextEncoder();
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await nextTask();
        if (signal?.aborted) return controller.error(signal.reason);
        if (next < frames.length) controller.enqueue(encoder.encode(frames[next++]!));
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  }) as typeof fetch;
}
