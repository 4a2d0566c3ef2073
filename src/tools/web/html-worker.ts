/**
 * The worker thread's script that turns a page into Markdown for the
 * `fetch` tool (started by page-conversion.ts): one page per thread, its
 * own time budget counted from when the page arrives.
 * @module
 */
import { workerPort } from "../../runtime/worker/worker-port.ts";
import type { ConvertDone, ConvertRequest, EntitiesAnswer, EntitiesQuestion } from "./conversion-messages.ts";
import { pageToMarkdown } from "./html-to-markdown.ts";

const port = workerPort();
if (port) {
  let answerEntities: ((decoded: EntitiesAnswer["decoded"]) => void) | undefined;
  port.onMessage((message) => {
    const request = message as ConvertRequest | EntitiesAnswer;
    if (request.type === "entities") {
      answerEntities?.(request.decoded);
      return;
    }
    const deadline = performance.now() + request.budgetMs;
    const lookup = (names: string[]) =>
      new Promise<EntitiesAnswer["decoded"]>((resolve) => {
        answerEntities = resolve;
        port.post({ type: "entities", names } satisfies EntitiesQuestion);
      });
    void pageToMarkdown(request.html, request.pageUrl, { wanted: request.wanted, stopped: () => performance.now() > deadline }, lookup).then((page) =>
      port.post({ type: "done", page } satisfies ConvertDone),
    );
  });
}
