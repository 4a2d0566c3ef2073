/**
 * Keeping a long conversation inside the context window: when the next
 * request would not fit (window minus a reserve for the reply), older
 * messages are summarised by the model and replaced by that summary. Recent
 * messages stay verbatim. The full history stays in the store.
 * @module
 */
import type { ModelClient, ModelMessage, UserMessage } from "../models/types.ts";
import type { EventSink } from "./events.ts";
import { newMessageId } from "./ids.ts";

export const SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:";

export interface CompactionBudget {
  /** Tokens kept free for the model's reply. */
  reserveTokens: number;
  /** Roughly how much recent conversation stays verbatim. */
  keepRecentTokens: number;
}

/** Defaults scaled to the window, so small local models compact sensibly too. */
export function compactionBudget(contextWindow: number, overrides: Partial<CompactionBudget> = {}): CompactionBudget {
  return {
    reserveTokens: overrides.reserveTokens ?? Math.min(16_384, Math.floor(contextWindow * 0.25)),
    keepRecentTokens: overrides.keepRecentTokens ?? Math.min(20_000, Math.floor(contextWindow * 0.3)),
  };
}

/**
 * Estimates of messages already measured. A message does not change once it
 * is in the history, and the history is estimated before every model request
 * of a turn: each message is measured once, not once per step.
 */
const measured = new WeakMap<ModelMessage, number>();

/** About four characters per token; an image counts as ~1,200 tokens. */
export function estimateTokens(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + estimateTokens(item), 0);
  const message = value as ModelMessage;
  if (message && typeof message === "object" && "role" in message) {
    let tokens = measured.get(message);
    if (tokens === undefined) measured.set(message, (tokens = messageTokens(message)));
    return tokens;
  }
  return Math.ceil(JSON.stringify(value ?? "").length / 4);
}

function messageTokens(message: ModelMessage): number {
  let tokens = 4;
  for (const part of message.content as Array<{ type: string; text?: string; input?: unknown; output?: unknown }>) {
    if (part.type === "image") tokens += 1200;
    else if (part.type === "tool_call") tokens += Math.ceil(JSON.stringify(part.input ?? {}).length / 4) + 10;
    // The provider reads a search's results (encrypted for it) as pages of text: their JSON length is a floor.
    else if (part.type === "server_tool") tokens += Math.ceil(JSON.stringify([part.input ?? {}, part.output ?? null]).length / 4) + 10;
    else tokens += Math.ceil((part.text ?? "").length / 4);
  }
  return tokens;
}

/**
 * Where the kept part starts: the latest user prompt such that what follows
 * fits `keepRecentTokens`, so a tool call is never separated from its
 * result. Undefined when there is nothing worth summarising.
 */
export function chooseCut(history: readonly ModelMessage[], keepRecentTokens: number): number | undefined {
  let kept = 0;
  let cut: number | undefined;
  for (let i = history.length - 1; i > 0; i -= 1) {
    kept += estimateTokens(history[i]);
    if (history[i]!.role === "user" && !isSummary(history[i]!)) {
      cut = i;
      if (kept >= keepRecentTokens) break;
    }
  }
  return cut;
}

export function isSummary(message: ModelMessage): boolean {
  return message.role === "user" && message.content[0]?.type === "text" && message.content[0].text.startsWith(SUMMARY_PREFIX);
}

export function summaryMessage(summary: string): UserMessage {
  return { role: "user", content: [{ type: "text", text: `${SUMMARY_PREFIX}\n\n<summary>\n${summary.trim()}\n</summary>` }] };
}

const SUMMARY_SYSTEM =
  "You summarise a coding session between a user and a coding agent so the agent can continue it without the original messages. " +
  "Write a concise, structured summary: the user's goals and constraints; decisions made; files read or changed (with paths) and what changed; " +
  "commands run and their outcomes; open questions; and the exact next steps. Keep identifiers, paths and error messages verbatim. " +
  "Do not invent anything.";

/** Flattens messages into a transcript the summariser reads as plain text. */
function transcript(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "user") lines.push(`USER: ${m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n")}`);
    else if (m.role === "assistant") {
      for (const p of m.content) {
        if (p.type === "text") lines.push(`ASSISTANT: ${p.text}`);
        else if (p.type === "tool_call") lines.push(`ASSISTANT CALLED ${p.name}: ${JSON.stringify(p.input)}`);
        else if (p.type === "server_tool") lines.push(`ASSISTANT SEARCHED THE WEB: ${JSON.stringify(p.input)}`);
      }
    } else {
      const text = m.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
      lines.push(`${m.isError ? "TOOL ERROR" : "TOOL RESULT"} (${m.toolName}): ${text.length > 4000 ? `${text.slice(0, 4000)}…` : text}`);
    }
  }
  return lines.join("\n\n");
}

export interface CompactionOutcome {
  summary: string;
  /** How many messages at the end of the history were kept verbatim (after the summary). */
  keptMessages: number;
  tokensBefore: number;
}

/**
 * Summarises everything before the cut and replaces it in `history` (in
 * place) with one summary message. Emits `compaction` events; throws on a
 * provider failure (the history is then unchanged).
 */
export async function compactHistory(options: {
  history: ModelMessage[];
  model: ModelClient;
  budget: CompactionBudget;
  instructions?: string;
  signal: AbortSignal;
  emit: EventSink;
  reason: "threshold" | "manual";
  /** The conversation's cache key (its summary request is cached like its turns). */
  cacheKey?: string;
}): Promise<CompactionOutcome | undefined> {
  const { history } = options;
  const cut = chooseCut(history, options.reason === "manual" ? 0 : options.budget.keepRecentTokens);
  if (cut === undefined) return undefined;
  const compactionId = newMessageId().replace("msg_", "cmp_");
  const tokensBefore = estimateTokens(history);
  await options.emit({ type: "compaction", phase: "started", compactionId, reason: options.reason });
  let summary = "";
  try {
    const request = [
      "Summarise this conversation so far.",
      options.instructions ? `Additional instructions from the user: ${options.instructions}` : "",
      "<conversation>",
      transcript(history.slice(0, cut)),
      "</conversation>",
    ].filter(Boolean);
    for await (const event of options.model.stream({
      system: SUMMARY_SYSTEM,
      messages: [{ role: "user", content: [{ type: "text", text: request.join("\n\n") }] }],
      tools: [],
      thinking: "off",
      signal: options.signal,
      ...(options.cacheKey ? { cacheKey: options.cacheKey } : {}),
      once: true,
    })) {
      if (event.type === "text" && event.text) {
        summary += event.text;
        await options.emit({ type: "compaction_delta", compactionId, text: event.text });
      }
    }
    if (!summary.trim()) throw new Error("the model returned an empty summary");
  } catch (error) {
    await options.emit({ type: "compaction", phase: "failed", compactionId, reason: options.reason, error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  const keptMessages = history.length - cut;
  history.splice(0, cut, summaryMessage(summary));
  const outcome = { summary, keptMessages, tokensBefore };
  await options.emit({ type: "compaction", phase: "completed", compactionId, reason: options.reason, ...outcome });
  return outcome;
}
