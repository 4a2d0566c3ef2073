/**
 * What the fetch tool pays to turn a page into Markdown, shape by shape, at
 * n, 2n and 4n elements, so whether the time grows with the page or faster
 * shows in each row: ordinary articles and hostile shapes (deep nesting,
 * wide flat pages, nested lists, many table cells, long attributes, entity
 * floods, unclosed tags of every kind, stray end tags, `<pre>` deep inside),
 * up to the 5 MiB download bound.
 *
 * Columns: the converter (src/tools/web/html-to-markdown.ts) for the whole
 * page and for the first call's 40,000 characters; and, as the candidates it
 * was chosen over, linkedom's parse alone (what any walk over linkedom's
 * tree pays first) and node-html-markdown's translate of the whole page. A
 * candidate runs on a worker thread that is ended after CANDIDATE_CAP_MS
 * (">4000" in the table), and is not run at larger sizes of that shape
 * ("-"). Then the worker thread's round trip for one small page (start,
 * convert, answer).
 *
 * Usage: bun bench/fetch-convert.ts   (or deno run -A bench/fetch-convert.ts)
 */
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { parseHTML } from "linkedom";
import { NodeHtmlMarkdown } from "node-html-markdown";
import { htmlToMarkdown } from "../src/tools/web/html-to-markdown.ts";
import { convertPage } from "../src/tools/web/page-conversion.ts";
import { neutraliseMarkers } from "../src/tools/web/untrusted-marker.ts";

const CANDIDATE_CAP_MS = 4_000;
const FIVE_MIB = 5 * 1024 * 1024;

const paragraph = '<p>Some text with <a href="/docs/page">a link</a> and <code>code()</code> in it.</p>\n';
const unclosed = ["<b>", "<i>", "<p>", "<li>", "<td>", "<tr>", '<a href="/x">', "<table>", "<ul>", "<ol>", "<h2>", "<blockquote>", "<code>", "<em>", "<dl><dt>", "<span>", "<div>", "<pre>", "<title>x", "<textarea>y</textarea>"];

/** Each shape: a page of `n` repeated elements. */
const shapes: Record<string, (n: number) => string> = {
  "article (paragraphs)": (n) => `<html><head><title>t</title></head><body><nav>menu</nav><main><div>${paragraph.repeat(n)}</div></main></body></html>`,
  "deep <div>t (unclosed)": (n) => "<div>t ".repeat(n),
  "wide flat <p>": (n) => "<p>t</p>".repeat(n),
  "deep nested lists": (n) => "<ul><li>x ".repeat(n),
  "table cells": (n) => `<table><tr>${"<td>c</td>".repeat(n)}</tr></table>`,
  "long attribute values": (n) => `${`<a href="/${"x".repeat(1000)}" title="${"y".repeat(1000)}">l</a>`.repeat(Math.ceil(n / 100))}`,
  "entity flood": (n) => "&amp;&lt;&eacute;&#x41;&hellip;&bogus;".repeat(n),
  "unclosed tags, every kind": (n) => Array.from({ length: n }, (_, i) => `${unclosed[i % unclosed.length]}w `).join(""),
  "deep nesting, stray end tags": (n) => `${"<div>t ".repeat(n / 2)}${"</span>".repeat(n / 2)}`,
  "<pre> inside deep nesting": (n) => `${"<div>".repeat(n)}<pre>${"let x = 1;\n".repeat(n)}</pre>`,
};

const runs = 3;
function median(work: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}
type Candidate = "linkedom" | "node-html-markdown";

/** One timed run of a candidate on this thread (candidates are slow; one run shows the growth). */
function runCandidate(candidate: Candidate, html: string): number {
  const started = performance.now();
  if (candidate === "linkedom") parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  else new NodeHtmlMarkdown({ keepDataImages: false, maxConsecutiveNewlines: 2 }).translate(html);
  return performance.now() - started;
}

if (!isMainThread) {
  const { candidate, shape, n } = workerData as { candidate: Candidate; shape: string; n: number };
  parentPort!.postMessage(runCandidate(candidate, shapes[shape]!(n)));
} else {
  await main();
}

