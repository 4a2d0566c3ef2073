/**
 * A page turned into Markdown off the event loop, for the `fetch` tool:
 * the conversion runs on a worker thread of its own (html-worker.ts), so
 * whatever a page holds, other sessions, `session/cancel` and the server's
 * health checks are answered meanwhile. The worker stops itself after
 * CONVERT_BUDGET_MS of work with what it converted by then; a worker that
 * does not answer within HARD_LIMIT_MS is ended and the result says so.
 * Cancelling the turn ends the worker at once.
 * @module
 */
import { deadlineInBackground } from "../../runtime/timers.ts";
import { startWorkerThread } from "../../runtime/worker/worker-thread.ts";
import type { ConvertDone, ConvertRequest, EntitiesAnswer, EntitiesQuestion } from "./conversion-messages.ts";
import type { PageMarkdown } from "./html-to-markdown.ts";
import { ToolError } from "../types.ts";

/** Work a page may take to convert; what was converted by then is returned, marked as stopped. */
export const CONVERT_BUDGET_MS = 5_000;
/** Time after which a worker that has not answered (starting included) is ended. */
const HARD_LIMIT_MS = CONVERT_BUDGET_MS + 10_000;

/** The worker's script as bundled by the build (a `data:` URL); absent when running from source. */
declare const ACP_EDGE_HTML_WORKER_URL: string | undefined;

function workerUrl(): URL {
  return typeof ACP_EDGE_HTML_WORKER_URL === "string" ? new URL(ACP_EDGE_HTML_WORKER_URL) : new URL("./html-worker.ts", import.meta.url);
}

/** Why a page could not be converted at all (the worker failed); the fetch tool reports it to the model. */
export class ConversionFailedError extends Error {}

/** `html` as Markdown of its main content up to about `wanted` characters; rejects with the signal's reason when it aborts. */
export function convertPage(html: string, pageUrl: string, wanted: number, signal: AbortSignal): Promise<PageMarkdown> {
  return new Promise<PageMarkdown>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let settled = false;
    // Bounds a worker that cannot stop itself (it stops itself after the budget); the result is marked as stopped.
    const limit = deadlineInBackground(HARD_LIMIT_MS, () => finish(() => resolve({ title: "", markdown: "", complete: false, stopped: true })));
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      limit.cancel();
      signal.removeEventListener("abort", onAbort);
      worker.end();
      outcome();
    };
    const worker = startWorkerThread(workerUrl(), {
      message(message) {
        const answer = message as ConvertDone | EntitiesQuestion;
        if (answer.type === "done") finish(() => resolve(answer.page));
        else if (answer.type === "entities") void lookUp(answer.names).then((decoded) => !settled && worker.post({ type: "entities", decoded } satisfies EntitiesAnswer));
      },
      failed: (reason) => finish(() => reject(new ConversionFailedError(reason))),
    });
    const onAbort = () => finish(() => reject(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    worker.post({ type: "convert", html, pageUrl, wanted, budgetMs: CONVERT_BUDGET_MS } satisfies ConvertRequest);
  });
}

async function lookUp(names: string[]): Promise<Array<[string, string]>> {
  const { decodeEntityNames } = await import("./entity-names.ts");
  return await decodeEntityNames(names).catch(() => []);
}

/** What the fetch tool shows of an HTML page: its text (title first), whether that is all of it, and a note when the budget cut it short. */
export interface PageText {
  text: string;
  whole: boolean;
  /** Empty, or a line saying the conversion was stopped. */
  note: string;
}

/** `html` converted for the fetch tool; a failed conversion is a tool error the model reads. */
export async function pageText(html: string, pageUrl: string, wanted: number, signal: AbortSignal): Promise<PageText> {
  let page: PageMarkdown;
  try {
    page = await convertPage(html, pageUrl, wanted, signal);
  } catch (error) {
    if (error instanceof ConversionFailedError) throw new ToolError(`The page could not be converted to Markdown: ${error.message}`);
    throw error;
  }
  const text = page.title ? `Title: ${page.title}\n\n${page.markdown}` : page.markdown;
  if (!page.stopped) return { text, whole: page.complete, note: "" };
  // What was converted is all there will be: reading on with an offset would stop at the same place.
  const note = `\n[The conversion of this page to Markdown was stopped after ${CONVERT_BUDGET_MS / 1000} s of work: ${text ? "the text above is the part converted by then" : "nothing was converted by then"}; the rest of the page is not shown.]`;
  return { text, whole: true, note };
}
