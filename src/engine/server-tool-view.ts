/**
 * Shows the provider's own tool calls (its web search) to the client as tool calls of kind `search`: the
 * query as the title, the results (titles and links) as the content. The engine runs nothing for them and
 * asks nobody: the provider ran them inside its answer. A call is announced when its query is known, which
 * for some providers (OpenAI) is only with its result.
 * @module
 */
import type { ServerToolPart } from "../models/types.ts";
import type { EventSink } from "./events.ts";

export class ServerToolView {
  readonly #announced = new Set<string>();
  /** Announced calls that have not finished. */
  readonly #open = new Set<string>();

  constructor(private readonly emit: EventSink) {}

  /** The provider started `call`: announced now when its input names the query. */
  async started(call: ServerToolPart): Promise<void> {
    if (summariseSearch(call.input, undefined).query !== undefined) await this.#announce(call);
  }

  /** `call` has its output: announced if it was not, then completed (or failed) with what it found. */
  async finished(call: ServerToolPart): Promise<void> {
    await this.#announce(call);
    this.#open.delete(call.id);
    const summary = summariseSearch(call.input, call.output);
    const text = call.isError
      ? `The search failed${errorCode(call.output) ? `: ${errorCode(call.output)}` : ""}.`
      : summary.results.length === 0
        ? "No results."
        : summary.results.map((r, i) => `${i + 1}. ${r.title ?? r.url}\n   ${r.url}`).join("\n");
    await this.emit({ type: "tool_call_update", toolCallId: call.id, status: call.isError ? "failed" : "completed", content: [{ type: "text", text }] });
  }

  /** The answer stopped (cancel, error): calls still open end as failed, so no client shows them running. */
  async abandon(): Promise<void> {
    for (const id of this.#open) {
      await this.emit({ type: "tool_call_update", toolCallId: id, status: "failed", content: [{ type: "text", text: "The search did not finish: the answer stopped." }] });
    }
    this.#open.clear();
  }

  async #announce(call: ServerToolPart): Promise<void> {
    if (this.#announced.has(call.id)) return;
    this.#announced.add(call.id);
    this.#open.add(call.id);
    const summary = summariseSearch(call.input, call.output);
    await this.emit({
      type: "tool_call",
      toolCallId: call.id,
      toolName: call.name,
      kind: "search",
      title: summary.query ?? "Web search",
      locations: [],
      input: summary.query !== undefined ? { query: summary.query } : call.input,
    });
  }
}

/** The provider's error code (Anthropic's `errorCode`, e.g. `max_uses_exceeded`), when it gave one. */
function errorCode(output: unknown): string | undefined {
  if (output === null || typeof output !== "object") return undefined;
  const code = (output as { errorCode?: unknown }).errorCode;
  return typeof code === "string" ? code.slice(0, 100) : undefined;
}

/** What a provider's search looked for and found, read from its call and output for the user (never for the model). */
export interface SearchSummary {
  query?: string;
  results: Array<{ title?: string; url: string }>;
}

/** Shown results are bounded: a provider may return many, and the user needs the first few to follow the answer. */
const MAX_SHOWN_RESULTS = 20;
const MAX_SHOWN_CHARS = 500;

/** Reads Anthropic's result list (`[{url, title, …}]`) or OpenAI's `{action: {query}, sources}`; anything else yields what it can. */
export function summariseSearch(input: unknown, output: unknown): SearchSummary {
  const summary: SearchSummary = { results: [] };
  const query = field(input, "query") ?? field(field(output, "action"), "query");
  if (typeof query === "string" && query) summary.query = query;
  const list = Array.isArray(output) ? output : field(output, "sources");
  if (Array.isArray(list)) {
    for (const item of list) {
      const url = field(item, "url");
      if (typeof url !== "string" || !url) continue;
      const title = field(item, "title");
      // Shown, never sent back: a provider's long title or link is cut for the editor only.
      summary.results.push({ url: url.slice(0, MAX_SHOWN_CHARS), ...(typeof title === "string" && title ? { title: title.slice(0, MAX_SHOWN_CHARS) } : {}) });
      if (summary.results.length >= MAX_SHOWN_RESULTS) break;
    }
  }
  return summary;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}
