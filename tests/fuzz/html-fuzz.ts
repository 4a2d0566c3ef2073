/**
 * The hostile-HTML fuzzer's oracle and its converter campaign: every page
 * of html-pages.ts is converted as the fetch tool converts it, then
 *
 * - the output is bounded (in proportion to the page; `wanted` respected);
 * - nothing in it, title included, can end the untrusted-content region
 *   (`</untrusted-web-content` in any case, with spaces anywhere);
 * - every Markdown link and image it holds points to http(s) or mailto
 *   (code blocks and code spans aside, page text escaped);
 * - asked to stop (its time budget spent) after k checks, it stops there:
 *   it never checks again and says it was stopped.
 *
 * Longer runs: npm run fuzz -- --target html --seed N --count N.
 */
import { htmlToMarkdown, type PageMarkdown } from "../../src/tools/web/html-to-markdown.ts";
import { hostilePage } from "./html-pages.ts";
import { Prng } from "./transport-prng.ts";

export const PAGE_URL = "https://example.com/dir/page.html";
/** Pages of the campaign are at most this long (the fetch tool's pages go to 5 MiB; the bench covers those). */
export const MAX_PAGE_CHARS = 512 * 1024;
/** Output characters per page character at most: list prefixes are capped, so a line costs a bounded prefix. */
const EXPANSION = 24;

const CLOSING = /<\s*\/\s*untrusted-web-content/i;

/** Whether the character at `index` is escaped by an odd run of backslashes before it. */
function escaped(text: string, index: number): boolean {
  let count = 0;
  for (let i = index - 1; i >= 0 && text[i] === "\\"; i--) count++;
  return count % 2 === 1;
}

/** `markdown` without fenced code blocks and code spans (their content is the page's code, shown as code). */
export function withoutCode(markdown: string): string {
  const kept: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const bare = line.replace(/^(?:[ >]|[-*] |\d+\. )*/, "");
    if (fence) {
      if (bare.trim() === fence) fence = undefined;
      continue;
    }
    const open = /^(`{3,})/.exec(bare)?.[1];
    if (open) {
      fence = open;
      continue;
    }
    kept.push(line);
  }
  const text = kept.join("\n");
  let out = "";
  for (let i = 0; i < text.length; ) {
    if (text[i] === "`" && !escaped(text, i)) {
      const run = runAt(text, i);
      // A code span closes at the next run of exactly as many backticks.
      let close = -1;
      for (let j = text.indexOf("`", i + run); j >= 0; j = text.indexOf("`", j + runAt(text, j))) {
        if (runAt(text, j) === run) {
          close = j;
          break;
        }
      }
      if (close >= 0) {
        i = close + run;
        continue;
      }
      out += text.slice(i, i + run);
      i += run;
      continue;
    }
    out += text[i];
    i++;
  }
  return out;
}

function runAt(text: string, index: number): number {
  let run = 0;
  while (text[index + run] === "`") run++;
  return run;
}

/** Link and image targets of `markdown` outside code: every unescaped `](target)`. */
export function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const targets: string[] = [];
  for (let i = text.indexOf("]("); i >= 0; i = text.indexOf("](", i + 2)) {
    if (escaped(text, i)) continue;
    const end = text.indexOf(")", i + 2);
    targets.push(text.slice(i + 2, end < 0 ? undefined : end));
  }
  return targets;
}

/** What is wrong with `page`, converted from `html` with `wanted` characters asked for; empty when nothing. */
export function problemsOf(html: string, page: PageMarkdown, wanted: number): string[] {
  const problems: string[] = [];
  for (const [what, text] of [["markdown", page.markdown], ["title", page.title]] as const) {
    const match = CLOSING.exec(text);
    if (match) problems.push(`${what} holds ${JSON.stringify(text.slice(Math.max(0, match.index - 20), match.index + 40))}`);
  }
  if (page.markdown.length > html.length * EXPANSION + 1024) problems.push(`markdown of ${page.markdown.length} characters for a page of ${html.length}`);
  if (page.title.length > html.length) problems.push(`title of ${page.title.length} characters for a page of ${html.length}`);
  if (!page.complete && !page.stopped && page.markdown.length < wanted - 2) problems.push(`incomplete at ${page.markdown.length} characters although ${wanted} were wanted`);
  for (const target of [...linkTargets(page.markdown), ...linkTargets(page.title)]) {
    if (!/^(?:https?:\/\/|mailto:)/i.test(target)) problems.push(`link to ${JSON.stringify(target.slice(0, 80))}`);
  }
  return problems;
}

export interface HtmlFinding {
  index: number;
  problems: string[];
}

export interface HtmlCampaign {
  pages: number;
  kib: number;
  /** The slowest page's conversion time per KiB (reported, not asserted). */
  worstMsPerKiB: number;
  findings: HtmlFinding[];
}

/** Converts pages first … first+count-1 of `seed` three ways (whole, first part, stopped after k checks) and checks each. */
export function runHtmlCampaign(seed: number, count: number, first = 0): HtmlCampaign {
  const findings: HtmlFinding[] = [];
  let kib = 0;
  let worst = 0;
  for (let index = first; index < first + count; index++) {
    const html = hostilePage(seed, index, MAX_PAGE_CHARS);
    kib += html.length / 1024;
    const problems: string[] = [];
    try {
      const started = performance.now();
      const whole = htmlToMarkdown(html, PAGE_URL);
      worst = Math.max(worst, (performance.now() - started) / Math.max(1, html.length / 1024));
      problems.push(...problemsOf(html, whole, Number.POSITIVE_INFINITY));
      const wanted = new Prng(seed, index, 1).range(1, 40_000);
      problems.push(...problemsOf(html, htmlToMarkdown(html, PAGE_URL, { wanted }), wanted).map((p) => `(first ${wanted}) ${p}`));
      // The budget is spent at the k-th check: the converter stops there and says so.
      const k = new Prng(seed, index, 2).range(1, 4);
      let checks = 0;
      const stopped = htmlToMarkdown(html, PAGE_URL, { stopped: () => ++checks >= k });
      if (checks > k) problems.push(`checked the budget ${checks} times after it was spent at check ${k}`);
      if (checks === k && !stopped.stopped) problems.push(`the budget was spent at check ${k} but the result does not say it was stopped`);
      problems.push(...problemsOf(html, stopped, Number.POSITIVE_INFINITY).map((p) => `(stopped) ${p}`));
    } catch (error) {
      problems.push(`threw ${(error as Error)?.stack ?? String(error)}`);
    }
    if (problems.length) findings.push({ index, problems });
  }
  return { pages: count, kib, worstMsPerKiB: worst, findings };
}
