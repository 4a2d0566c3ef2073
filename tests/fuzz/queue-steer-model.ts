/**
 * The model of the queueing and steering fuzzer: the fake model server, where
 * every reply is held until the fuzzer releases it, and what it answers is
 * read from the request. The last user message's first word is its tag
 * (`p7`, `s3`); `[ls]` asks for an `ls` and a `find` in one step, `[write]` for a write of
 * `<tag>.txt` (a permission request in `ask` mode), `[stop]` ends with
 * `max_tokens`; after tool results it answers in text; a compaction's
 * summary request gets a summary.
 */
import type { RecordedRequest, ScriptedTurn } from "../helpers/fake-model-server.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { isSummaryRequest } from "../helpers/queue-steer.ts";

/** A reply the server holds. */
export interface HeldReply {
  request: RecordedRequest;
  release(): void;
}

/** Text of the last message of a chat request, and its role. */
function lastMessage(request: RecordedRequest): { role: string; text: string } {
  const last = (request.body?.messages ?? []).at(-1) as { role?: string; content?: unknown } | undefined;
  const content = last?.content;
  const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "";
  return { role: last?.role ?? "", text };
}

/** What the model answers to `request`. */
function answer(request: RecordedRequest): ScriptedTurn {
  if (isSummaryRequest(request)) return { text: "SUMMARY of the conversation so far" };
  const { role, text } = lastMessage(request);
  if (role === "tool") return { text: "after tools" };
  const tag = text.split(/\s/)[0] ?? "";
  // Two calls in one step: a steered message must not land between their results.
  if (text.includes("[ls]")) return { toolCalls: [{ name: "ls", input: { path: "." } }, { name: "find", input: { pattern: "*.txt" } }] };
  if (text.includes("[write]")) return { toolCalls: [{ name: "write", input: { path: `${tag}.txt`, content: tag } }] };
  if (text.includes("[stop]")) return { text: `cut ${tag}`, stop: "max_tokens" };
  return { text: `ack ${tag}` };
}

/** The fake model server with held replies. */
export class HeldModel {
  readonly server: FakeModelServer;
  readonly held: HeldReply[] = [];
  #onArrival: () => void;

  private constructor(server: FakeModelServer, onArrival: () => void) {
    this.server = server;
    this.#onArrival = onArrival;
  }

  /** Starts the server; `onArrival` hears of every request. */
  static async start(onArrival: () => void): Promise<HeldModel> {
    let model: HeldModel | undefined;
    const server = await startFakeModelServer([], {
      reply: (request) => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        model!.held.push({ request, release });
        model!.#onArrival();
        return { ...answer(request), gate };
      },
    });
    model = new HeldModel(server, onArrival);
    return model;
  }

  /** Lets the reply at `index` (oldest first) go; false when none is held. */
  release(index = 0): boolean {
    const [reply] = this.held.splice(index, 1);
    reply?.release();
    return reply !== undefined;
  }

  /** Lets every held reply go. */
  releaseAll(): void {
    for (const reply of this.held.splice(0)) reply.release();
  }

  /** The requests that were not a compaction's summary. */
  mainRequests(): RecordedRequest[] {
    return this.server.requests.filter((r) => !isSummaryRequest(r));
  }

  close(): Promise<void> {
    this.releaseAll();
    return this.server.close();
  }
}