/** A candidate's time on a thread of its own, or undefined when it was ended after CANDIDATE_CAP_MS. */
function timedCandidate(candidate: Candidate, shape: string, n: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { candidate, shape, n } });
    const cap = setTimeout(() => void worker.terminate().then(() => resolve(undefined)), CANDIDATE_CAP_MS);
    worker.once("message", (ms: number) => {
      clearTimeout(cap);
      void worker.terminate().then(() => resolve(ms));
    });
  });
}

async function main() {
const cell = (ms: number | undefined | null) => (ms === undefined ? `>${CANDIDATE_CAP_MS}` : ms === null ? "-" : ms.toFixed(1)).padStart(10);

console.log("shape                          |        n |   KiB | whole (ms) | 40k chars | linkedom parse | node-html-markdown");
for (const [name, make] of Object.entries(shapes)) {
  const capped = new Set<Candidate>();
  for (const n of [10_000, 20_000, 40_000]) {
    const html = make(n);
    const whole = median(() => htmlToMarkdown(html, "https://example.com/"));
    const first = median(() => htmlToMarkdown(html, "https://example.com/", { wanted: 40_000 }));
    const times: Record<Candidate, number | undefined | null> = { linkedom: null, "node-html-markdown": null };
    for (const candidate of ["linkedom", "node-html-markdown"] as const) {
      if (capped.has(candidate)) continue;
      times[candidate] = await timedCandidate(candidate, name, n);
      if (times[candidate] === undefined) capped.add(candidate);
    }
    console.log(`${name.padEnd(30)} | ${String(n).padStart(8)} | ${String(Math.round(html.length / 1024)).padStart(5)} | ${cell(whole)} | ${cell(first)} | ${cell(times.linkedom).padStart(14)} | ${cell(times["node-html-markdown"]).padStart(18)}`);
  }
}

console.log("\nAt the 5 MiB download bound (converter only, whole page and first 40,000 characters, ms):");
for (const name of ["deep <div>t (unclosed)", "deep nesting, stray end tags", "unclosed tags, every kind", "entity flood", "article (paragraphs)"]) {
  const make = shapes[name]!;
  // Grow n until the page fills the bound.
  const unit = make(1000).length / 1000;
  const html = make(Math.floor(FIVE_MIB / unit)).slice(0, FIVE_MIB);
  const whole = median(() => htmlToMarkdown(html, "https://example.com/"));
  const first = median(() => htmlToMarkdown(html, "https://example.com/", { wanted: 40_000 }));
  console.log(`${name.padEnd(30)} | ${String(Math.round(html.length / 1024)).padStart(5)} KiB | ${cell(whole)} | ${cell(first)}`);
}

// Every page's text, HTML or not, passes the marker neutraliser on the event loop: its time must grow with the text too.
console.log("\nMarker neutraliser on one call's text (ms): a < followed by n blanks (or blanks and slashes), at n, 2n, 4n");
for (const filler of [" ", " /", "\u2062 "]) {
  const row = [10_000, 20_000, 40_000].map((n) => median(() => neutraliseMarkers(`<${filler.repeat(n / filler.length)}x`)).toFixed(2));
  console.log(`${JSON.stringify(filler).padEnd(6)} | ${row.join(" | ")}`);
}
// Every "<" opens a would-be tag of its own: n of them in a row, and n closed tags.
for (const [name, unit] of [["<", "<"], ["<b>", "<b>x"]] as const) {
  const row = [10_000, 20_000, 40_000].map((n) => median(() => neutraliseMarkers(unit.repeat(n / unit.length))).toFixed(2));
  console.log(`${name.padEnd(6)} | ${row.join(" | ")}`);
}

const small = shapes["article (paragraphs)"]!(100);
const trips: number[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  await convertPage(small, "https://example.com/", 40_000, new AbortController().signal);
  trips.push(performance.now() - started);
}
console.log(`\nworker round trip for a ${Math.round(small.length / 1024)} KiB page (start a thread, convert, answer): median ${trips.sort((a, b) => a - b)[2]!.toFixed(1)} ms`);
}
