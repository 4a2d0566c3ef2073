/**
 * The messages between the `fetch` tool and the worker thread that turns
 * a page into Markdown (page-conversion.ts, html-worker.ts).
 * @module
 */
import type { PageMarkdown } from "./html-to-markdown.ts";

/** To the worker: convert this page, stopping after `budgetMs` of work or once `wanted` characters exist. */
export interface ConvertRequest {
  type: "convert";
  html: string;
  pageUrl: string;
  wanted: number;
  budgetMs: number;
}

/** To the worker: the uncommon named character references it asked for. */
export interface EntitiesAnswer {
  type: "entities";
  decoded: Array<[string, string]>;
}

/** From the worker: what these names stand for, please (the worker thread has no HTML parser of its own). */
export interface EntitiesQuestion {
  type: "entities";
  names: string[];
}

/** From the worker: the page as Markdown. */
export interface ConvertDone {
  type: "done";
  page: PageMarkdown;
}
