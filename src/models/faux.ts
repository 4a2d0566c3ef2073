/**
 * The offline `faux` provider: `faux/echo` repeats the last user message,
 * any faux model plays a script when one is given. It streams like a real
 * provider (small deltas, optional delays, abortable) so the whole agent
 * stack can be exercised without a network.
 * @module
 */
import { FauxScript, type FauxTurn } from "./faux-script.ts";
import { ModelError, type ModelClient, type ModelEvent, type ModelInfo, type ModelMessage, type ModelRequest, type Usage } from "./types.ts";

const CHUNK = 4;

/** A faux model that plays `script` when given, and echoes otherwise. */
export function createFauxModel(info: ModelInfo, script?: FauxScript): ModelClient {
  let calls = 0;
  return {
    info,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      calls += 1;
      const turn = script ? script.next(request.messages) : echoTurn(request.messages);
      if (!turn) throw new ModelError("faux: the script has no turn left for this model call");
      yield* playTurn(turn, request, `faux-${calls}`);
    },
  };
}

function echoTurn(messages: readonly ModelMessage[]): FauxTurn {
  const last = [...messages].reverse().find((m) => m.role === "user");
  const text = last?.role === "user" ? last.content.map((p) => (p.type === "text" ? p.text : `[image ${p.mimeType}]`)).join("\n") : "";
  return { text: `echo: ${text}` };
}

async function* playTurn(turn: FauxTurn, request: ModelRequest, callId: string): AsyncIterable<ModelEvent> {
  const pause = () => wait(turn.delayMs ?? 0, request.signal);
  if (turn.error) {
    await pause();
    throw new ModelError(`faux: ${turn.error}`, 500);
  }
  if (turn.thinking) {
    for (const piece of chunks(turn.thinking)) {
      await pause();
      yield { type: "thinking", block: `${callId}-thinking`, text: piece };
    }
  }
  if (turn.text) {
    for (const piece of chunks(turn.text)) {
      await pause();
      yield { type: "text", block: `${callId}-text`, text: piece };
    }
  }
  const toolCalls = turn.toolCalls ?? [];
  for (const [index, call] of toolCalls.entries()) {
    await pause();
    yield { type: "tool_call", id: call.id ?? `${callId}-call-${index + 1}`, name: call.name, input: call.input };
  }
  await pause();
  const cause = turn.stop === "max_tokens" ? "length" : turn.stop === "refusal" ? "refusal" : toolCalls.length > 0 ? "tool_calls" : "stop";
  yield { type: "finish", cause, usage: turn.usage ? { ...turn.usage, cacheRead: 0, cacheWrite: 0 } : estimateUsage(request, turn) };
}

/** About four characters per token, like most tokenizers on English text. */
function estimateUsage(request: ModelRequest, turn: FauxTurn): Usage {
  const sent = request.system.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length;
  const received = (turn.thinking?.length ?? 0) + (turn.text?.length ?? 0) + JSON.stringify(turn.toolCalls ?? []).length;
  return { input: Math.ceil(sent / 4), output: Math.ceil(received / 4), cacheRead: 0, cacheWrite: 0 };
}

function* chunks(text: string): Iterable<string> {
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i += CHUNK) yield chars.slice(i, i + CHUNK).join("");
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
