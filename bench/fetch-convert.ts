/**
 * What the fetch tool pays to turn a page into Markdown: the first call's
 * part (40,000 characters) of pages of growing size, and of a whole 200 KiB
 * article. The page is parsed once (linkedom) and converted in pieces only
 * as far as the call reads, so the first part of a 5 MiB page stays cheap.
 * Usage: bun bench/fetch-convert.ts   (or deno run -A bench/fetch-convert.ts)
 */
import { htmlToMarkdown } from "../src/tools/web/html-to-markdown.ts";

const paragraph = '<p>Some text with <a href="/docs/page">a link</a> and <code>code()</code> in it.</p>\n';
const page = (bytes: number) =>
  `<!doctype html><html><head><title>t</title><script>x()</script></head><body><nav>menu</nav><main><div>${paragraph.repeat(Math.ceil(bytes / paragraph.length))}</div></main></body></html>`;

const runs = 5;
const median = (work: () => void) => {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
};

console.log("page size | first 40,000 characters (median of 5, ms)");
for (const kib of [64, 256, 1024, 5120]) {
  const html = page(kib * 1024);
  console.log(`${String(kib).padStart(5)} KiB | ${median(() => htmlToMarkdown(html, "https://example.com/", 40_000)).toFixed(1)}`);
}
const article = page(200 * 1024);
console.log(`whole 200 KiB article: ${median(() => htmlToMarkdown(article, "https://example.com/")).toFixed(1)} ms`);
