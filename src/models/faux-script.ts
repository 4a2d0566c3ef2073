/**
 * Scripted turns for the offline `faux` provider. A script is a JSON array
 * (from `ACP_EDGE_FAUX_SCRIPT=file.json`) or, inside the program, a list of
 * turns or functions that build a turn from the conversation so far.
 * @module
 */
import * as v from "valibot";
import { readTextFile } from "../runtime/files/fs.ts";
import type { ModelMessage } from "./types.ts";

/** One scripted model call. */
export interface FauxTurn {
  thinking?: string;
  text?: string;
  toolCalls?: { id?: string; name: string; input: Record<string, unknown> }[];
  stop?: "end" | "max_tokens" | "refusal";
  usage?: { input: number; output: number };
  /** Milliseconds to wait before each streamed chunk (for cancellation tests). */
  delayMs?: number;
  /** Fail this call with a provider error carrying this message. */
  error?: string;
}

const FauxTurnSchema: v.GenericSchema<unknown, FauxTurn> = v.object({
  thinking: v.optional(v.string()),
  text: v.optional(v.string()),
  toolCalls: v.optional(
    v.array(v.object({ id: v.optional(v.string()), name: v.string(), input: v.record(v.string(), v.unknown()) })),
  ),
  stop: v.optional(v.picklist(["end", "max_tokens", "refusal"])),
  usage: v.optional(v.object({ input: v.number(), output: v.number() })),
  /** Milliseconds to wait before each streamed chunk (for cancellation tests). */
  delayMs: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** Fail this call with a provider error carrying this message. */
  error: v.optional(v.string()),
});

/** A turn, or a function that writes one after looking at the conversation. */
export type FauxStep = FauxTurn | ((messages: readonly ModelMessage[]) => FauxTurn);

/** Loads and validates a script file. */
export async function loadFauxScript(path: string): Promise<FauxTurn[]> {
  let data: unknown;
  try {
    data = JSON.parse(await readTextFile(path));
  } catch (error) {
    throw new Error(`ACP_EDGE_FAUX_SCRIPT ${path}: ${(error as Error).message}`);
  }
  const result = v.safeParse(v.array(FauxTurnSchema), data);
  if (!result.success) {
    const issue = result.issues[0];
    throw new Error(`ACP_EDGE_FAUX_SCRIPT ${path}: ${v.getDotPath(issue) ?? ""} ${issue.message}`.trim());
  }
  return result.output;
}

/** Hands out the steps of a script one model call at a time. */
export class FauxScript {
  #steps: FauxStep[];
  constructor(steps: FauxStep[]) {
    this.#steps = [...steps];
  }
  get remaining(): number {
    return this.#steps.length;
  }
  next(messages: readonly ModelMessage[]): FauxTurn | undefined {
    const step = this.#steps.shift();
    if (step === undefined) return undefined;
    const turn = typeof step === "function" ? step(messages) : step;
    return turn.toolCalls ? { ...turn, toolCalls: turn.toolCalls.map((call) => ({ ...call, input: withIds(call.input, messages) as Record<string, unknown> })) } : turn;
  }
}

/** `{{id:N}}`: the Nth distinct `id: <value>` line of the tool results so far (a background command's id, which a script cannot know). */
const ID_REFERENCE = /\{\{id:(\d+)\}\}/g;

/** `value` with every `{{id:N}}` in its strings replaced; a reference to an id not seen yet stays as it is. */
function withIds(value: unknown, messages: readonly ModelMessage[]): unknown {
  if (typeof value === "string") {
    if (!value.includes("{{id:")) return value;
    const ids = idsSeen(messages);
    return value.replace(ID_REFERENCE, (whole, n: string) => ids[Number(n) - 1] ?? whole);
  }
  if (Array.isArray(value)) return value.map((item) => withIds(item, messages));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIds(v, messages)]));
  return value;
}

function idsSeen(messages: readonly ModelMessage[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "text") continue;
      for (const match of part.text.matchAll(/^id: (\S+)$/gm)) if (!ids.includes(match[1]!)) ids.push(match[1]!);
    }
  }
  return ids;
}
