/**
 * One model call: stream the reply, forward text and thinking as they
 * arrive, and assemble the assistant message. Blocks with the same id are
 * one part; provider data for a block is merged as it comes.
 * @module
 */
import type { AssistantMessage, FinishCause, ModelClient, ModelRequest, ServerToolPart, ThinkingPart, ToolCallPart, Usage } from "../models/types.ts";
import type { EventSink } from "./events.ts";
import type { ServerToolView } from "./server-tool-view.ts";
import { newMessageId } from "./ids.ts";
import { StreamRedactor } from "../runtime/secrets.ts";

export interface ModelCallResult {
  message: AssistantMessage;
  toolCalls: ToolCallPart[];
  cause: FinishCause;
  usage?: Usage;
  /** The stream stopped early (abort or error); `message` holds what arrived. */
  error?: unknown;
}

export async function callModel(model: ModelClient, request: ModelRequest, emit: EventSink): Promise<ModelCallResult> {
  const message: AssistantMessage = { role: "assistant", content: [], model: `${model.info.provider}/${model.info.id}` };
  const blocks = new Map<string, AssistantMessage["content"][number]>();
  const toolCalls: ToolCallPart[] = [];
  let textId: string | undefined;
  let thoughtId: string | undefined;
  let cause: FinishCause = "other";
  let usage: Usage | undefined;

  const part = <T extends AssistantMessage["content"][number]>(key: string, make: () => T): T => {
    let existing = blocks.get(key) as T | undefined;
    if (!existing) {
      existing = make();
      blocks.set(key, existing);
      message.content.push(existing);
    }
    return existing;
  };

  // What streams to the editor is redacted as one stream per kind: a key split across two deltas is still hidden.
  const shownText = new StreamRedactor();
  const shownThinking = new StreamRedactor();
  const flushShown = async () => {
    const text = shownText.end();
    if (text && textId) await emit({ type: "text_delta", messageId: textId, text });
    const thought = shownThinking.end();
    if (thought && thoughtId) await emit({ type: "thinking_delta", messageId: thoughtId, text: thought });
  };

  // The provider's own tools (its search) are shown as tool calls of their own while the answer streams;
  // loaded with the first such call, so an answer without one loads nothing for them.
  let view: ServerToolView | undefined;
  const serverTools = async () => (view ??= new (await import("./server-tool-view.ts")).ServerToolView(emit));

  try {
    for await (const event of model.stream(request)) {
      switch (event.type) {
        case "text": {
          if (!event.text) break;
          const text = part(`text:${event.block}`, () => ({ type: "text" as const, text: "" }));
          text.text += event.text;
          textId ??= newMessageId();
          const shown = shownText.push(event.text);
          if (shown) await emit({ type: "text_delta", messageId: textId, text: shown });
          break;
        }
        case "thinking": {
          const thinking: ThinkingPart = part(`thinking:${event.block}`, () => ({ type: "thinking" as const, text: "" }));
          thinking.text += event.text;
          if (event.providerData) thinking.providerData = mergeProviderData(thinking.providerData, event.providerData);
          if (event.text) {
            thoughtId ??= newMessageId();
            const shown = shownThinking.push(event.text);
            if (shown) await emit({ type: "thinking_delta", messageId: thoughtId, text: shown });
          }
          break;
        }
        case "tool_call": {
          const call: ToolCallPart = { type: "tool_call", id: event.id, name: event.name, input: event.input };
          if (event.providerData) call.providerData = event.providerData;
          message.content.push(call);
          toolCalls.push(call);
          break;
        }
        case "server_tool_call": {
          const call: ServerToolPart = { type: "server_tool", id: event.id, name: event.name, input: event.input };
          if (event.providerData) call.providerData = event.providerData;
          blocks.set(`server:${event.id}`, call);
          message.content.push(call);
          await (await serverTools()).started(call);
          break;
        }
        case "server_tool_result": {
          const call = blocks.get(`server:${event.id}`) as ServerToolPart | undefined;
          // A result for no call the stream announced has nothing to go back with: the provider would refuse it.
          if (!call) break;
          call.output = event.output;
          if (event.isError) call.isError = true;
          if (event.providerData) call.providerData = mergeProviderData(call.providerData, event.providerData);
          await (await serverTools()).finished(call);
          break;
        }
        case "citation":
          (message.citations ??= []).push(event.citation);
          break;
        case "finish":
          cause = event.cause;
          usage = event.usage;
          break;
      }
    }
  } catch (error) {
    // The stream already failed; a failing editor must not replace that error.
    await flushShown().catch(() => undefined);
    await view?.abandon().catch(() => undefined);
    return { message: withoutEmptyParts(message), toolCalls, cause, ...(usage ? { usage } : {}), error };
  }
  await flushShown();
  // The answer's sources follow it, as they do in a replay (the model never sees this list: it is not in the message text).
  const sources = message.citations ? (await import("../models/citations.ts")).sourcesText(message.citations) : "";
  if (sources) await emit({ type: "text_delta", messageId: (textId ??= newMessageId()), text: sources });
  return { message: withoutEmptyParts(message), toolCalls, cause, ...(usage ? { usage } : {}) };
}

function mergeProviderData(a: ThinkingPart["providerData"], b: NonNullable<ThinkingPart["providerData"]>) {
  const out: NonNullable<ThinkingPart["providerData"]> = { ...(a ?? {}) };
  for (const [provider, data] of Object.entries(b)) out[provider] = { ...(out[provider] ?? {}), ...data };
  return out;
}

/** Thinking with no text and no provider data carries nothing worth keeping. */
function withoutEmptyParts(message: AssistantMessage): AssistantMessage {
  message.content = message.content.filter(
    (p) => !(p.type === "text" && p.text === "") && !(p.type === "thinking" && p.text === "" && !p.providerData),
  );
  return message;
}
